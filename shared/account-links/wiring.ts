import { accountUpdateLimiter } from '#shared/accounts/update-limit.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { config } from '#shared/core/config.ts';
import { dynamoUpdateSlots } from '#shared/data/account-repository.ts';
import { dynamoAccountLinkRepository } from '#shared/data/account-link-repository.ts';
import { serviceTable } from '#shared/data/table.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { authFailureGuard } from '#shared/http/auth-failures.ts';
import { rateLimiter } from '#shared/http/rate-limit.ts';
import { dynamoRateCounter } from '#shared/data/rate-counter.ts';
import { cacheWindows, readThrough } from '#shared/core/cache.ts';
import { wireApiKeys } from '#shared/platform/wiring.ts';
import type { AccountLinkRepository } from './account-link.ts';
import { hostedFlow } from './hosted-flow.ts';
import { accountLinkService } from './service.ts';

/** The services on their real adapters; handlers call these once at module scope (cold start). */
export const wireAccountLinkService = () => {
  const table = serviceTable();
  return accountLinkService({
    accounts: wireAccountService(),
    limiter: accountUpdateLimiter(dynamoUpdateSlots(table), config().ACCOUNT_UPDATE_CONCURRENCY),
    links: dynamoAccountLinkRepository(table),
    ttlMinutes: config().ACCOUNT_LINK_TTL_MINUTES,
  });
};

/** Links nobody made are remembered (a guessed secret is read once a window); found links are read afresh (their state moves). */
const missesCached = (links: AccountLinkRepository): AccountLinkRepository => {
  const misses = readThrough(links.find, (hash) => hash, { ttlMillis: cacheWindows.unknownLinks(), keeps: (link) => link === undefined });
  return { ...links, find: misses };
};

export const wireHostedFlow = () => {
  const table = serviceTable();
  return hostedFlow({
    links: missesCached(dynamoAccountLinkRepository(table)),
    accounts: wireAccountService(),
    events: wireEventEmitter(),
    apiKeys: wireApiKeys(),
    failures: authFailureGuard(rateLimiter(dynamoRateCounter(table)), config().RATE_LIMIT_AUTH_FAILURES),
  });
};
