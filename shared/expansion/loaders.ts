import type { Price, Product } from '#shared/catalogue/catalogue.ts';
import { serializeDeletedProduct, serializePrice, serializeProduct } from '#shared/catalogue/serializer.ts';
import type { Customer, CustomerRepository } from '#shared/customers/customer.ts';
import { serializeCustomer, serializeDeletedCustomer, serializeSource } from '#shared/customers/serializer.ts';
import type { Invoice } from '#shared/invoices/invoice.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import type { AuthorizationRepository } from '#shared/issuing/authorization.ts';
import type { CardRepository } from '#shared/issuing/card.ts';
import type { CardholderRepository } from '#shared/issuing/cardholder.ts';
import { serializeAuthorization, serializeCard, serializeCardholder } from '#shared/issuing/serializers.ts';
import { transactionsOf, type TransactionRepository } from '#shared/issuing/transaction.ts';
import type { Scope } from '#shared/platform/types.ts';
import { serializeDeletedTestClock, serializeTestClock } from '#shared/test-clocks/serializer.ts';
import type { TestClock } from '#shared/test-clocks/test-clock.ts';
import { fieldWhenExpanded, type ExpansionLoaders, type Ref } from './resolver.ts';

type Json = Record<string, unknown>;
type Getter<T> = { get(scope: Scope, id: string): Promise<T | undefined> };

/** The repositories the loaders read through: each read is a get, and the gets of one turn are one BatchGetItem. */
export interface ExpansionPorts {
  customers: Getter<Customer> & Pick<CustomerRepository, 'getSource' | 'listSources'>;
  products: Getter<Product>;
  prices: Getter<Price>;
  invoices: Getter<Invoice>;
  cards: Pick<CardRepository, 'get'>;
  cardholders: Pick<CardholderRepository, 'get'>;
  authorizations: Pick<AuthorizationRepository, 'get'>;
  transactions: Pick<TransactionRepository, 'get'>;
  testClocks: Getter<TestClock>;
}

/** How many sources an expanded customer's `sources` list shows, as the reference's embedded lists. */
const embeddedSources = 10;

/** An id field's id, whether it is still an id or was expanded at this level already. */
const idOf = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : typeof value === 'object' && value !== null && typeof (value as Json).id === 'string'
      ? ((value as Json).id as string)
      : undefined;

const getAll = <T>(repository: Getter<T>, scope: Scope, ids: readonly string[]) => Promise.all(ids.map((id) => repository.get(scope, id)));

/**
 * A customer, or the reference's deleted customer for one that is gone (deleted customers are what a
 * subscription's or a source's customer id can point at). A repository that keeps deleted customers as
 * tombstones (`deleted: true`) renders them the same way.
 */
const renderCustomer = (id: string, customer: Customer | undefined): Json =>
  customer && !(customer as { deleted?: boolean }).deleted ? serializeCustomer(customer) : serializeDeletedCustomer(id);

/**
 * The loaders of every expandable type on these repositories, each rendering through its resource's one
 * serializer. Reads are in the caller's scope: another account's or mode's object is never read.
 */
export function expansionLoaders(ports: ExpansionPorts): ExpansionLoaders {
  const ids = (refs: readonly Ref[]) => refs.map(({ id }) => id);
  return {
    objects: {
      customer: async (scope, refs) => (await getAll(ports.customers, scope, ids(refs))).map((customer, index) => renderCustomer(refs[index]!.id, customer)),
      // A source's key names its customer: the holder is the customer, or holds its id (a subscription).
      customer_source: async (scope, refs) => {
        const found = await Promise.all(
          refs.map(({ id, holder }) => {
            const customerId = holder.object === 'customer' ? idOf(holder.id) : idOf(holder.customer);
            return customerId ? ports.customers.getSource(scope, customerId, id) : undefined;
          }),
        );
        return found.map((source) => source && serializeSource(source));
      },
      // Products with prices cannot be deleted here; one that is gone shows as the reference's deleted product.
      product: async (scope, refs) =>
        (await getAll(ports.products, scope, ids(refs))).map((product, index) =>
          product ? serializeProduct(product) : serializeDeletedProduct(refs[index]!.id),
        ),
      // A customer's clock outlives it (deleting a clock deletes its customers first); one gone shows as deleted.
      'test_helpers.test_clock': async (scope, refs) =>
        (await getAll(ports.testClocks, scope, ids(refs))).map((clock, index) =>
          clock ? serializeTestClock(clock) : serializeDeletedTestClock(refs[index]!.id),
        ),
      price: async (scope, refs) => (await getAll(ports.prices, scope, ids(refs))).map((price) => price && serializePrice(price)),
      invoice: async (scope, refs) => (await getAll(ports.invoices, scope, ids(refs))).map((invoice) => invoice && serializeInvoice(invoice)),
      'issuing.cardholder': async (scope, refs) =>
        (await getAll(ports.cardholders, scope, ids(refs))).map((cardholder) => cardholder && serializeCardholder(cardholder)),
      // A card shows its cardholder: the holder's cardholder (the card's own) is read in the same batch.
      'issuing.card': async (scope, refs) => {
        const hinted = [...new Set(refs.map(({ holder }) => idOf(holder.cardholder)).filter((id): id is string => id !== undefined))];
        const [cards, prefetched] = await Promise.all([getAll(ports.cards, scope, ids(refs)), getAll(ports.cardholders, scope, hinted)]);
        const cardholders = new Map(prefetched.flatMap((cardholder) => (cardholder ? [[cardholder.id, cardholder] as const] : [])));
        const unknown = [...new Set(cards.flatMap((card) => (card && !cardholders.has(card.cardholderId) ? [card.cardholderId] : [])))];
        for (const cardholder of await getAll(ports.cardholders, scope, unknown)) if (cardholder) cardholders.set(cardholder.id, cardholder);
        return cards.map((card) => {
          const cardholder = card && cardholders.get(card.cardholderId);
          return card && cardholder ? serializeCard(card, cardholder) : undefined;
        });
      },
      // An authorization shows its transactions: a second batched read, for all the level's authorizations at once.
      'issuing.authorization': async (scope, refs) => {
        const authorizations = await getAll(ports.authorizations, scope, ids(refs));
        const transactions = await Promise.all(authorizations.map((authorization) => (authorization ? transactionsOf(ports.transactions, authorization) : [])));
        return authorizations.map((authorization, index) => authorization && serializeAuthorization(authorization, transactions[index]!));
      },
    },
    included: {
      'customer.sources': (scope, holders) =>
        Promise.all(
          holders.map(async (holder) => {
            const customerId = String(holder.id);
            const sources = await ports.customers.listSources(scope, customerId, { limit: embeddedSources });
            return { object: 'list', data: sources.items.map(serializeSource), has_more: sources.hasMore, url: `/v1/customers/${customerId}/sources` };
          }),
        ),
      'price.currency_options': async (_scope, holders) => holders.map((holder) => fieldWhenExpanded(holder, 'currency_options')),
      // Only a tiered price (or plan) has tiers: on a per_unit one the field stays absent, as the reference's.
      'price.tiers': async (_scope, holders) => holders.map((holder) => fieldWhenExpanded(holder, 'tiers')),
      'plan.tiers': async (_scope, holders) => holders.map((holder) => fieldWhenExpanded(holder, 'tiers')),
    },
  };
}
