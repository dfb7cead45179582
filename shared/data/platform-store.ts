import type { AccountRecord, ApiKeyRecord, PlatformStore } from '#shared/platform/types.ts';
import type { Table } from './table.ts';
import { isConditionFailure } from './conditions.ts';
import { account, apiKey } from './keys.ts';

const toAccount = (item: Record<string, unknown>): AccountRecord => ({
  id: item.id as string,
  platformId: (item.platformId as string | null) ?? null,
  ...(typeof item.livemode === 'boolean' ? { livemode: item.livemode } : {}),
  features: { accountsV2: Boolean((item.features as { accountsV2?: boolean } | undefined)?.accountsV2) },
  created: item.created as number,
});

const toApiKey = (item: Record<string, unknown>): ApiKeyRecord => ({
  hash: item.hash as string,
  accountId: item.accountId as string,
  livemode: item.livemode as boolean,
  kind: item.kind as ApiKeyRecord['kind'],
  hint: item.hint as string,
  created: item.created as number,
  ...(typeof item.keyExpiresAt === 'number' ? { expiresAt: item.keyExpiresAt } : {}),
});

/** DynamoDB adapter for accounts and API keys. */
export function dynamoPlatformStore(table: Table): PlatformStore {
  const { name } = table;
  return {
    async createAccount(record) {
      await table.put({
        TableName: name,
        Item: { PK: account.pk(record.id), SK: account.sk(), entity: 'account', ...record },
        ConditionExpression: 'attribute_not_exists(PK)',
      });
    },
    async getAccount(id) {
      const Item = await table.get({ PK: account.pk(id), SK: account.sk() });
      return Item ? toAccount(Item) : undefined;
    },
    async createApiKey(record) {
      try {
        await table.put({
          TableName: name,
          Item: {
            PK: apiKey.pk(record.hash),
            SK: apiKey.sk(),
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
        });
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },
    async findApiKey(hash) {
      const Item = await table.get({ PK: apiKey.pk(hash), SK: apiKey.sk() });
      return Item ? toApiKey(Item) : undefined;
    },
    async expireApiKey(hash, expiresAt) {
      try {
        await table.update({
          TableName: name,
          Key: { PK: apiKey.pk(hash), SK: apiKey.sk() },
          // Not `expiresAt`, the table's TTL attribute (which would delete the record): an expired key
          // keeps answering "expired" and showing in the account's key list.
          UpdateExpression: 'SET keyExpiresAt = :at',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':at': expiresAt },
        });
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },
    async listApiKeys(accountId) {
      const { items } = await table.query({
        TableName: name,
        IndexName: 'GSI1',
        KeyConditionExpression: 'GSI1PK = :pk',
        ExpressionAttributeValues: { ':pk': apiKey.gsi1pk(accountId) },
      });
      return items.map(toApiKey);
    },
  };
}
