import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { IdempotencyError, IdempotencyKeyReusedError } from '#shared/core/errors.ts';
import type { ReceiptRequest } from '#shared/events/event.ts';
import { requestFingerprint, runIdempotently, runWithReceipt } from '#shared/http/idempotency.ts';
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

describe('a create answered by its event (runWithReceipt)', () => {
  /** The request with key `k` and fingerprint `f` that `requestId` names. */
  const keyed = (requestId: string) => ({ scope, key: 'k', fingerprint: 'f', requestId });
  const receiptOf = (requestId: string): ReceiptRequest => ({
    answeredBy: 'customer.created',
    draft: { ...keyed(requestId), statusCode: 200, serviceVersion: 'v', now: 0, expiresAt: 1 },
  });
  const answersAlways = () => true;
  /** What `prepare` and the committed transaction leave on the request's receipt. */
  const written = (receipt: ReceiptRequest, object: Record<string, unknown>) => {
    receipt.prepared = { object, receipt: { ...receipt.draft, event: { scope, id: 'evt_1' }, written: true } };
  };

  it('writes nothing of its own when the create wrote its receipt with an event that is its body', async () => {
    // Given a create whose transaction held the receipt (prepare set `prepared`)
    const store = fakeIdempotencyStore();
    const receipt = receiptOf('req_a');
    const operation = async () => {
      written(receipt, { id: 'cus_1' });
      return { statusCode: 200, body: '{"id":"cus_1"}', requestId: 'req_a' };
    };

    // When it runs
    const outcome = await runWithReceipt(store, keyed('req_a'), receipt, operation, answersAlways);

    // Then it answers its own response and the store was not written (the transaction was)
    expect(outcome.replayed).toBe(false);
    expect(store.items.size).toBe(0);
  });

  it('keeps a success whose body is not its event’s object, and a failure worth keeping, with one put', async () => {
    const store = fakeIdempotencyStore();
    const receipt = receiptOf('req_a');
    const operation = async () => {
      written(receipt, { id: 'cus_1' });
      return ok('another body');
    };
    await runWithReceipt(store, keyed('req_a'), receipt, operation, () => false);
    expect([...store.items.values()].map((item) => item.response?.body)).toEqual(['another body']);

    const failing = fakeIdempotencyStore();
    const declined = { statusCode: 402, body: 'declined', requestId: 'req_b' };
    await runWithReceipt(failing, keyed('req_b'), receiptOf('req_b'), async () => declined, answersAlways);
    expect([...failing.items.values()].map((item) => item.response)).toEqual([declined]);
  });

  it('answers with the holder’s response when the key was taken, and refuses other parameters', async () => {
    // Given a key another request keeps
    const store = fakeIdempotencyStore();
    await runWithReceipt(
      store,
      keyed('req_first'),
      receiptOf('req_first'),
      async () => ok('first'),
      () => false,
    );
    const inUse = { statusCode: 409, body: 'in use', requestId: 'req_retry' };

    // When a retry's create is refused for the key (its transaction cancelled)
    const retry = await runWithReceipt(store, keyed('req_retry'), receiptOf('req_retry'), async () => inUse, answersAlways);

    // Then it replays the first response; with other parameters it is refused
    expect(retry).toEqual({ response: ok('first'), replayed: true });
    await expect(
      runWithReceipt(store, { scope, key: 'k', fingerprint: 'other', requestId: 'req_c' }, receiptOf('req_c'), async () => inUse, answersAlways),
    ).rejects.toThrow(IdempotencyKeyReusedError);
  });

  it('keeps a success whose receipt was prepared but not written, rather than trusting it', async () => {
    const store = fakeIdempotencyStore();
    const receipt = receiptOf('req_a');
    const operation = async () => {
      written(receipt, { id: 'cus_1' });
      delete receipt.prepared!.receipt.written;
      return ok('{"id":"cus_1"}');
    };
    await runWithReceipt(store, keyed('req_a'), receipt, operation, answersAlways);
    expect([...store.items.values()].map((item) => item.response?.body)).toEqual(['{"id":"cus_1"}']);
  });

  it('answers with its own receipt when its change committed and it then failed, and does not overwrite it with the failure', async () => {
    // Given the key held by this very request's success (its transaction committed)
    const store = fakeIdempotencyStore();
    const request = keyed('req_a');
    const success = { statusCode: 200, body: '{"id":"cus_1"}', requestId: 'req_a' };
    const now = Date.now();
    const clock = () => now;
    await store.keep({ ...request, expiresAt: now + 60_000 }, success, now, false);

    // When the operation then answers a failure (a keepable one, or a 409 from a retried transaction)
    for (const failure of [
      { statusCode: 402, body: 'declined', requestId: 'req_a' },
      { statusCode: 409, body: 'in use', requestId: 'req_a' },
    ]) {
      const outcome = await runWithReceipt(store, request, receiptOf('req_a'), async () => failure, answersAlways, clock);

      // Then the change it made is the answer, and the record still says so
      expect(outcome).toEqual({ response: success, replayed: false });
      expect([...store.items.values()].map((item) => item.response)).toEqual([success]);
    }
  });

  it('does not keep a failure a retry may fix, and answers it when nobody holds the key', async () => {
    const store = fakeIdempotencyStore();
    const failed = { statusCode: 500, body: 'boom', requestId: 'req_a' };
    const outcome = await runWithReceipt(store, keyed('req_a'), receiptOf('req_a'), async () => failed, answersAlways);
    expect(outcome).toEqual({ response: failed, replayed: false });
    expect(store.items.size).toBe(0);
  });
});
