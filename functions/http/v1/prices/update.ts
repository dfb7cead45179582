import { updatePriceParams } from '#shared/catalogue/schemas.ts';
import { serializePrice } from '#shared/catalogue/serializer.ts';
import type { priceObject } from '#shared/catalogue/objects.ts';
import { wireCatalogueService } from '#shared/catalogue/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCatalogueService();
const expander = wireExpander('price', catalogueExpansions);

/** POST /v1/prices/{id} */
export const handler = httpHandler(
  { summary: 'Update a price', params: updatePriceParams, response: responds<typeof priceObject>(), expand: expander },
  async ({ origin, params, pathParameters }) => {
    const price = await service.updatePrice(origin, pathParameters.id!, params);
    return { body: serializePrice(price) };
  },
);
