import { InvalidRequestError } from '#shared/errors.ts';

/** The version this service renders when a request names none (the official SDK 23.1.0 default). */
export const defaultServiceVersion = '2026-10-28.endive';

const versionPattern = /^(\d{4})-(\d{2})-(\d{2})(?:\.([a-z][a-z_]*))?$/;

/** True for `<date>` or `<date>.<release_name>` with a real calendar date no later than the default version. */
export function isServiceVersion(value: string): boolean {
  const match = versionPattern.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  const real = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real && year >= 2011 && value.slice(0, 10) <= defaultServiceVersion.slice(0, 10);
}

/** Reads the `Service-Version` request header (or the SDK's `Stripe-Version`, named by `name`); a malformed one is a 400. */
export function requestedServiceVersion(header: string | undefined, name = 'Service-Version'): string {
  if (header === undefined || header === '') return defaultServiceVersion;
  if (!isServiceVersion(header)) {
    throw new InvalidRequestError(
      `Invalid ${name} header: '${header.length > 40 ? `${header.slice(0, 40)}…` : header}'. Use the form <date>.<release_name>, for example ${defaultServiceVersion}.`,
      'invalid_service_version',
    );
  }
  return header;
}
