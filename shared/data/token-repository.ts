import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ConsumableTokenType, Token, TokenOf, TokenRepository, TokenType } from '#shared/tokens/token.ts';
import type { Table } from './client.ts';
import { isConditionFailure } from './conditions.ts';
import { token as tokenKeys } from './keys.ts';

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
