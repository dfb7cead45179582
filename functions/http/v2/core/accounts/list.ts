import { listAccountsParams } from '#shared/accounts/read-schemas.ts';
import { serializeAccount } from '#shared/accounts/serializer.ts';
import type { accountObject } from '#shared/accounts/objects.ts';
import { wireAccountService } from '#shared/accounts/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { v2Page, type V2ListObject } from '#shared/wire/pagination.ts';

const service = wireAccountService();

/** GET /v2/core/accounts: newest first, open accounts unless `closed`; filters ride along in next_page_url. */
export const handler = httpHandler(
  {
    summary: 'List accounts',
    description: 'Newest first; open accounts unless `closed` is asked for.',
    params: listAccountsParams,
    response: responds<V2ListObject<typeof accountObject>>(),
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
