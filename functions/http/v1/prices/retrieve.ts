import { retrievePriceParams } from '#shared/catalogue/schemas.ts';
import { serializePrice, priceObject } from '#shared/catalogue/serializer.ts';
import { wireCatalogueService } from '#shared/catalogue/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';

const service = wireCatalogueService();

/** GET /v1/prices/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve a price', params: retrievePriceParams, response: priceObject },
  async ({ caller, params, pathParameters }) => {
    const price = await service.retrievePrice(caller.scope, pathParameters.id!);
    return { body: serializePrice(price, await service.priceExpansions(caller.scope, price, params.expand)) };
  },
);
