import { createHmac } from 'node:crypto';
import { randomBase62 } from '#shared/core/ids.ts';

/**
 * The `Service-Signature` header value for a body: `t=<timestampSeconds>,v1=<hex>`, where the hex is the
 * HMAC-SHA256 of `"<t>.<body>"` keyed with the secret string's UTF-8 bytes as they are (the whole `whsec_…`
 * string, not decoded). The official SDK's `constructEvent` and `parseEventNotification` verify it; they
 * refuse it once `t` is more than 300 s old, so sign when sending, not when the event is made.
 */
export function signatureHeader(body: string, secret: string, timestampSeconds: number): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`A signature timestamp is whole seconds since the epoch, got ${timestampSeconds}`);
  }
  const signature = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${timestampSeconds},v1=${signature}`;
}

/** A new endpoint signing secret: `whsec_` and 32 random base62 characters. */
export function newSigningSecret(): string {
  return `whsec_${randomBase62(32)}`;
}
