import type { Price, Product } from '#shared/catalogue/catalogue.ts';
import type { Customer } from '#shared/customers/customer.ts';
import type { Subscription } from '#shared/subscriptions/subscription.ts';
import type { SearchableResource, SearchField } from './query.ts';

/** `created` as the API shows it: Unix seconds (objects keep milliseconds). */
const created = <T extends { created: number }>(): SearchField<T> => ({ type: 'numeric', value: (object) => Math.floor(object.created / 1000) });

/** The reference's query fields for customers: created, email, metadata, name, phone. */
export const customerSearch: SearchableResource<Customer> = {
  name: 'customers',
  fields: {
    created: created(),
    email: { type: 'string', value: (customer) => customer.email },
    name: { type: 'string', value: (customer) => customer.name },
    phone: { type: 'string', value: (customer) => customer.phone },
  },
  metadata: (customer) => customer.metadata,
};

/** The reference's query fields for products: active, created, description, metadata, name, shippable, url. */
export const productSearch: SearchableResource<Product> = {
  name: 'products',
  fields: {
    active: { type: 'boolean', value: (product) => product.active },
    created: created(),
    description: { type: 'string', value: (product) => product.description },
    name: { type: 'string', value: (product) => product.name },
    shippable: { type: 'boolean', value: (product) => product.shippable },
    url: { type: 'string', value: (product) => product.url },
  },
  metadata: (product) => product.metadata,
};

/** The reference's query fields for prices: active, created, currency, lookup_key, metadata, product, type. */
export const priceSearch: SearchableResource<Price> = {
  name: 'prices',
  fields: {
    active: { type: 'boolean', value: (price) => price.active },
    created: created(),
    currency: { type: 'token', value: (price) => price.currency },
    lookup_key: { type: 'string', value: (price) => price.lookupKey },
    product: { type: 'string', value: (price) => price.product },
    type: { type: 'token', value: (price) => price.type },
  },
  metadata: (price) => price.metadata,
};

/** The reference's query fields for subscriptions: created, metadata, status. */
export const subscriptionSearch: SearchableResource<Subscription> = {
  name: 'subscriptions',
  fields: {
    created: created(),
    status: { type: 'string', value: (subscription) => subscription.status },
  },
  metadata: (subscription) => subscription.metadata,
};
