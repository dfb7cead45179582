import { responds } from '#shared/http/handler.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';
import { serializePrice } from '#shared/catalogue/serializer.ts';
import type { priceObject } from '#shared/catalogue/objects.ts';
import { wirePriceSearch } from '#shared/search/wiring.ts';
import { searchHandler } from '../search-handler.ts';

/** GET /v1/prices/search: over active, created, currency, lookup_key, metadata, product and type. */
export const handler = searchHandler({
  type: 'price',
  url: '/v1/prices/search',
  summary: 'Search prices',
  description: 'The search query language over active, created, currency, lookup_key, metadata, product and type; newest first.',
  object: responds<typeof priceObject>(),
  search: wirePriceSearch(),
  serialize: (price) => serializePrice(price),
  expand: wireExpander('price', catalogueExpansions),
});
