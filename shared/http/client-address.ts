import { isIP } from 'node:net';
import { config } from '#shared/core/config.ts';

/**
 * The client's address: API Gateway's `sourceIp`, unless `CLIENT_ADDRESS_HEADER` names the header a trusted
 * proxy writes it to. Behind CloudFront (`-c edge=cloudfront`), `sourceIp` is a CloudFront server shared by
 * many clients, and `cloudfront-viewer-address` (`ip:port`, which CloudFront writes itself) holds the client's;
 * the stack sets the variable only when its origin authorizer lets nothing but CloudFront reach the API, so
 * the header cannot come from a client. A missing or malformed header falls back to `sourceIp`.
 */
export function clientAddress(
  headers: Record<string, string | undefined>,
  sourceIp: string | undefined,
  header: string | null = config().CLIENT_ADDRESS_HEADER ?? null,
): string | null {
  const fallback = sourceIp || null;
  if (!header) return fallback;
  const value = headers[header]?.trim() ?? '';
  // The port follows the last colon, for IPv4 (`203.0.113.7:443`) and IPv6 (`2001:db8::1:443`) alike.
  const address = value.slice(0, value.lastIndexOf(':'));
  return isIP(address) ? address : fallback;
}
