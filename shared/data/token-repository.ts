import { randomBytes } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ConsumableTokenType, FingerprintKeyStore, Token, TokenOf, TokenRepository, TokenType } from '#shared/tokens/token.ts';
import type { Table } from './client.ts';
import { isConditionFailure } from './conditions.ts';
import { fingerprintKey, token as tokenKeys } from './keys.ts';

const fromItem = (item: Record<string, unknown>): Token => {
  const { PK: _pk, SK: _sk, entity: _entity, usedAt: _usedAt, ...token } = item;
  return token as unknown as Token;
};

/** The raw item a failed condition returns (`ReturnValuesOnConditionCheckFailure`): not unmarshalled. */
type RawItem = Record<string, { S?: string } | undefined>;

/**
 * DynamoDB adapter for tokens. No TTL: the reference's tokens stay retrievable. Single use is one
 * conditional UpdateItem; when it fails, the old item (returned with the failure) tells why.
 */
export function dynamoTokenRepository(table: Table): TokenRepository {
  const { client, name } = table;
  return {
    async create(token) {
      await client.send(
        new PutCommand({
          TableName: name,
          Item: { PK: tokenKeys.pk(token.scope, token.id), SK: tokenKeys.sk(), entity: 'token', ...token },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },
    async get(scope, id) {
      const item = await table.get({ PK: tokenKeys.pk(scope, id), SK: tokenKeys.sk() });
      return item ? fromItem(item) : undefined;
    },
    async consume<T extends ConsumableTokenType>(scope: Parameters<TokenRepository['consume']>[0], id: string, type: T, now: number) {
      try {
        const { Attributes } = await client.send(
          new UpdateCommand({
            TableName: name,
            Key: { PK: tokenKeys.pk(scope, id), SK: tokenKeys.sk() },
            UpdateExpression: 'SET used = :true, usedAt = :now',
            ConditionExpression: 'attribute_exists(PK) AND #type = :type AND used = :false',
            ExpressionAttributeNames: { '#type': 'type' },
            ExpressionAttributeValues: { ':true': true, ':false': false, ':type': type, ':now': now },
            ReturnValues: 'ALL_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return { outcome: 'consumed' as const, token: fromItem(Attributes!) as TokenOf<T> };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const old = (error as { Item?: RawItem }).Item;
        if (!old) return { outcome: 'missing' as const };
        const actualType = old.type?.S as TokenType;
        return actualType === type ? { outcome: 'used' as const } : { outcome: 'wrong_type' as const, actualType };
      }
    },
  };
}

/** Most accounts whose fingerprint keys one process keeps in memory. */
const maxCachedKeys = 10_000;

/**
 * The per-account fingerprint secrets: 32 random bytes in the account's partition, created by the first
 * request that needs one (a conditional put: when two race, both end up with the one that was written),
 * then cached for the life of the process, since they never change.
 */
export function dynamoFingerprintKeyStore(table: Table): FingerprintKeyStore {
  const cache = new Map<string, Promise<Buffer>>();

  async function load(accountId: string): Promise<Buffer> {
    const key = { PK: fingerprintKey.pk(accountId), SK: fingerprintKey.sk() };
    const existing = await table.get(key);
    if (existing) return Buffer.from(existing.secret as string, 'base64');
    const secret = randomBytes(32).toString('base64');
    try {
      await table.client.send(
        new PutCommand({
          TableName: table.name,
          Item: { ...key, entity: 'fingerprint_key', accountId, secret },
          ConditionExpression: 'attribute_not_exists(PK)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return Buffer.from(secret, 'base64');
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const winner = (error as { Item?: RawItem }).Item?.secret?.S;
      if (!winner) throw error;
      return Buffer.from(winner, 'base64');
    }
  }

  return {
    keyFor(accountId) {
      let loading = cache.get(accountId);
      if (!loading) {
        if (cache.size >= maxCachedKeys) cache.clear();
        loading = load(accountId);
        cache.set(accountId, loading);
        loading.catch(() => cache.delete(accountId));
      }
      return loading;
    },
  };
}
