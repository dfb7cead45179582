import { createHmac } from 'node:crypto';

/**
 * Storage port for the per-account secret: 32 random bytes kept in a partition of its own (which only the
 * functions that use it may read, and only those that write may create: functions/permissions.ts), created
 * with the account, or by the first write request that needs one for an account made before. Everything the service derives from a value it must not store in the clear,
 * or hands to a client and must recognise later, is keyed by it: card and bank account fingerprints, the
 * idempotency fingerprints of requests (which may carry identity numbers) and v2 page tokens.
 */
export interface AccountSecretStore {
  /** The account's secret, created on first use; every caller (any process) gets the same one. */
  keyFor(accountId: string): Promise<Buffer>;
  /**
   * The account's secret if it has one, never creating it: what a read-only function (which may not write
   * account secrets) uses. Accounts get theirs when they are created.
   */
  existingKeyFor(accountId: string): Promise<Buffer | undefined>;
}

/** What a derived key is for: each use gets its own, so a MAC made for one can never pass as another. */
export type SecretPurpose = 'page-token' | 'idempotency-fingerprint' | 'queue-message';

export const derivedKey = (secret: Buffer, purpose: SecretPurpose): Buffer => createHmac('sha256', secret).update(`service-secret:${purpose}`).digest();
