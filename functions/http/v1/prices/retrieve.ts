import { retrievePriceParams } from '#shared/catalogue/schemas.ts';
import { serializePrice } from '#shared/catalogue/serializer.ts';
import type { priceObject } from '#shared/catalogue/objects.ts';
import { wireCatalogueService } from '#shared/catalogue/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCatalogueService();
const expander = wireExpander('price', catalogueExpansions);

/** GET /v1/prices/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve a price', params: retrievePriceParams, response: responds<typeof priceObject>(), expand: expander },
  async ({ caller, pathParameters }) => {
    const price = await service.retrievePrice(caller.scope, pathParameters.id!);
    return { body: serializePrice(price) };
  },
);
