import { responds } from '#shared/http/handler.ts';
import { catalogueExpansions } from '#shared/expansion/loaders/catalogue.ts';
import { wireExpander } from '#shared/expansion/wiring.ts';
import { serializeProduct } from '#shared/catalogue/serializer.ts';
import type { productObject } from '#shared/catalogue/objects.ts';
import { wireProductSearch } from '#shared/search/wiring.ts';
import { searchHandler } from '../search-handler.ts';

/** GET /v1/products/search: over active, created, description, metadata, name, shippable and url; archived products included. */
export const handler = searchHandler({
  type: 'product',
  url: '/v1/products/search',
  summary: 'Search products',
  description: 'The search query language over active, created, description, metadata, name, shippable and url; archived products included; newest first.',
  object: responds<typeof productObject>(),
  search: wireProductSearch(),
  serialize: (product) => serializeProduct(product),
  expand: wireExpander('product', catalogueExpansions),
});
