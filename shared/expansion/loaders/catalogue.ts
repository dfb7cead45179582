import type { Price, Product } from '#shared/catalogue/catalogue.ts';
import { serializeDeletedProduct, serializePrice, serializeProduct } from '#shared/catalogue/serializer.ts';
import { dynamoCatalogueRepository } from '#shared/data/billing-repositories.ts';
import { serviceTable } from '#shared/data/table.ts';
import { fieldWhenExpanded } from '../resolver.ts';
import { type Getter, getAll, idsOf, type LoaderGroup } from './common.ts';

export interface CatalogueExpansionPorts {
  products: Getter<Product>;
  prices: Getter<Price>;
}

/** Products and prices, and the price and plan fields shown only when expanded. */
export function catalogueLoaders(ports: CatalogueExpansionPorts): LoaderGroup {
  return {
    objects: {
      // Products with prices cannot be deleted here; one that is gone shows as the reference's deleted product.
      product: async (scope, refs) =>
        (await getAll(ports.products, scope, idsOf(refs))).map((product, index) =>
          product ? serializeProduct(product) : serializeDeletedProduct(refs[index]!.id),
        ),
      price: async (scope, refs) => (await getAll(ports.prices, scope, idsOf(refs))).map((price) => price && serializePrice(price)),
    },
    included: {
      'price.currency_options': async (_scope, holders) => holders.map((holder) => fieldWhenExpanded(holder, 'currency_options')),
      // Only a tiered price (or plan) has tiers: on a per_unit one the field stays absent, as the reference's.
      'price.tiers': async (_scope, holders) => holders.map((holder) => fieldWhenExpanded(holder, 'tiers')),
      'plan.tiers': async (_scope, holders) => holders.map((holder) => fieldWhenExpanded(holder, 'tiers')),
    },
  };
}

/** The group on the real repositories, for `wireExpander`. */
export const catalogueExpansions = (): LoaderGroup => {
  const catalogue = dynamoCatalogueRepository(serviceTable());
  return catalogueLoaders({ products: catalogue.products, prices: catalogue.prices });
};
