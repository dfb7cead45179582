import { systemClock } from '#shared/core/clock.ts';
import { InvalidRequestError } from '#shared/core/errors.ts';
import { newId } from '#shared/core/ids.ts';
import { generateApiKey, hashApiKey, keyHint, parseApiKey } from './api-keys.ts';
import type { KeyKind, PlatformStore } from './types.ts';

export interface CreatePlatformOptions {
  /** Issue live-mode keys (`sk_live_…`, `pk_live_…`) instead of test-mode ones. @default false */
  livemode?: boolean;
  /** Whether the platform may use the accounts v2 API. @default true */
  accountsV2?: boolean;
  /** Use these keys instead of generating them (they must match the mode). */
  secretKey?: string;
  publishableKey?: string;
}

export interface CreatedPlatform {
  account: string;
  secret_key: string;
  publishable_key: string;
}

function checkKey(key: string, kind: KeyKind, livemode: boolean): void {
  const parsed = parseApiKey(key);
  if (!parsed || parsed.kind !== kind || parsed.livemode !== livemode) {
    const expected = `${kind === 'secret' ? 'sk' : 'pk'}_${livemode ? 'live' : 'test'}_`;
    throw new InvalidRequestError(`A ${kind} key must look like ${expected} followed by 16 or more letters and digits.`, 'invalid_api_key');
  }
}

const keyTaken = (key: string) => new InvalidRequestError(`The key ${keyHint(key)} already belongs to an account.`, 'api_key_exists');

/** The keys to issue (generated unless given), checked before anything is written: well formed, and nobody's yet. */
async function newKeys(store: PlatformStore, options: Pick<CreatePlatformOptions, 'livemode' | 'secretKey' | 'publishableKey'>) {
  const livemode = options.livemode ?? false;
  const keys = [
    [options.secretKey ?? generateApiKey('secret', livemode), 'secret'],
    [options.publishableKey ?? generateApiKey('publishable', livemode), 'publishable'],
  ] as const;
  for (const [key, kind] of keys) checkKey(key, kind, livemode);
  for (const [key] of keys) {
    if (await store.findApiKey(hashApiKey(key))) throw keyTaken(key);
  }
  return { livemode, keys };
}

/** Stores checked keys for an account. */
async function storeKeys(
  store: PlatformStore,
  account: string,
  { livemode, keys }: Awaited<ReturnType<typeof newKeys>>,
  now: number,
): Promise<CreatedPlatform> {
  // A key taken between the check and here (a concurrent issue of the same given key) still fails here.
  for (const [key, kind] of keys) {
    const created = await store.createApiKey({ hash: hashApiKey(key), accountId: account, livemode, kind, hint: keyHint(key), created: now });
    if (!created) throw keyTaken(key);
  }
  return { account, secret_key: keys[0][0], publishable_key: keys[1][0] };
}

/** Creates a platform account with one secret and one publishable key of the chosen mode. */
export async function createPlatform(store: PlatformStore, options: CreatePlatformOptions = {}, now = systemClock()): Promise<CreatedPlatform> {
  const keys = await newKeys(store, options);
  const account = newId('acct', now);
  await store.createAccount({ id: account, platformId: null, features: { accountsV2: options.accountsV2 ?? true }, created: now });
  return storeKeys(store, account, keys, now);
}

/** Adds a secret and a publishable key of one mode to an existing account (generated unless given). */
export async function issueApiKeys(
  store: PlatformStore,
  account: string,
  options: Pick<CreatePlatformOptions, 'livemode' | 'secretKey' | 'publishableKey'> = {},
  now = systemClock(),
): Promise<CreatedPlatform> {
  if (!(await store.getAccount(account))) throw new InvalidRequestError(`No such account: '${account}'`, 'resource_missing');
  return storeKeys(store, account, await newKeys(store, options), now);
}

/** A key as the operator names it: the key itself, or the SHA-256 hex of it (as `show-platform` lists). */
const hashOf = (keyOrHash: string): string => (/^[0-9a-f]{64}$/.test(keyOrHash) ? keyOrHash : hashApiKey(keyOrHash));

async function storedKey(store: PlatformStore, keyOrHash: string) {
  const record = await store.findApiKey(hashOf(keyOrHash));
  if (!record) throw new InvalidRequestError('No such API key (give the key itself, or its hash as show-platform lists it).', 'api_key_invalid');
  return record;
}

/** Revokes a key now. Processes that read it in the last API_KEY_CACHE_SECONDS may accept it until then. */
export async function revokeApiKey(store: PlatformStore, keyOrHash: string, now = systemClock()): Promise<{ account: string; revoked: string }> {
  const record = await storedKey(store, keyOrHash);
  // Revoking again keeps the first revocation's time.
  await store.expireApiKey(record.hash, Math.min(now, record.expiresAt ?? now));
  return { account: record.accountId, revoked: record.hint };
}

/** The longest a rolled key keeps working: a week. */
export const maxRollGraceMillis = 7 * 24 * 60 * 60 * 1000;

/**
 * Rolls a key: issues a new key of the same kind and mode to the same account, and makes the old one stop
 * working at `expiresAt` (now by default; later, up to a week, gives clients time to switch). Rolling a
 * key again never moves its expiry later.
 */
export async function rollApiKey(
  store: PlatformStore,
  keyOrHash: string,
  options: { expiresAt?: number } = {},
  now = systemClock(),
): Promise<{ account: string; key: string; rolled: string; rolled_key_expires_at: string }> {
  const requested = options.expiresAt ?? now;
  if (!Number.isFinite(requested) || requested > now + maxRollGraceMillis) {
    throw new InvalidRequestError('A rolled key can keep working for at most a week.', 'parameter_invalid');
  }
  const record = await storedKey(store, keyOrHash);
  if (record.expiresAt !== undefined && record.expiresAt <= now)
    throw new InvalidRequestError(`The key ${record.hint} has already expired.`, 'api_key_expired');
  const key = generateApiKey(record.kind, record.livemode);
  const created = await store.createApiKey({
    hash: hashApiKey(key),
    accountId: record.accountId,
    livemode: record.livemode,
    kind: record.kind,
    hint: keyHint(key),
    created: now,
  });
  if (!created) throw new Error('Generated an API key that already exists');
  const expiresAt = Math.min(Math.max(now, requested), record.expiresAt ?? Number.POSITIVE_INFINITY);
  await store.expireApiKey(record.hash, expiresAt);
  return { account: record.accountId, key, rolled: record.hint, rolled_key_expires_at: new Date(expiresAt).toISOString() };
}
