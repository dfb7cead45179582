import { randomBytes } from 'node:crypto';
import type { IdempotencyRecord, IdempotencyStore, StoredResponse } from '#shared/http/idempotency.ts';
import type { AccountSecretStore } from '#shared/platform/account-secrets.ts';
import type { AccountRecord, ApiKeyRecord, PlatformStore, Scope } from '#shared/platform/types.ts';

/** In-memory PlatformStore for unit tests. */
export function fakePlatformStore(): PlatformStore & { accounts: Map<string, AccountRecord>; keys: Map<string, ApiKeyRecord> } {
  const accounts = new Map<string, AccountRecord>();
  const keys = new Map<string, ApiKeyRecord>();
  return {
    accounts,
    keys,
    async createAccount(account) {
      if (accounts.has(account.id)) throw new Error('exists');
      accounts.set(account.id, account);
    },
    async getAccount(id) {
      return accounts.get(id);
    },
    async createApiKey(key) {
      if (keys.has(key.hash)) return false;
      keys.set(key.hash, key);
      return true;
    },
    async findApiKey(hash) {
      return keys.get(hash);
    },
    async expireApiKey(hash, expiresAt) {
      const key = keys.get(hash);
      if (!key) return false;
      keys.set(hash, { ...key, expiresAt });
      return true;
    },
    async listApiKeys(accountId) {
      return [...keys.values()].filter((key) => key.accountId === accountId);
    },
  };
}

type Item = { state: 'in_progress' | 'complete'; fingerprint: string; lockedUntil: number; expiresAt: number; response?: StoredResponse };

/** In-memory IdempotencyStore with the same claim rule as the DynamoDB adapter. */
export function fakeIdempotencyStore(): IdempotencyStore & { items: Map<string, Item> } {
  const items = new Map<string, Item>();
  const id = (scope: Scope, key: string) => `${scope.accountId}/${scope.livemode}/${key}`;
  const view = (item: Item | undefined, now: number): IdempotencyRecord => {
    if (!item || item.expiresAt <= now) return { state: 'absent' };
    return item.state === 'complete'
      ? { state: 'complete', fingerprint: item.fingerprint, response: item.response! }
      : { state: 'in_progress', fingerprint: item.fingerprint };
  };
  return {
    items,
    async claim(claim, now) {
      const current = items.get(id(claim.scope, claim.key));
      const free = !current || current.expiresAt <= now || (current.state === 'in_progress' && current.lockedUntil < now);
      if (!free) return { claimed: false, record: view(current, now) };
      items.set(id(claim.scope, claim.key), {
        state: 'in_progress',
        fingerprint: claim.fingerprint,
        lockedUntil: claim.lockedUntil,
        expiresAt: claim.expiresAt,
      });
      return { claimed: true };
    },
    async read(scope, key, now) {
      return view(items.get(id(scope, key)), now);
    },
    async complete(scope, key, response) {
      const item = items.get(id(scope, key))!;
      items.set(id(scope, key), { ...item, state: 'complete', response });
    },
    async release(scope, key) {
      items.delete(id(scope, key));
    },
  };
}

/** In-memory AccountSecretStore: one random secret per account, made on first use. */
export function fakeAccountSecretStore(): AccountSecretStore {
  const secrets = new Map<string, Buffer>();
  return {
    async keyFor(accountId) {
      if (!secrets.has(accountId)) secrets.set(accountId, randomBytes(32));
      return secrets.get(accountId)!;
    },
  };
}
