import { InvalidRequestError } from '#shared/core/errors.ts';
import type { PlatformStore } from '#shared/platform/types.ts';

/**
 * The accounts v2 feature gate: a platform without the feature (`admin create-platform --no-accounts-v2`)
 * gets 400 `accounts_v2_access_blocked` on accounts, persons and account links. The wiring caches the
 * platform's record (`cacheWindows.accountsV2Gate`).
 */
export function accountsV2Gate(store: Pick<PlatformStore, 'getAccount'>) {
  return async function requireAccountsV2(platformId: string): Promise<void> {
    const record = await store.getAccount(platformId);
    if (!record?.features.accountsV2) {
      throw new InvalidRequestError(
        'Accounts v2 is not enabled for your platform. Ask the operator of this service to enable the accounts v2 feature for your account.',
        'accounts_v2_access_blocked',
      );
    }
  };
}

export type AccountsV2Gate = ReturnType<typeof accountsV2Gate>;
