import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import type { IdempotencyRecord, IdempotencyStore, StoredResponse } from '#shared/http/idempotency.ts';
import type { Table } from './table.ts';
import { epochSeconds, isConditionFailure } from './conditions.ts';
import { idempotency } from './keys.ts';

type IdempotencyScope = Parameters<typeof idempotency.pk>[0];

/**
 * Stored responses can hold secrets (an account link's URL, a meter event session token), so the table
 * never holds the idempotency key or the response in the clear: the item is found by the key's SHA-256
 * and the response is sealed with AES-256-GCM under a key derived from the idempotency key itself, which
 * only the client that sent it knows.
 */
const sealingKey = (scope: IdempotencyScope, key: string) =>
  createHmac('sha256', key).update(`idempotency-response:${scope.accountId}:${scope.livemode}`).digest();

function seal(scope: IdempotencyScope, key: string, response: StoredResponse): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(scope, key), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(response), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64');
}

function unseal(scope: IdempotencyScope, key: string, sealed: string): StoredResponse {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(scope, key), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')) as StoredResponse;
}

function toRecord(item: Record<string, unknown> | undefined, now: number, open: (sealed: string) => StoredResponse): IdempotencyRecord {
  // TTL deletion is lazy: an expired record counts as absent.
  if (!item || (item.expiresAt as number) <= epochSeconds(now)) return { state: 'absent' };
  if (item.state === 'complete') {
    return { state: 'complete', fingerprint: item.fingerprint as string, response: open(item.sealedResponse as string) };
  }
  return { state: 'in_progress', fingerprint: item.fingerprint as string };
}

/** Where the record of an idempotency key lives: its key is the SHA-256 of the idempotency key. */
export const idempotencyItemKey = (scope: IdempotencyScope, key: string) => ({
  PK: idempotency.pk(scope, createHash('sha256').update(key).digest('hex')),
  SK: idempotency.sk(),
});

/** DynamoDB adapter: one item per (account, mode, key hash), claimed with a conditional put, expired by TTL. */
export function dynamoIdempotencyStore(table: Table): IdempotencyStore {
  const { name } = table;
  const keyOf = idempotencyItemKey;
  return {
    async claim(claim, now) {
      try {
        await table.put({
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
        });
        return { claimed: true };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return { claimed: false, record: await this.read(claim.scope, claim.key, now) };
      }
    },
    async read(scope, key, now) {
      const Item = await table.getConsistent(keyOf(scope, key));
      return toRecord(Item, now, (sealed) => unseal(scope, key, sealed));
    },
    async complete(scope, key, response) {
      await table.update({
        TableName: name,
        Key: keyOf(scope, key),
        UpdateExpression: 'SET #state = :complete, sealedResponse = :sealed REMOVE lockedUntil',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':complete': 'complete', ':sealed': seal(scope, key, response) },
      });
    },
    async release(scope, key) {
      // Unlocked rather than deleted: the next claim takes an in-progress record whose lock has passed.
      try {
        await table.update({
          TableName: name,
          Key: keyOf(scope, key),
          UpdateExpression: 'SET lockedUntil = :released',
          ConditionExpression: '#state = :inProgress',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':released': 0, ':inProgress': 'in_progress' },
        });
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },
  };
}
