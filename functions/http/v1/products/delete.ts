import { deleteProductParams } from '#shared/catalogue/schemas.ts';
import { serializeDeletedProduct } from '#shared/catalogue/serializer.ts';
import type { deletedProductObject } from '#shared/catalogue/objects.ts';
import { wireCatalogueService } from '#shared/catalogue/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';

const service = wireCatalogueService();

/** DELETE /v1/products/{id}: refused while any price uses the product. */
export const handler = httpHandler(
  {
    summary: 'Delete a product',
    description: 'Refused while any price uses the product.',
    params: deleteProductParams,
    response: responds<typeof deletedProductObject>(),
  },
  async ({ origin, pathParameters }) => {
    const deleted = await service.deleteProduct(origin, pathParameters.id!);
    return { body: serializeDeletedProduct(deleted.id) };
  },
);
