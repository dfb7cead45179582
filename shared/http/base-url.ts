import { config } from '#shared/core/config.ts';

const hostPattern = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * The service's own public base URL (no trailing slash), for links to pages it serves: `PUBLIC_BASE_URL`
 * when set (a custom domain, a proxy), else the scheme and host the request came in on
 * (`x-forwarded-proto` and `host`, which API Gateway and the local gateway set).
 */
export function publicBaseUrl(
  headers: Record<string, string | undefined>,
  domainName: string | undefined,
  configured: string | null = config().PUBLIC_BASE_URL ?? null,
): string {
  if (configured) return configured.replace(/\/+$/, '');
  const forwarded = (headers['x-forwarded-proto'] ?? '').split(',')[0]!.trim().toLowerCase();
  const scheme = forwarded === 'http' || forwarded === 'https' ? forwarded : 'https';
  const host = [headers.host, domainName].find((candidate): candidate is string => candidate !== undefined && hostPattern.test(candidate)) ?? 'localhost';
  return `${scheme}://${host}`;
}
