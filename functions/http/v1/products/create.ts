import { createProductParams } from '#shared/catalogue/schemas.ts';
import { serializeProduct } from '#shared/catalogue/serializer.ts';
import type { productObject } from '#shared/catalogue/objects.ts';
import { wireCatalogueService } from '#shared/catalogue/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCatalogueService();
const expander = wireExpander('product', catalogueExpansions);

/** POST /v1/products */
export const handler = httpHandler(
  {
    summary: 'Create a product',
    params: createProductParams,
    response: responds<typeof productObject>(),
    expand: expander,
    idempotency: { answeredBy: 'product.created' },
  },
  async ({ origin, params }) => ({
    body: serializeProduct(await service.createProduct(origin, params)),
  }),
);
