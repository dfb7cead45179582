import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { IdempotencyRecord, IdempotencyStore, StoredResponse } from '#shared/http/idempotency.ts';
import type { Table } from './client.ts';
import { epochSeconds, isConditionFailure } from './conditions.ts';
import { idempotency } from './keys.ts';

function toRecord(item: Record<string, unknown> | undefined, now: number): IdempotencyRecord {
  // TTL deletion is lazy: an expired record counts as absent.
  if (!item || (item.expiresAt as number) <= epochSeconds(now)) return { state: 'absent' };
  if (item.state === 'complete') {
    return { state: 'complete', fingerprint: item.fingerprint as string, response: item.response as StoredResponse };
  }
  return { state: 'in_progress', fingerprint: item.fingerprint as string };
}

/** DynamoDB adapter: one item per (account, mode, key), claimed with a conditional put, expired by TTL. */
export function dynamoIdempotencyStore({ client, name }: Table): IdempotencyStore {
  const keyOf = (scope: Parameters<typeof idempotency.pk>[0], key: string) => ({ PK: idempotency.pk(scope, key), SK: idempotency.sk() });
  return {
    async claim(claim, now) {
      try {
        await client.send(
          new PutCommand({
            TableName: name,
            Item: {
              ...keyOf(claim.scope, claim.key),
              entity: 'idempotency_key',
              state: 'in_progress',
              fingerprint: claim.fingerprint,
              requestId: claim.requestId,
              lockedUntil: claim.lockedUntil,
              expiresAt: epochSeconds(claim.expiresAt),
            },
            // Free, expired, or held by a request that died without finishing.
            ConditionExpression: 'attribute_not_exists(PK) OR expiresAt <= :nowSeconds OR (#state = :inProgress AND lockedUntil < :now)',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':nowSeconds': epochSeconds(now), ':inProgress': 'in_progress', ':now': now },
          }),
        );
        return { claimed: true };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return { claimed: false, record: await this.read(claim.scope, claim.key, now) };
      }
    },
    async read(scope, key, now) {
      const { Item } = await client.send(new GetCommand({ TableName: name, Key: keyOf(scope, key), ConsistentRead: true }));
      return toRecord(Item, now);
    },
    async complete(scope, key, response) {
      await client.send(
        new UpdateCommand({
          TableName: name,
          Key: keyOf(scope, key),
          UpdateExpression: 'SET #state = :complete, #response = :response REMOVE lockedUntil',
          ExpressionAttributeNames: { '#state': 'state', '#response': 'response' },
          ExpressionAttributeValues: { ':complete': 'complete', ':response': response },
        }),
      );
    },
    async release(scope, key) {
      await client.send(new DeleteCommand({ TableName: name, Key: keyOf(scope, key) }));
    },
  };
}
