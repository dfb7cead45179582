import { systemClock } from '#shared/core/clock.ts';
import { createHmac } from 'node:crypto';
import { IdempotencyError, IdempotencyKeyReusedError, InvalidRequestError } from '#shared/core/errors.ts';
import type { IdempotencyStore, IdempotencyScope, StoredResponse } from '#shared/platform/ports.ts';

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

/**
 * Runs `operation` at most once per (scope, key): a retry with the same fingerprint replays the stored
 * response, another fingerprint is refused (v1 400, v2 409), and concurrent requests wait for the first one to finish.
 */
export async function runIdempotently(
  store: IdempotencyStore,
  request: { scope: IdempotencyScope; key: string; fingerprint: string; requestId: string },
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

    let record = attempt.record;
    while (record.state === 'in_progress' && record.fingerprint === request.fingerprint && clock() < deadline) {
      await sleep(pollMillis);
      record = await store.read(request.scope, request.key, clock());
    }
    if (record.state === 'absent') continue;
    if (record.fingerprint !== request.fingerprint) throw mismatch(request.key);
    if (record.state === 'complete') return { response: record.response, replayed: true };
    throw new IdempotencyError(
      `There is currently another in-progress request using the Idempotency-Key '${request.key}'. Retry after it completes.`,
      'idempotency_key_in_use',
    );
  }
}
