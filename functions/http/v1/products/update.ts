import { updateProductParams } from '#shared/catalogue/schemas.ts';
import { serializeProduct, productObject } from '#shared/catalogue/serializer.ts';
import { wireCatalogueService } from '#shared/catalogue/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';

const service = wireCatalogueService();

/** POST /v1/products/{id} */
export const handler = httpHandler(
  { summary: 'Update a product', params: updateProductParams, response: productObject },
  async ({ origin, params, pathParameters }) => ({
    body: serializeProduct(await service.updateProduct(origin, pathParameters.id!, params)),
  }),
);
