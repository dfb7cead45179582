import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IdempotencyError } from '#shared/core/errors.ts';
import { requestFingerprint, runIdempotently } from '#shared/http/idempotency.ts';
import type { StoredResponse } from '#shared/platform/ports.ts';
import { fakeIdempotencyStore } from '../../support/fakes.ts';

const scope = { accountId: 'acct_1', livemode: false };
const ok = (body: string): StoredResponse => ({ statusCode: 200, body, requestId: 'req_first' });

describe('idempotent execution', () => {
  it('runs the operation once and replays the stored response for a retry', async () => {
    // Given a store and an operation that counts its runs
    const store = fakeIdempotencyStore();
    let runs = 0;
    const operation = async () => ok(`run ${++runs}`);
    const request = { scope, key: 'k1', fingerprint: 'f1', requestId: 'req_x' };

    // When the same request arrives twice
    const first = await runIdempotently(store, request, operation);
    const second = await runIdempotently(store, request, operation);

    // Then it ran once and the retry is a replay of the first response
    expect(runs).toBe(1);
    expect(first.replayed).toBe(false);
    expect(second).toEqual({ response: ok('run 1'), replayed: true });
  });

  it('refuses the same key with other parameters', async () => {
    const store = fakeIdempotencyStore();
    await runIdempotently(store, { scope, key: 'k', fingerprint: 'a', requestId: 'r' }, async () => ok('a'));
    await expect(runIdempotently(store, { scope, key: 'k', fingerprint: 'b', requestId: 'r' }, async () => ok('b'))).rejects.toThrow(IdempotencyError);
  });

  it('lets concurrent requests with one key run the operation once and all get its response', async () => {
    const store = fakeIdempotencyStore();
    let runs = 0;
    const operation = async () => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return ok('only');
    };
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, () => runIdempotently(store, { scope, key: 'k', fingerprint: 'f', requestId: 'r' }, operation)),
    );
    expect(runs).toBe(1);
    expect(outcomes.every((outcome) => outcome.response.body === 'only')).toBe(true);
    expect(outcomes.filter((outcome) => !outcome.replayed)).toHaveLength(1);
  });

  it('forgets a failed attempt so that a retry runs again', async () => {
    const store = fakeIdempotencyStore();
    const request = { scope, key: 'k', fingerprint: 'f', requestId: 'r' };
    await runIdempotently(store, request, async () => ({ statusCode: 500, body: 'boom', requestId: 'r' }));
    const retry = await runIdempotently(store, request, async () => ok('fine'));
    expect(retry).toEqual({ response: ok('fine'), replayed: false });
  });

  it('keeps keys apart per account and mode', async () => {
    const store = fakeIdempotencyStore();
    await runIdempotently(store, { scope, key: 'k', fingerprint: 'a', requestId: 'r' }, async () => ok('test'));
    const live = await runIdempotently(store, { scope: { ...scope, livemode: true }, key: 'k', fingerprint: 'b', requestId: 'r' }, async () => ok('live'));
    expect(live.replayed).toBe(false);
  });

  it('fingerprints parameters regardless of key order, keyed by a secret', () => {
    const key = Buffer.alloc(32, 1);
    expect(requestFingerprint(key, 'POST', '/v1/x', { a: 1, b: { c: 2, d: 3 } })).toBe(requestFingerprint(key, 'POST', '/v1/x', { b: { d: 3, c: 2 }, a: 1 }));
    expect(requestFingerprint(key, 'POST', '/v1/x', { a: 1 })).not.toBe(requestFingerprint(key, 'POST', '/v1/y', { a: 1 }));
    expect(requestFingerprint(key, 'POST', '/v1/x', { a: 1 })).not.toBe(requestFingerprint(Buffer.alloc(32, 2), 'POST', '/v1/x', { a: 1 }));
    expect(requestFingerprint(key, 'POST', '/v1/x', { a: 1 })).not.toBe(createHash('sha256').update('POST /v1/x\n{"a":1}').digest('hex'));
  });
});
