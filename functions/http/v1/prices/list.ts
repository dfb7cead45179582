import { listPricesParams } from '#shared/catalogue/schemas.ts';
import { serializePrice } from '#shared/catalogue/serializer.ts';
import type { priceObject } from '#shared/catalogue/objects.ts';
import { wireCatalogueService } from '#shared/catalogue/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCatalogueService();
const expander = wireExpander('price', catalogueExpansions);

/** GET /v1/prices: newest first; filters active, created, currency, lookup_keys, product and type; `expand[]` data.product, data.currency_options. */
export const handler = httpHandler(
  {
    summary: 'List all prices',
    description: 'Newest first.',
    params: listPricesParams,
    response: responds<V1ListObject<typeof priceObject>>(),
    expand: expander,
  },
  async ({ caller, params }) => {
    const { active, currency, product, type } = params;
    const where: Record<string, unknown> = {};
    if (active !== undefined) where.active = active;
    if (currency !== undefined) where.currency = currency;
    if (product !== undefined) where.product = product;
    if (type !== undefined) where.type = type;
    const page = await service.listPrices(caller.scope, v1PageRequest(params), where, params.lookup_keys, params.created);
    return { body: v1List('/v1/prices', { ...page, items: page.items.map((price) => serializePrice(price)) }, params) };
  },
);
