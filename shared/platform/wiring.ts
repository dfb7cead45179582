import { cacheWindows, readThrough, readThroughWithMisses } from '#shared/core/cache.ts';
import { dynamoPlatformStore } from '#shared/data/platform-store.ts';
import { serviceTable } from '#shared/data/table.ts';
import type { AccountSecretStore } from './account-secrets.ts';
import type { PlatformStore } from './types.ts';

/**
 * The platform store with API key lookups cached (`cacheWindows.apiKeys`): one read per key per warm
 * process, and one per unknown key too (a guessed key is refused from memory when presented again).
 */
export const cachedApiKeys = (store: PlatformStore): PlatformStore => ({
  ...store,
  findApiKey: readThroughWithMisses(store.findApiKey, (hash) => hash, { ttlMillis: cacheWindows.apiKeys() }),
});

let apiKeys: PlatformStore | undefined;

/** The process's one cached platform store: the request pipeline and the sessions and links that check their key share its cache. */
export const wireApiKeys = (): PlatformStore => {
  apiKeys ??= cachedApiKeys(dynamoPlatformStore(serviceTable()));
  return apiKeys;
};

/** Account secrets cached for the life of the process (`cacheWindows.accountSecrets`): they never change. */
export const cachedAccountSecrets = (store: AccountSecretStore): AccountSecretStore => ({
  keyFor: readThrough(store.keyFor, (accountId) => accountId, { ttlMillis: cacheWindows.accountSecrets() }),
  // Only found secrets are kept: one created later is read again.
  existingKeyFor: readThrough(store.existingKeyFor, (accountId) => accountId, { ttlMillis: cacheWindows.accountSecrets() }),
});
