import { createProductParams } from '#shared/catalogue/schemas.ts';
import { serializeProduct, productObject } from '#shared/catalogue/serializer.ts';
import { wireCatalogueService } from '#shared/catalogue/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';

const service = wireCatalogueService();

/** POST /v1/products */
export const handler = httpHandler({ summary: 'Create a product', params: createProductParams, response: productObject }, async ({ origin, params }) => ({
  body: serializeProduct(await service.createProduct(origin, params)),
}));
