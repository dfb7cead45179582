import * as z from 'zod';
import type {
  Customer,
  CustomerListFilters,
  CustomerRepository,
  CustomerSource,
  CustomerClockChange,
  CustomerSourceChange,
  DeletedCustomer,
  SourceChangeOutcome,
} from '#shared/customers/customer.ts';
import type { PageRequest } from '#shared/wire/paging.ts';
import type { Scope } from '#shared/platform/types.ts';
import { cancellationCodes } from './conditions.ts';
import { metadataItem, orNull, ownedItem, scopeItem } from './item-schemas.ts';
import type { Table, TransactItem } from './table.ts';
import { customer, customerSource, testClock } from './keys.ts';
import { ownedEntity, ownedListQuery, ownedResourceStore, type OwnedKind } from './owned-resources.ts';
import { type OwnerPageQuery, queryOwnerPage } from './owner-page.ts';
import { expired, tokenBankAccountItem, tokenCardItem, tokenEntity } from './token-repository.ts';
import { transactChecked, transactGuarded, transactWithOutbox } from './transactions.ts';

const addressItem = z.object({
  city: orNull(z.string()),
  country: orNull(z.string()),
  line1: orNull(z.string()),
  line2: orNull(z.string()),
  postal_code: orNull(z.string()),
  state: orNull(z.string()),
});

const customerItem = z.object({
  ...ownedItem,
  created: z.number(),
  name: orNull(z.string()),
  email: orNull(z.string()),
  description: orNull(z.string()),
  phone: orNull(z.string()),
  address: orNull(addressItem),
  shipping: orNull(z.object({ address: addressItem, name: z.string(), phone: orNull(z.string()) })),
  balance: z.number(),
  invoicePrefix: z.string(),
  nextInvoiceSequence: z.number(),
  preferredLocales: z.array(z.string()),
  taxExempt: z.enum(['exempt', 'none', 'reverse']),
  metadata: metadataItem,
  defaultSource: orNull(z.string()),
  sourceCount: z
    .number()
    .optional()
    .transform((count) => count ?? 0),
  testClock: orNull(z.string()),
});

const sourceBase = { ...ownedItem, customer: z.string(), created: z.number(), metadata: metadataItem };
const sourceItem = z.discriminatedUnion('object', [
  z.object({ ...sourceBase, object: z.literal('card'), card: tokenCardItem }),
  z.object({
    ...sourceBase,
    object: z.literal('bank_account'),
    bankAccount: tokenBankAccountItem,
    status: z
      .enum(['new', 'verified'])
      .optional()
      .transform((status) => status ?? 'new'),
  }),
]);

const tombstoneItem = z.object({
  id: z.string(),
  scope: scopeItem,
  version: z.number(),
  created: z.number(),
  deleted: z.literal(true),
  deletedAt: z.number(),
});

/**
 * Customers: in their owner's partition; a customer with an email is also in GSI1 under its owner, mode and
 * email (12d), written with it, so a changed or cleared email moves or drops the entry. A deleted customer
 * leaves its key for a tombstone at `DELETED_CUSTOMER#<id>` (`deleted`, no index keys), outside the range lists
 * and search read.
 */
const customerKind: OwnedKind<Customer> = {
  entity: 'customer',
  keys: customer,
  idPrefix: 'cus',
  parse: (item) => customerItem.parse(item),
  indexKeys: (stored): Record<string, string> =>
    !stored.email ? {} : { GSI1PK: customer.gsi1pk(stored.scope, stored.email), GSI1SK: customer.gsi1sk(stored.id) },
  unlisted: 'deleted',
};
const customers = ownedEntity<Customer>(customerKind);

/**
 * Customers (12) and their payment sources (12a–12c): a source lives next to its customer, and every
 * change of a customer's sources writes the customer too (its `sourceCount`, `defaultSource` and version),
 * so changes of one customer's sources are serialised by its version and a delete on the version read
 * finds every source. A source made from a token uses the token up in the same transaction (first, so
 * that its failed condition, with the token's old image, tells missing from used).
 */
export const customerSourceEntity = {
  customers,
  /** A live customer, or the tombstone of a deleted one. */
  parseFound: (item: Record<string, unknown>): Customer | DeletedCustomer => (item.deleted === true ? tombstoneItem.parse(item) : customers.parse(item)),
  /** One page of live customers (12, 12d): with an email, its GSI1 entries; always without tombstones. */
  listQuery(scope: Scope, page: PageRequest, { email, created, testClock }: CustomerListFilters = {}): OwnerPageQuery {
    const query = ownedListQuery(customerKind, scope, page, testClock === undefined ? undefined : { testClock }, created);
    return email === undefined ? query : { ...query, index: { gsi1pk: customer.gsi1pk(scope, email) } };
  },
  key: (scope: Scope, customerId: string, sourceId: string) => ({ PK: customerSource.pk(scope), SK: customerSource.sk(customerId, sourceId) }),
  item: (source: CustomerSource) => ({ ...customerSourceEntity.key(source.scope, source.customer, source.id), entity: 'customer_source', ...source }),
  parse: (item: Record<string, unknown>): CustomerSource => sourceItem.parse(item),
  change(tableName: string, change: CustomerSourceChange): TransactItem[] {
    const { customer: next, token, attach, detach = [], clock } = change;
    return [
      ...(token ? [tokenEntity.use(tableName, token)] : []),
      ...(change.isNew ? customers.create(tableName, next) : customers.replace(tableName, next)),
      ...(attach ? [{ Put: { TableName: tableName, Item: customerSourceEntity.item(attach), ConditionExpression: 'attribute_not_exists(PK)' } }] : []),
      ...detach.map((source) => ({
        Delete: { TableName: tableName, Key: customerSourceEntity.key(source.scope, source.customer, source.id), ConditionExpression: 'attribute_exists(PK)' },
      })),
      ...(clock ? [customerSourceEntity.clockCustomers(tableName, next.scope, clock.id, clock.version, clock.customers)] : []),
    ];
  },
  replace: (tableName: string, next: CustomerSource): TransactItem => ({
    Put: {
      TableName: tableName,
      Item: customerSourceEntity.item(next),
      ConditionExpression: 'attribute_exists(PK) AND version = :previous',
      ExpressionAttributeValues: { ':previous': next.version - 1 },
    },
  }),
  /**
   * What a new subscription writes on its customer, in its transaction: a version step (no other change),
   * only while the customer exists and is not deleted. A customer delete is written on the version it read
   * after cancelling the customer's subscriptions, so a subscription made meanwhile makes it start over.
   */
  claimForSubscription: (tableName: string, scope: Scope, customerId: string): TransactItem => ({
    Update: {
      TableName: tableName,
      Key: customers.key(scope, customerId),
      UpdateExpression: 'SET version = version + :one',
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(deleted)',
      ExpressionAttributeValues: { ':one': 1 },
    },
  }),
  /**
   * What a customer's create or delete writes on its clock, in the customer's transaction: the clock's
   * customer list, on the version read (so the per-clock cap and the clock's delete see every customer), only
   * while the clock is not advancing.
   */
  clockCustomers: (tableName: string, scope: Scope, clockId: string, readVersion: number, customers: string[]): TransactItem => ({
    Update: {
      TableName: tableName,
      Key: { PK: testClock.pk(scope), SK: testClock.sk(clockId) },
      UpdateExpression: 'SET customers = :customers, version = :next',
      ConditionExpression: 'version = :version AND #status <> :advancing',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':customers': customers, ':next': readVersion + 1, ':version': readVersion, ':advancing': 'advancing' },
    },
  }),
  /** The tombstone that replaces a customer deleted at `now`: what retrieve shows of it, one version above the last. */
  tombstone: (deleted: Customer, now: number): DeletedCustomer => ({
    id: deleted.id,
    scope: deleted.scope,
    deleted: true,
    created: deleted.created,
    deletedAt: now,
    version: deleted.version + 1,
  }),
  /** Where a deleted customer's tombstone is: beside its key, outside the customers' listed range. */
  tombstoneKey: (scope: Scope, id: string) => ({ PK: customer.pk(scope), SK: customer.tombstoneSk(id) }),
  /**
   * The customer, on the version read, deleted (and with it its email index entry), its tombstone put beside
   * it (first the guarded delete: a failed version check is a conflict), every source it has deleted.
   */
  deleteWithSources: (tableName: string, deleted: Customer, sources: CustomerSource[], now: number, clock?: CustomerClockChange): TransactItem[] => [
    {
      Delete: {
        TableName: tableName,
        Key: customers.key(deleted.scope, deleted.id),
        ConditionExpression: 'version = :version AND attribute_not_exists(deleted)',
        ExpressionAttributeValues: { ':version': deleted.version },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: { ...customerSourceEntity.tombstoneKey(deleted.scope, deleted.id), entity: 'customer', ...customerSourceEntity.tombstone(deleted, now) },
      },
    },
    ...sources.map((source) => ({ Delete: { TableName: tableName, Key: customerSourceEntity.key(source.scope, source.customer, source.id) } })),
    ...(clock ? [customerSourceEntity.clockCustomers(tableName, deleted.scope, clock.id, clock.version, clock.customers)] : []),
  ],
};

/** DynamoDB adapter: customers and their sources live in their owner's partition, uncapped. */
export function dynamoCustomerRepository(table: Table): CustomerRepository {
  const { name } = table;
  const { create, replace, all } = ownedResourceStore<Customer>(table, customerKind);
  /** The customer, else its tombstone (a second read only when there is no live customer). */
  async function find(scope: Scope, id: string) {
    const item = (await table.get(customers.key(scope, id))) ?? (await table.get(customerSourceEntity.tombstoneKey(scope, id)));
    return item ? customerSourceEntity.parseFound(item) : undefined;
  }
  const repository: CustomerRepository = {
    create,
    replace,
    all,
    find,
    // Live customers only: one read, whatever became of a missing one.
    async get(scope, id) {
      const item = await table.get(customers.key(scope, id));
      return item && item.deleted !== true ? customers.parse(item) : undefined;
    },
    async list(scope, page, filters) {
      const result = await queryOwnerPage(table, customerSourceEntity.listQuery(scope, page, filters));
      return { items: result.items.map(customers.parse), hasMore: result.hasMore };
    },
    async getSource(scope, customerId, sourceId) {
      const item = await table.get(customerSourceEntity.key(scope, customerId, sourceId));
      return item ? customerSourceEntity.parse(item) : undefined;
    },
    async listSources(scope, customerId, page, where) {
      const result = await queryOwnerPage(table, {
        pk: customerSource.pk(scope),
        skPrefix: customerSource.skPrefix(customerId),
        skOf: (id) => customerSource.sk(customerId, id),
        page,
        where,
      });
      return { items: result.items.map(customerSourceEntity.parse), hasMore: result.hasMore };
    },
    async changeSources(change, outbox, now): Promise<SourceChangeOutcome> {
      try {
        await transactWithOutbox(table, outbox, customerSourceEntity.change(name, change));
        return 'written';
      } catch (error) {
        const codes = cancellationCodes(error);
        if (!codes) throw error;
        if (change.token && codes[0] === 'ConditionalCheckFailed') {
          const old = (error as { CancellationReasons?: Array<{ Item?: Record<string, unknown> }> }).CancellationReasons?.[0]?.Item;
          return old && !expired(old, now) && old.used === true ? 'token_used' : 'token_missing';
        }
        if (codes.some((code) => code === 'ConditionalCheckFailed' || code === 'TransactionConflict')) return 'conflict';
        throw error;
      }
    },
    replaceSource: (next, outbox) => transactGuarded(table, [customerSourceEntity.replace(name, next)], outbox),
    deleteWithSources: (deleted, sources, outbox, now, clock) =>
      transactChecked(table, customerSourceEntity.deleteWithSources(name, deleted, sources, now, clock), outbox),
  };
  return repository;
}
