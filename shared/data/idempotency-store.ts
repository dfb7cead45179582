import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import type { PutCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { IdempotencyClaim, IdempotencyRecord, IdempotencyScope, IdempotencyStore, StoredResponse } from '#shared/platform/ports.ts';
import { epochSeconds, isConditionFailure, oldItemOf, whenConditionHolds } from './conditions.ts';
import type { Table } from './table.ts';
import { idempotency } from './keys.ts';

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

/** An idempotency record item, parsed. */
const idempotencyItem = z.discriminatedUnion('state', [
  z.object({ state: z.literal('in_progress'), fingerprint: z.string(), expiresAt: z.number() }),
  z.object({ state: z.literal('complete'), fingerprint: z.string(), expiresAt: z.number(), sealedResponse: z.string() }),
]);

/** Where the record of an idempotency key lives: its key is the SHA-256 of the idempotency key. */
export const idempotencyItemKey = (scope: IdempotencyScope, key: string) => ({
  PK: idempotency.pk(scope, createHash('sha256').update(key).digest('hex')),
  SK: idempotency.sk(),
});

/** Idempotency records (TABLE_DESIGN.md 9, 10): keys, item schema, and the command of each access pattern. */
export const idempotencyEntity = {
  key: idempotencyItemKey,
  /** The record an item holds at `now` (TTL deletion is lazy: an expired record counts as absent). */
  parse(item: Record<string, unknown> | undefined, now: number, open: (sealed: string) => StoredResponse): IdempotencyRecord {
    if (!item) return { state: 'absent' };
    const record = idempotencyItem.parse(item);
    if (record.expiresAt <= epochSeconds(now)) return { state: 'absent' };
    return record.state === 'complete'
      ? { state: 'complete', fingerprint: record.fingerprint, response: open(record.sealedResponse) }
      : { state: 'in_progress', fingerprint: record.fingerprint };
  },
  /** Free, expired, or held by a request that died without finishing; a failed condition returns the holder's item. */
  claim: (tableName: string, claim: IdempotencyClaim, now: number): PutCommandInput => ({
    TableName: tableName,
    Item: {
      ...idempotencyItemKey(claim.scope, claim.key),
      entity: 'idempotency_key',
      state: 'in_progress',
      fingerprint: claim.fingerprint,
      requestId: claim.requestId,
      lockedUntil: claim.lockedUntil,
      expiresAt: epochSeconds(claim.expiresAt),
    },
    ConditionExpression: 'attribute_not_exists(PK) OR expiresAt <= :nowSeconds OR (#state = :inProgress AND lockedUntil < :now)',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':nowSeconds': epochSeconds(now), ':inProgress': 'in_progress', ':now': now },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  }),
  complete: (tableName: string, scope: IdempotencyScope, key: string, sealed: string): UpdateCommandInput => ({
    TableName: tableName,
    Key: idempotencyItemKey(scope, key),
    UpdateExpression: 'SET #state = :complete, sealedResponse = :sealed REMOVE lockedUntil',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':complete': 'complete', ':sealed': sealed },
  }),
  /** Unlocked rather than deleted: the next claim takes an in-progress record whose lock has passed. */
  release: (tableName: string, scope: IdempotencyScope, key: string): UpdateCommandInput => ({
    TableName: tableName,
    Key: idempotencyItemKey(scope, key),
    UpdateExpression: 'SET lockedUntil = :released',
    ConditionExpression: '#state = :inProgress',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':released': 0, ':inProgress': 'in_progress' },
  }),
};

/** DynamoDB adapter: one item per (account, mode, key hash), claimed with a conditional put, expired by TTL. */
export function dynamoIdempotencyStore(table: Table): IdempotencyStore {
  const { name } = table;
  return {
    async claim(claim, now) {
      try {
        await table.put(idempotencyEntity.claim(name, claim, now));
        return { claimed: true };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        // The holder's item came back with the failure: no second read.
        return { claimed: false, record: idempotencyEntity.parse(oldItemOf(error), now, (sealed) => unseal(claim.scope, claim.key, sealed)) };
      }
    },
    async read(scope, key, now) {
      return idempotencyEntity.parse(await table.getConsistent(idempotencyItemKey(scope, key)), now, (sealed) => unseal(scope, key, sealed));
    },
    async complete(scope, key, response) {
      await table.update(idempotencyEntity.complete(name, scope, key, seal(scope, key, response)));
    },
    async release(scope, key) {
      await whenConditionHolds(() => table.update(idempotencyEntity.release(name, scope, key)));
    },
  };
}
