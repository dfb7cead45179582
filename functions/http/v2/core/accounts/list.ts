import { listAccountsParams } from '#shared/accounts/schemas.ts';
import { serializeAccount, accountObject } from '#shared/accounts/serializer.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';
import { v2ListObject, v2Page } from '#shared/wire/pagination.ts';

const service = wireAccountService();

/** GET /v2/core/accounts: newest first, open accounts unless `closed`; filters ride along in next_page_url. */
export const handler = httpHandler(
  {
    summary: 'List accounts',
    description: 'Newest first; open accounts unless `closed` is asked for.',
    params: listAccountsParams,
    response: v2ListObject(accountObject),
    v2List: true,
  },
  async ({ origin, params, paging }) => {
    const filters = { appliedConfigurations: params.applied_configurations, closed: params.closed };
    const page = await service.list(origin, { limit: params.limit ?? 20, startingAfter: paging!.cursor }, filters);
    return {
      body: v2Page(
        page,
        (account) => serializeAccount(account),
        paging!,
        (account) => account.id,
      ),
    };
  },
);
