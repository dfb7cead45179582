import { cacheWindows, readThrough } from '#shared/cache.ts';
import type { AccountSecretStore } from './account-secrets.ts';
import type { PlatformStore } from './types.ts';

/** The platform store with API key lookups cached (`cacheWindows.apiKeys`): one read per key per warm process. */
export const cachedApiKeys = (store: PlatformStore): PlatformStore => ({
  ...store,
  findApiKey: readThrough(store.findApiKey, (hash) => hash, { ttlMillis: cacheWindows.apiKeys() }),
});

/** Account secrets cached for the life of the process (`cacheWindows.accountSecrets`): they never change. */
export const cachedAccountSecrets = (store: AccountSecretStore): AccountSecretStore => ({
  keyFor: readThrough(store.keyFor, (accountId) => accountId, { ttlMillis: cacheWindows.accountSecrets() }),
});
