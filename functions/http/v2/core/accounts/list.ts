import { listAccountsParams } from '#shared/accounts/schemas.ts';
import { serializeAccount, accountObject } from '#shared/accounts/serializer.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v2List, v2ListObject } from '#shared/http/pagination.ts';

const service = wireAccountService();

/** GET /v2/core/accounts: newest first, open accounts unless `closed`; filters ride along in next_page_url. */
export const handler = httpHandler({ params: listAccountsParams, response: v2ListObject(accountObject), v2List: true }, async ({ origin, params, paging }) => {
  const filters = { appliedConfigurations: params.applied_configurations, closed: params.closed };
  const page = await service.list(origin, { limit: params.limit ?? 20, startingAfter: paging!.cursor }, filters);
  const next = page.hasMore ? paging!.nextPageUrl(page.items.at(-1)!.id) : null;
  return {
    body: v2List(
      page.items.map((account) => serializeAccount(account)),
      next,
    ),
  };
});
