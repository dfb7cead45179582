import { createHmac } from 'node:crypto';

/**
 * Storage port for the per-account secret: 32 random bytes kept in the account's partition, created by the
 * first request that needs one. Everything the service derives from a value it must not store in the clear,
 * or hands to a client and must recognise later, is keyed by it: card and bank account fingerprints, the
 * idempotency fingerprints of requests (which may carry identity numbers) and v2 page tokens.
 */
export interface AccountSecretStore {
  /** The account's secret, created on first use; every caller (any process) gets the same one. */
  keyFor(accountId: string): Promise<Buffer>;
}

/** What a derived key is for: each use gets its own, so a MAC made for one can never pass as another. */
export type SecretPurpose = 'page-token' | 'idempotency-fingerprint' | 'queue-message';

export const derivedKey = (secret: Buffer, purpose: SecretPurpose): Buffer => createHmac('sha256', secret).update(`service-secret:${purpose}`).digest();
