/**
 * Who owns an object: an account and a mode. Every stored object lives under exactly one scope, so an
 * object of another platform, or of the other mode, is simply not there (404).
 */
export interface Scope {
  accountId: string;
  livemode: boolean;
}

export type KeyKind = 'secret' | 'publishable';

/** Who is calling and inside which account the request acts. */
export interface Caller {
  /** The account that owns the key. */
  platformId: string;
  livemode: boolean;
  keyKind: KeyKind;
  /** The presented credential's SHA-256 (an API key's, or a meter event session token's): per-key limits count by it. */
  credentialId: string;
  /** Where objects are read and written: the key's account, or a connected account named by the context header. */
  scope: Scope;
}

/** An API key as stored: only its SHA-256 hash and a hint such as `sk_test_…a1b2`, never the key itself. */
export interface ApiKeyRecord {
  hash: string;
  accountId: string;
  livemode: boolean;
  kind: KeyKind;
  hint: string;
  created: number;
  /** When the key stops working (ms): set by a revocation (now) or a roll (now, or later for a grace period). */
  expiresAt?: number;
}

/**
 * An account known to the service. A platform has no `platformId`; a connected account names the platform
 * that controls it, which is what lets that platform act inside it (`Service-Context`).
 */
export interface AccountRecord {
  id: string;
  platformId: string | null;
  /**
   * The mode a connected account was created in: its platform may act inside it only with keys of that mode.
   * Absent for platforms, which have keys of both modes.
   */
  livemode?: boolean;
  features: { accountsV2: boolean };
  created: number;
}

/** Storage port for accounts and their keys. */
export interface PlatformStore {
  /** Writes a new account; fails if the id exists. */
  createAccount(account: AccountRecord): Promise<void>;
  getAccount(id: string): Promise<AccountRecord | undefined>;
  /** Writes a new key; returns false when a key with the same hash already exists. */
  createApiKey(key: ApiKeyRecord): Promise<boolean>;
  findApiKey(hash: string): Promise<ApiKeyRecord | undefined>;
  /** Sets when an existing key stops working; false when no key has this hash. */
  expireApiKey(hash: string, expiresAt: number): Promise<boolean>;
  listApiKeys(accountId: string): Promise<ApiKeyRecord[]>;
}

/** Refuses a source address that fails authentication too often; the limit is `RATE_LIMIT_AUTH_FAILURES`. */
export interface AuthFailureGuard {
  /** Throws 429 when `source` already used up this second's failures: no table read for its credential. */
  admit(source: string, now: number): void;
  /** Counts a failed authentication of `source`; throws 429 when that passes the limit. */
  failed(source: string, now: number): Promise<void>;
}
