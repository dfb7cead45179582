import * as z from 'zod';
import type { Customer, CustomerRepository, CustomerSource, CustomerSourceChange, SourceChangeOutcome } from '#shared/customers/customer.ts';
import type { Scope } from '#shared/platform/types.ts';
import { cancellationCodes } from './conditions.ts';
import { metadataItem, orNull, ownedItem } from './item-schemas.ts';
import type { Table, TransactItem } from './table.ts';
import { customer, customerSource } from './keys.ts';
import { outboxItems } from './outbox-items.ts';
import { ownedEntity, ownedResourceStore } from './owned-resources.ts';
import { queryOwnerPage } from './owner-page.ts';
import { expired, tokenBankAccountItem, tokenCardItem, tokenEntity } from './token-repository.ts';
import { transactGuarded } from './transactions.ts';

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

const customers = ownedEntity<Customer>({ entity: 'customer', keys: customer, parse: (item) => customerItem.parse(item) });

/**
 * Customers (12) and their payment sources (12a–12c): a source lives next to its customer, and every
 * change of a customer's sources writes the customer too (its `sourceCount`, `defaultSource` and version),
 * so changes of one customer's sources are serialised by its version and a delete on the version read
 * finds every source. A source made from a token uses the token up in the same transaction (first, so
 * that its failed condition, with the token's old image, tells missing from used).
 */
export const customerSourceEntity = {
  customers,
  key: (scope: Scope, customerId: string, sourceId: string) => ({ PK: customerSource.pk(scope), SK: customerSource.sk(customerId, sourceId) }),
  item: (source: CustomerSource) => ({ ...customerSourceEntity.key(source.scope, source.customer, source.id), entity: 'customer_source', ...source }),
  parse: (item: Record<string, unknown>): CustomerSource => sourceItem.parse(item),
  change(tableName: string, change: CustomerSourceChange): TransactItem[] {
    const { customer: next, token, attach, detach = [] } = change;
    return [
      ...(token ? [tokenEntity.use(tableName, token)] : []),
      ...(change.isNew ? customers.create(tableName, next) : customers.replace(tableName, next)),
      ...(attach ? [{ Put: { TableName: tableName, Item: customerSourceEntity.item(attach), ConditionExpression: 'attribute_not_exists(PK)' } }] : []),
      ...detach.map((source) => ({
        Delete: { TableName: tableName, Key: customerSourceEntity.key(source.scope, source.customer, source.id), ConditionExpression: 'attribute_exists(PK)' },
      })),
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
  /** The customer on the version read, and every source it has. */
  deleteWithSources: (tableName: string, deleted: Customer, sources: CustomerSource[]): TransactItem[] => [
    {
      Delete: {
        TableName: tableName,
        Key: customers.key(deleted.scope, deleted.id),
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': deleted.version },
      },
    },
    ...sources.map((source) => ({ Delete: { TableName: tableName, Key: customerSourceEntity.key(source.scope, source.customer, source.id) } })),
  ],
};

/** DynamoDB adapter: customers and their sources live in their owner's partition, uncapped. */
export function dynamoCustomerRepository(table: Table): CustomerRepository {
  const { name } = table;
  const store = ownedResourceStore<Customer>(table, { entity: 'customer', keys: customer, parse: customers.parse });
  return {
    ...store,
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
        await table.transact(outboxItems(name, outbox, customerSourceEntity.change(name, change)));
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
    deleteWithSources: (deleted, sources, outbox) => transactGuarded(table, customerSourceEntity.deleteWithSources(name, deleted, sources), outbox),
  };
}
