import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import type { PutCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { snapshotDataAt } from '#shared/events/versions.ts';
import type { IdempotencyClaim, IdempotencyReceipt, IdempotencyRecord, IdempotencyScope, IdempotencyStore, StoredResponse } from '#shared/platform/ports.ts';
import { storedObject } from './item-schemas.ts';
import { epochSeconds, isConditionFailure, isTransactionConflict, oldItemOf, whenConditionHolds } from './conditions.ts';
import type { Table, TransactItem } from './table.ts';
import { idempotency, snapshotEvent } from './keys.ts';

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
  z.object({ state: z.literal('in_progress'), fingerprint: z.string(), expiresAt: z.number(), lockedUntil: z.number().optional() }),
  z.object({ state: z.literal('complete'), fingerprint: z.string(), expiresAt: z.number(), sealedResponse: z.string() }),
  // A receipt (`IdempotencyReceipt`): complete, its response the object of an event written with it.
  z.object({
    state: z.literal('answered'),
    fingerprint: z.string(),
    expiresAt: z.number(),
    requestId: z.string(),
    statusCode: z.number(),
    serviceVersion: z.string(),
    eventId: z.string(),
    /** The event's account: the request's, unless the change wrote its event in another one. */
    eventAccountId: z.string(),
  }),
]);

/** A record as the item holds it: a receipt's response is still to be read from its event. */
type ParsedRecord = IdempotencyRecord | Extract<z.output<typeof idempotencyItem>, { state: 'answered' }>;

/** Where the record of an idempotency key lives: its key is the SHA-256 of the idempotency key. */
export const idempotencyItemKey = (scope: IdempotencyScope, key: string) => ({
  PK: idempotency.pk(scope, createHash('sha256').update(key).digest('hex')),
  SK: idempotency.sk(),
});

const eventObject = z.object({ object: storedObject });

/** A key nobody holds: no record, an expired one, or a claim released or left by a request that died. */
const freeKey = 'attribute_not_exists(PK) OR expiresAt <= :nowSeconds OR (#state = :inProgress AND lockedUntil < :now)';
const freeKeyValues = (now: number) => ({ ':nowSeconds': epochSeconds(now), ':inProgress': 'in_progress', ':now': now });

/** Idempotency records (TABLE_DESIGN.md 9, 10): keys, item schema, and the command of each access pattern. */
export const idempotencyEntity = {
  key: idempotencyItemKey,
  /** The record an item holds at `now` (TTL deletion is lazy: an expired record counts as absent). */
  parse(item: Record<string, unknown> | undefined, now: number, open: (sealed: string) => StoredResponse): ParsedRecord {
    if (!item) return { state: 'absent' };
    const record = idempotencyItem.parse(item);
    if (record.expiresAt <= epochSeconds(now)) return { state: 'absent' };
    // Released, or left by a request that died: the next request takes it over.
    if (record.state === 'in_progress' && record.lockedUntil !== undefined && record.lockedUntil < now) return { state: 'absent' };
    if (record.state === 'answered') return record;
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
    ConditionExpression: freeKey,
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: freeKeyValues(now),
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
  /** A response kept without a claim: the key is free, or (`replaceOwn`) holds this request's own receipt. */
  keep: (tableName: string, claim: Omit<IdempotencyClaim, 'lockedUntil'>, sealed: string, now: number, replaceOwn: boolean): PutCommandInput => ({
    TableName: tableName,
    Item: {
      ...idempotencyItemKey(claim.scope, claim.key),
      entity: 'idempotency_key',
      state: 'complete',
      fingerprint: claim.fingerprint,
      requestId: claim.requestId,
      sealedResponse: sealed,
      expiresAt: epochSeconds(claim.expiresAt),
    },
    ConditionExpression: replaceOwn ? `${freeKey} OR requestId = :requestId` : freeKey,
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ...freeKeyValues(now), ...(replaceOwn ? { ':requestId': claim.requestId } : {}) },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  }),
  /**
   * A create's receipt, for its transaction (10a): a key another request holds, unexpired, cancels the
   * create. About 300 bytes where a claim and its completion write the response again.
   */
  receipt: (tableName: string, receipt: IdempotencyReceipt): TransactItem => ({
    Put: {
      TableName: tableName,
      Item: {
        ...idempotencyItemKey(receipt.scope, receipt.key),
        entity: 'idempotency_key',
        state: 'answered',
        fingerprint: receipt.fingerprint,
        requestId: receipt.requestId,
        statusCode: receipt.statusCode,
        serviceVersion: receipt.serviceVersion,
        eventId: receipt.event.id,
        eventAccountId: receipt.event.scope.accountId,
        expiresAt: epochSeconds(receipt.expiresAt),
      },
      ConditionExpression: freeKey,
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: freeKeyValues(receipt.now),
    },
  }),
};

/** DynamoDB adapter: one item per (account, mode, key hash), claimed with a conditional put, expired by TTL. */
export function dynamoIdempotencyStore(table: Table): IdempotencyStore {
  const { name } = table;
  /** A receipt's response: its event's object at the version the create was served at (one more read, on replays only). */
  async function answer(scope: IdempotencyScope, record: ParsedRecord): Promise<IdempotencyRecord> {
    if (record.state !== 'answered') return record;
    const eventScope = { accountId: record.eventAccountId, livemode: scope.livemode };
    const item = await table.getConsistent({ PK: snapshotEvent.pk(eventScope), SK: snapshotEvent.sk(record.eventId) });
    // Written in one transaction with the receipt, and kept 30 days against the key's 24 hours.
    if (!item) throw new Error(`The event ${record.eventId} that answers an idempotent request is missing`);
    const { object } = snapshotDataAt(eventObject.parse(item).object, null, record.serviceVersion);
    const response = { statusCode: record.statusCode, body: JSON.stringify(object), requestId: record.requestId, serviceVersion: record.serviceVersion };
    return { state: 'complete', fingerprint: record.fingerprint, response };
  }
  const parsed = (scope: IdempotencyScope, key: string, item: Record<string, unknown> | undefined, now: number) =>
    answer(
      scope,
      idempotencyEntity.parse(item, now, (sealed) => unseal(scope, key, sealed)),
    );
  return {
    async claim(claim, now) {
      try {
        await table.put(idempotencyEntity.claim(name, claim, now));
        return { claimed: true };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        // The holder's item came back with the failure: no second read.
        return { claimed: false, record: await parsed(claim.scope, claim.key, oldItemOf(error), now) };
      }
    },
    async read(scope, key, now) {
      return parsed(scope, key, await table.getConsistent(idempotencyItemKey(scope, key)), now);
    },
    async complete(scope, key, response) {
      await table.update(idempotencyEntity.complete(name, scope, key, seal(scope, key, response)));
    },
    async release(scope, key) {
      await whenConditionHolds(() => table.update(idempotencyEntity.release(name, scope, key)));
    },
    async keep(claim, response, now, replaceOwn) {
      try {
        await table.put(idempotencyEntity.keep(name, claim, seal(claim.scope, claim.key, response), now, replaceOwn));
        return undefined;
      } catch (error) {
        if (isConditionFailure(error)) return parsed(claim.scope, claim.key, oldItemOf(error), now);
        // Another request's transaction writing its receipt right now: it holds the key, or failed to.
        if (isTransactionConflict(error)) return parsed(claim.scope, claim.key, await table.getConsistent(idempotencyItemKey(claim.scope, claim.key)), now);
        throw error;
      }
    },
  };
}
