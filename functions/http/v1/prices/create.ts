import { createPriceParams } from '#shared/catalogue/schemas.ts';
import { serializePrice } from '#shared/catalogue/serializer.ts';
import type { priceObject } from '#shared/catalogue/objects.ts';
import { wireCatalogueService } from '#shared/catalogue/wiring.ts';
import { httpHandler, responds } from '#shared/http/handler.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';

const service = wireCatalogueService();
const expander = wireExpander('price', catalogueExpansions);

/** POST /v1/prices: of `product`, or of a new product made from `product_data`. */
export const handler = httpHandler(
  {
    summary: 'Create a price',
    description: 'Of `product`, or of a new product made from `product_data`.',
    params: createPriceParams,
    response: responds<typeof priceObject>(),
    expand: expander,
  },
  async ({ origin, params }) => {
    const price = await service.createPrice(origin, params);
    return { body: serializePrice(price) };
  },
);
