import { listProductsParams } from '#shared/catalogue/schemas.ts';
import { serializeProduct } from '#shared/catalogue/serializer.ts';
import type { productObject } from '#shared/catalogue/objects.ts';
import { wireCatalogueService } from '#shared/catalogue/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCatalogueService();
const expander = wireExpander('product', catalogueExpansions);

/** GET /v1/products: newest first, optionally only active or inactive ones, or those created in a window. */
export const handler = httpHandler(
  {
    summary: 'List all products',
    description: 'Newest first, optionally only active or inactive ones.',
    params: listProductsParams,
    response: responds<V1ListObject<typeof productObject>>(),
    expand: expander,
  },
  async ({ caller, params }) => {
    const page = await service.listProducts(caller.scope, v1PageRequest(params), params.active, params.created);
    return { body: v1List('/v1/products', { ...page, items: page.items.map(serializeProduct) }, params) };
  },
);
