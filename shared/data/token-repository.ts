import type { ConsumableTokenType, Token, TokenOf, TokenRepository, TokenType } from '#shared/tokens/token.ts';
import type { Table } from './table.ts';
import { epochSeconds, isConditionFailure } from './conditions.ts';
import { token as tokenKeys } from './keys.ts';

const fromItem = (item: Record<string, unknown>): Token => {
  const { PK: _pk, SK: _sk, entity: _entity, usedAt: _usedAt, expiresAt, ...token } = item;
  return { ...token, expiresAt: (expiresAt as number) * 1000 } as unknown as Token;
};

/** TTL deletion is lazy (up to days late): an item past its expiry is treated as gone. */
const expired = (item: Record<string, unknown>, now: number) => typeof item.expiresAt === 'number' && item.expiresAt <= epochSeconds(now);

/**
 * DynamoDB adapter for tokens. `expiresAt` is the table's TTL attribute (seconds), so unused tokens do not
 * pile up. Single use is one conditional UpdateItem; when it fails, the old item (returned with the
 * failure) tells why.
 */
export function dynamoTokenRepository(table: Table): TokenRepository {
  const { name } = table;
  return {
    async create(token) {
      await table.put({
        TableName: name,
        Item: { PK: tokenKeys.pk(token.scope, token.id), SK: tokenKeys.sk(), entity: 'token', ...token, expiresAt: epochSeconds(token.expiresAt) },
        ConditionExpression: 'attribute_not_exists(PK)',
      });
    },
    async get(scope, id, now) {
      const item = await table.get({ PK: tokenKeys.pk(scope, id), SK: tokenKeys.sk() });
      return item && !expired(item, now) ? fromItem(item) : undefined;
    },
    async consume<T extends ConsumableTokenType>(scope: Parameters<TokenRepository['consume']>[0], id: string, type: T, now: number) {
      try {
        const Attributes = await table.update({
          TableName: name,
          Key: { PK: tokenKeys.pk(scope, id), SK: tokenKeys.sk() },
          UpdateExpression: 'SET used = :true, usedAt = :now',
          ConditionExpression: 'attribute_exists(PK) AND #type = :type AND used = :false AND (attribute_not_exists(expiresAt) OR expiresAt > :nowSeconds)',
          ExpressionAttributeNames: { '#type': 'type' },
          ExpressionAttributeValues: { ':true': true, ':false': false, ':type': type, ':now': now, ':nowSeconds': epochSeconds(now) },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        });
        return { outcome: 'consumed' as const, token: fromItem(Attributes!) as TokenOf<T> };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const old = (error as { Item?: Record<string, unknown> }).Item;
        if (!old || expired(old, now)) return { outcome: 'missing' as const };
        const actualType = old.type as TokenType;
        return actualType === type ? { outcome: 'used' as const } : { outcome: 'wrong_type' as const, actualType };
      }
    },
  };
}
