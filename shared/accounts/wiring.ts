import { cacheWindows, readThrough } from '#shared/core/cache.ts';
import { config } from '#shared/core/config.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoAccountRepository, dynamoPersonRepository, dynamoUpdateSlots } from '#shared/data/account-repository.ts';
import { dynamoPlatformStore } from '#shared/data/platform-store.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { dynamoTokenRepository } from '#shared/data/token-repository.ts';
import type { Table } from '#shared/data/table.ts';
import { accountsV2Gate } from './gate.ts';
import { accountService } from './service.ts';
import { accountTokenService } from './token-service.ts';
import { accountUpdateLimiter } from './update-limit.ts';

const gateOn = (table: Table) =>
  accountsV2Gate({ getAccount: readThrough(dynamoPlatformStore(table).getAccount, (id) => id, { ttlMillis: cacheWindows.accountsV2Gate() }) });

/** The service on its real adapters; handlers call this once at module scope (cold start). */
export const wireAccountService = () => {
  const table = serviceTable();
  return accountService({
    accounts: dynamoAccountRepository(table),
    persons: dynamoPersonRepository(table),
    events: wireEventEmitter(),
    gate: gateOn(table),
    limiter: accountUpdateLimiter(dynamoUpdateSlots(table), config().ACCOUNT_UPDATE_CONCURRENCY),
    tokens: dynamoTokenRepository(table),
  });
};

/** The account and person token service on its real adapters. */
export const wireAccountTokenService = () => {
  const table = serviceTable();
  return accountTokenService({
    tokens: dynamoTokenRepository(table),
    accounts: dynamoAccountRepository(table),
    gate: gateOn(table),
    ttlMillis: config().TOKEN_TTL_MINUTES * 60_000,
  });
};
