import type { PutCommandInput, QueryCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { AccountRecord, ApiKeyRecord, PlatformStore } from '#shared/platform/types.ts';
import { whenConditionHolds } from './conditions.ts';
import { account, apiKey } from './keys.ts';
import { accountSecretEntity } from './account-secret-store.ts';
import type { Table } from './table.ts';

/** An account item, parsed (keys and bookkeeping attributes dropped). */
const accountItem = z.object({
  id: z.string(),
  platformId: z
    .string()
    .nullish()
    .transform((id) => id ?? null),
  livemode: z.boolean().optional(),
  features: z
    .object({ accountsV2: z.boolean().optional() })
    .optional()
    .transform((features) => ({ accountsV2: features?.accountsV2 === true })),
  created: z.number(),
});

/** An API key item, parsed: its expiry is stored as `keyExpiresAt`, not the table's TTL attribute. */
const apiKeyItem = z
  .object({
    hash: z.string(),
    accountId: z.string(),
    livemode: z.boolean(),
    kind: z.enum(['secret', 'publishable']),
    hint: z.string(),
    created: z.number(),
    keyExpiresAt: z.number().optional(),
  })
  .transform(({ keyExpiresAt, ...key }): ApiKeyRecord => ({ ...key, ...(keyExpiresAt === undefined ? {} : { expiresAt: keyExpiresAt }) }));

/** Accounts (TABLE_DESIGN.md 2): keys, item schema, and the command of each access pattern. */
export const accountEntity = {
  key: (id: string) => ({ PK: account.pk(id), SK: account.sk() }),
  parse: (item: Record<string, unknown>): AccountRecord => accountItem.parse(item),
  create: (tableName: string, record: AccountRecord): PutCommandInput => ({
    TableName: tableName,
    Item: { ...accountEntity.key(record.id), entity: 'account', ...record },
    ConditionExpression: 'attribute_not_exists(PK)',
  }),
};

/** API keys (TABLE_DESIGN.md 1, 3, 4): keys, item schema, and the command of each access pattern. */
export const apiKeyEntity = {
  key: (hash: string) => ({ PK: apiKey.pk(hash), SK: apiKey.sk() }),
  parse: (item: Record<string, unknown>): ApiKeyRecord => apiKeyItem.parse(item),
  create: (tableName: string, record: ApiKeyRecord): PutCommandInput => ({
    TableName: tableName,
    Item: {
      ...apiKeyEntity.key(record.hash),
      GSI1PK: apiKey.gsi1pk(record.accountId),
      GSI1SK: apiKey.gsi1sk(record.created, record.hash),
      entity: 'api_key',
      hash: record.hash,
      accountId: record.accountId,
      livemode: record.livemode,
      kind: record.kind,
      hint: record.hint,
      created: record.created,
    },
    ConditionExpression: 'attribute_not_exists(PK)',
  }),
  /**
   * Not `expiresAt`, the table's TTL attribute (which would delete the record): an expired key keeps
   * answering "expired" and showing in the account's key list.
   */
  expire: (tableName: string, hash: string, expiresAt: number): UpdateCommandInput => ({
    TableName: tableName,
    Key: apiKeyEntity.key(hash),
    UpdateExpression: 'SET keyExpiresAt = :at',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':at': expiresAt },
  }),
  listByAccount: (tableName: string, accountId: string): QueryCommandInput => ({
    TableName: tableName,
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': apiKey.gsi1pk(accountId) },
  }),
};

/** DynamoDB adapter for accounts and API keys. */
export function dynamoPlatformStore(table: Table): PlatformStore {
  const { name } = table;
  return {
    /** The account record and its secret, together (the read-only routes, which may not create a secret, always find one). */
    async createAccount(record) {
      await table.transact([{ Put: accountEntity.create(name, record) }, accountSecretEntity.createWithAccount(name, record.id)]);
    },
    async getAccount(id) {
      const item = await table.get(accountEntity.key(id));
      return item && accountEntity.parse(item);
    },
    createApiKey: (record) => whenConditionHolds(() => table.put(apiKeyEntity.create(name, record))),
    async findApiKey(hash) {
      const item = await table.get(apiKeyEntity.key(hash));
      return item && apiKeyEntity.parse(item);
    },
    expireApiKey: (hash, expiresAt) => whenConditionHolds(() => table.update(apiKeyEntity.expire(name, hash, expiresAt))),
    async listApiKeys(accountId) {
      const { items } = await table.query(apiKeyEntity.listByAccount(name, accountId));
      return items.map(apiKeyEntity.parse);
    },
  };
}
