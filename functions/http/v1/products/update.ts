import { updateProductParams } from '#shared/catalogue/schemas.ts';
import { serializeProduct } from '#shared/catalogue/serializer.ts';
import type { productObject } from '#shared/catalogue/objects.ts';
import { wireCatalogueService } from '#shared/catalogue/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCatalogueService();
const expander = wireExpander('product', catalogueExpansions);

/** POST /v1/products/{id} */
export const handler = httpHandler(
  {
    summary: 'Update a product',
    params: updateProductParams,
    response: responds<typeof productObject>(),
    expand: expander,
    idempotency: { answeredBy: 'product.updated' },
  },
  async ({ origin, params, pathParameters }) => ({
    body: serializeProduct(await service.updateProduct(origin, pathParameters.id!, params)),
  }),
);
