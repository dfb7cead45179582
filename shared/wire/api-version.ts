import { InvalidRequestError } from '#shared/core/errors.ts';
import { defaultServiceVersion, isKnownVersion } from '#shared/versions/known-versions.ts';

export { defaultServiceVersion, latestServiceVersion } from '#shared/versions/known-versions.ts';

/** True for one of the reference's dated versions (`shared/versions/known-versions.ts`). */
export const isServiceVersion = isKnownVersion;

/** A value quoted back to the client, cut short so a 3,000-character header does not come back whole. */
const quoted = (value: string) => (value.length > 64 ? `${value.slice(0, 64)}…` : value);

/** What a parameter naming an unknown version is told. */
export const unknownVersionMessage = (value: string) => `'${quoted(value)}' is not a known API version, such as 2026-10-28.endive.`;

/**
 * Reads the `Service-Version` request header (or the SDK's `Stripe-Version`): absent, the default version;
 * one the reference does not know is refused as the reference refuses it (400 `invalid_request_error`,
 * "Invalid Stripe API version: …", renamed).
 */
export function requestedServiceVersion(header: string | undefined): string {
  if (header === undefined || header === '') return defaultServiceVersion;
  if (!isKnownVersion(header)) throw new InvalidRequestError(`Invalid Service API version: ${quoted(header)}`, 'invalid_service_version');
  return header;
}
