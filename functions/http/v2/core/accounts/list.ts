import { listAccountsParams } from '#shared/accounts/schemas.ts';
import { serializeAccount } from '#shared/accounts/serializer.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v2List, v2PageState } from '#shared/http/pagination.ts';

const service = wireAccountService();

/** GET /v2/core/accounts: newest first, open accounts unless `closed`; filters ride along in next_page_url. */
export const handler = httpHandler({ params: listAccountsParams }, async ({ origin, params }) => {
  const state = v2PageState(params, { applied_configurations: params.applied_configurations, closed: params.closed });
  const filters = (state.filters ?? {}) as { applied_configurations?: ('customer' | 'merchant' | 'recipient')[]; closed?: boolean };
  const page = await service.list(origin, { limit: state.limit, startingAfter: state.cursor }, { appliedConfigurations: filters.applied_configurations, closed: filters.closed });
  const next = page.hasMore ? { ...state, cursor: page.items.at(-1)!.id } : undefined;
  return { body: v2List('/v2/core/accounts', page.items.map((account) => serializeAccount(account)), next) };
});
