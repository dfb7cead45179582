import { systemClock } from '#shared/core/clock.ts';
import { logger } from '#shared/core/logger.ts';
import { createHmac } from 'node:crypto';
import { IdempotencyKeyReusedError, idempotencyKeyInUse, InvalidRequestError } from '#shared/core/errors.ts';
import type { ReceiptRequest } from '#shared/events/event.ts';
import type { IdempotencyRecord, IdempotencyStore, IdempotencyScope, StoredResponse } from '#shared/platform/ports.ts';

export const idempotencyKeyTtlMillis = 24 * 60 * 60 * 1000;
const lockMillis = 60_000;
const waitMillis = 5_000;
const pollMillis = 40;

function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
}

/**
 * Identifies "the same request": method, path and parameters, whatever their order. A keyed HMAC (under the
 * account's secret), never a plain hash: parameters can hold card, identity and tax numbers, which are few
 * enough that a plain digest in a table dump could be reversed by trying them all.
 */
export function requestFingerprint(key: Buffer, method: string, path: string, params: unknown): string {
  return createHmac('sha256', key)
    .update(`${method} ${path}\n${stableJson(params)}`)
    .digest('hex');
}

export function checkIdempotencyKey(key: string): void {
  if (key.length > 255) {
    throw new InvalidRequestError('Idempotency-Key is longer than 255 characters.', 'idempotency_key_too_long');
  }
}

const mismatch = (key: string) =>
  new IdempotencyKeyReusedError(
    `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
    'idempotency_key_reused',
  );

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Results a retry may change are not kept, so the retry runs the operation again. */
const keepable = (statusCode: number) => statusCode < 500 && statusCode !== 409 && statusCode !== 429;

export type IdempotentOutcome = { response: StoredResponse; replayed: boolean };

type KeyedRequest = { scope: IdempotencyScope; key: string; fingerprint: string; requestId: string };

/**
 * What a request whose key another request holds gets: that request's response (after waiting up to 5 s
 * for it to finish), a refusal if it had other parameters, or `undefined` when the key turns out free.
 */
async function answerFromHolder(
  store: IdempotencyStore,
  request: KeyedRequest,
  held: IdempotencyRecord,
  deadline: number,
  clock: () => number,
): Promise<IdempotentOutcome | undefined> {
  let record = held;
  while (record.state === 'in_progress' && record.fingerprint === request.fingerprint && clock() < deadline) {
    await sleep(pollMillis);
    record = await store.read(request.scope, request.key, clock());
  }
  if (record.state === 'absent') return undefined;
  if (record.fingerprint !== request.fingerprint) throw mismatch(request.key);
  if (record.state === 'complete') return { response: record.response, replayed: true };
  throw idempotencyKeyInUse(request.key);
}

/**
 * Runs `operation` at most once per (scope, key): a retry with the same fingerprint replays the stored
 * response, another fingerprint is refused (v1 400, v2 409), and concurrent requests wait for the first one to finish.
 */
export async function runIdempotently(
  store: IdempotencyStore,
  request: KeyedRequest,
  operation: () => Promise<StoredResponse>,
  clock: () => number = systemClock,
): Promise<IdempotentOutcome> {
  const deadline = clock() + waitMillis;
  for (;;) {
    const now = clock();
    const attempt = await store.claim({ ...request, lockedUntil: now + lockMillis, expiresAt: now + idempotencyKeyTtlMillis }, now);
    if (attempt.claimed) {
      let response: StoredResponse;
      try {
        response = await operation();
      } catch (error) {
        await store.release(request.scope, request.key);
        throw error;
      }
      if (keepable(response.statusCode)) await store.complete(request.scope, request.key, response);
      else await store.release(request.scope, request.key);
      return { response, replayed: false };
    }
    const answer = await answerFromHolder(store, request, attempt.record, deadline, clock);
    if (answer) return answer;
  }
}

/**
 * A create or update whose key is kept by its own transaction (`ReceiptRequest`): no claim first. The
 * change's transaction writes the receipt with its event, so a success costs no call for the key; a
 * success that is not its event's object, and a failure worth keeping, are kept with one conditional put.
 * A request that lost the key to another (its transaction cancelled, or its kept failure refused) answers
 * with that request's response, as a claimed key would; one that finds its own receipt answers with it (a
 * change that committed, then failed or was retried by the SDK, happened). A retry runs the operation again
 * up to its transaction, which the receipt cancels: the reads and the cancelled transaction are what a
 * retry costs, where a claim costs a put on every request.
 */
export async function runWithReceipt(
  store: IdempotencyStore,
  request: KeyedRequest,
  receipt: ReceiptRequest,
  operation: () => Promise<StoredResponse>,
  answers: (response: StoredResponse, object: Record<string, unknown>) => boolean,
  clock: () => number = systemClock,
): Promise<IdempotentOutcome> {
  const deadline = clock() + waitMillis;
  const response = await operation();
  const succeeded = response.statusCode < 300;
  const written = receipt.prepared?.receipt.written === true;
  if (succeeded && written && answers(response, receipt.prepared!.object)) return { response, replayed: false };
  // Every opted-in change writes its answering event in one transaction with the receipt; one that did
  // not is unprotected against a concurrent duplicate, which the route's tests should have caught.
  if (succeeded && !written) logger.warn('A change answered by its event wrote no receipt', { answeredBy: receipt.answeredBy });
  const now = clock();
  const keeping = succeeded || keepable(response.statusCode);
  let held = keeping
    ? await store.keep({ ...request, expiresAt: now + idempotencyKeyTtlMillis }, response, now, succeeded)
    : await store.read(request.scope, request.key, now);
  // A create that lost its key in a race (409) may look before the winner's transaction is visible.
  while (response.statusCode === 409 && held?.state === 'absent' && clock() < deadline) {
    await sleep(pollMillis);
    held = await store.read(request.scope, request.key, clock());
  }
  if (!held || held.state === 'absent') return { response, replayed: false };
  if (held.state === 'complete' && held.response.requestId === request.requestId) return { response: held.response, replayed: false };
  return (await answerFromHolder(store, request, held, deadline, clock)) ?? { response, replayed: false };
}
