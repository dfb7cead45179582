import { accountUpdateLimiter } from '#shared/accounts/update-limit.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { config } from '#shared/config.ts';
import { dynamoUpdateSlots } from '#shared/data/account-repository.ts';
import { dynamoAccountLinkRepository } from '#shared/data/account-link-repository.ts';
import { serviceTable } from '#shared/data/table.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
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

export const wireHostedFlow = () =>
  hostedFlow({ links: dynamoAccountLinkRepository(serviceTable()), accounts: wireAccountService(), events: wireEventEmitter() });
