import { cacheWindows, readThrough } from '#shared/cache.ts';
import { config } from '#shared/config.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoAccountRepository, dynamoPersonRepository, dynamoUpdateSlots } from '#shared/data/account-repository.ts';
import { dynamoPlatformStore } from '#shared/data/platform-store.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { wireTokenConsumer } from '#shared/tokens/wiring.ts';
import { accountsV2Gate } from './gate.ts';
import { accountService } from './service.ts';
import { accountUpdateLimiter } from './update-limit.ts';

/** The service on its real adapters; handlers call this once at module scope (cold start). */
export const wireAccountService = () => {
  const table = serviceTable();
  return accountService({
    accounts: dynamoAccountRepository(table),
    persons: dynamoPersonRepository(table),
    events: wireEventEmitter(),
    gate: accountsV2Gate({ getAccount: readThrough(dynamoPlatformStore(table).getAccount, (id) => id, { ttlMillis: cacheWindows.accountsV2Gate() }) }),
    limiter: accountUpdateLimiter(dynamoUpdateSlots(table), config().ACCOUNT_UPDATE_CONCURRENCY),
    tokens: wireTokenConsumer(),
  });
};
