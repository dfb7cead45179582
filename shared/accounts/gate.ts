import { InvalidRequestError } from '#shared/errors.ts';
import type { PlatformStore } from '#shared/platform/types.ts';

const cacheMillis = 60_000;

/**
 * The accounts v2 feature gate: a platform without the feature (`admin create-platform --no-accounts-v2`)
 * gets 400 `accounts_v2_access_blocked` on accounts, persons and account links. The platform's record is
 * cached per warm function for a minute.
 */
export function accountsV2Gate(store: PlatformStore, clock: () => number = Date.now) {
  const cache = new Map<string, { allowed: boolean; until: number }>();
  return async function requireAccountsV2(platformId: string): Promise<void> {
    const now = clock();
    let entry = cache.get(platformId);
    if (!entry || entry.until <= now) {
      const record = await store.getAccount(platformId);
      entry = { allowed: Boolean(record?.features.accountsV2), until: now + cacheMillis };
      cache.set(platformId, entry);
    }
    if (!entry.allowed) {
      throw new InvalidRequestError(
        'Accounts v2 is not enabled for your platform. Ask the operator of this service to enable the accounts v2 feature for your account.',
        'accounts_v2_access_blocked',
      );
    }
  };
}

export type AccountsV2Gate = ReturnType<typeof accountsV2Gate>;
