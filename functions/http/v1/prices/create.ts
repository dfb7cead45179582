import { createPriceParams } from '#shared/catalogue/schemas.ts';
import { serializePrice, priceObject } from '#shared/catalogue/serializer.ts';
import { wireCatalogueService } from '#shared/catalogue/wiring.ts';
import { httpHandler } from '#shared/http/handler.ts';

const service = wireCatalogueService();

/** POST /v1/prices: of `product`, or of a new product made from `product_data`. */
export const handler = httpHandler(
  { summary: 'Create a price', description: 'Of `product`, or of a new product made from `product_data`.', params: createPriceParams, response: priceObject },
  async ({ caller, origin, params }) => {
    const price = await service.createPrice(origin, params);
    return { body: serializePrice(price, await service.priceExpansions(caller.scope, price, params.expand)) };
  },
);
