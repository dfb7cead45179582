import type { SendMessageBatchCommandInput, SendMessageBatchCommandOutput, SQSClient } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { batchedSender } from '#shared/messaging/batched-sender.ts';

const queueUrl = 'http://sqs.local/000000000000/meter-events';
const kib = 1024;

type Answer = (input: SendMessageBatchCommandInput) => Partial<SendMessageBatchCommandOutput>;

/** A fake SQS client that records each SendMessageBatch input and answers with `answer` (all taken by default). */
function fakeSqs(answer: Answer = () => ({})) {
  const calls: SendMessageBatchCommandInput[] = [];
  const client = {
    async send(command: { input: SendMessageBatchCommandInput }) {
      calls.push(command.input);
      return answer(command.input);
    },
  };
  return { calls, client: client as unknown as SQSClient };
}

const bodiesOf = (input: SendMessageBatchCommandInput) => input.Entries!.map((entry) => entry.MessageBody);
const bytesOf = (input: SendMessageBatchCommandInput) => bodiesOf(input).reduce((sum, body) => sum + Buffer.byteLength(body!), 0);

describe('batched sender', () => {
  it('coalesces sends of the same turn into batches of at most 10 entries', async () => {
    const sqs = fakeSqs();
    const send = batchedSender(queueUrl, sqs.client);
    const bodies = Array.from({ length: 23 }, (_, index) => `m${index}`);

    await Promise.all([send(bodies.slice(0, 4)), send(bodies.slice(4, 5)), send(bodies.slice(5, 23))]);

    expect(sqs.calls.map((input) => input.Entries!.length)).toEqual([10, 10, 3]);
    expect(sqs.calls.flatMap(bodiesOf)).toEqual(bodies);
    for (const input of sqs.calls) {
      expect(input.QueueUrl).toBe(queueUrl);
      expect(new Set(input.Entries!.map((entry) => entry.Id)).size).toBe(input.Entries!.length);
    }
  });

  it('sends in separate calls what was sent in separate turns', async () => {
    const sqs = fakeSqs();
    const send = batchedSender(queueUrl, sqs.client);

    await send(['first']);
    await send(['second']);

    expect(sqs.calls.map(bodiesOf)).toEqual([['first'], ['second']]);
  });

  it('holds sends made while a call is out and sends them together once it is answered', async () => {
    let answerFirst!: () => void;
    const firstAnswered = new Promise<void>((resolve) => (answerFirst = resolve));
    const sqs = fakeSqs();
    const client = {
      async send(command: { input: SendMessageBatchCommandInput }) {
        sqs.calls.push(command.input);
        if (sqs.calls.length === 1) await firstAnswered;
        return {};
      },
    } as unknown as SQSClient;
    const send = batchedSender(queueUrl, client);
    const turn = () => new Promise((resolve) => setImmediate(resolve));

    const first = send(['first']);
    await turn();
    const second = send(['second']);
    await turn();
    const later = [second, send(['third'])];
    await turn();
    await turn();
    expect(sqs.calls.map(bodiesOf)).toEqual([['first']]);

    answerFirst();
    await Promise.all([first, ...later]);
    expect(sqs.calls.map(bodiesOf)).toEqual([['first'], ['second', 'third']]);
  });

  it('resolves an empty send without calling SQS', async () => {
    const sqs = fakeSqs();
    const send = batchedSender(queueUrl, sqs.client);

    await send([]);

    expect(sqs.calls).toEqual([]);
  });

  it('splits bodies across calls so no call carries more than 256 KiB', async () => {
    const sqs = fakeSqs();
    const send = batchedSender(queueUrl, sqs.client);
    const big = (fill: string) => fill.repeat(100 * kib);

    await Promise.all([send([big('a'), big('b')]), send([big('c')]), send(['d'])]);

    expect(sqs.calls.map((input) => bodiesOf(input).map((body) => body![0]))).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    for (const input of sqs.calls) expect(bytesOf(input)).toBeLessThanOrEqual(256 * kib);
  });

  it('puts bodies totalling exactly 256 KiB in one call', async () => {
    const sqs = fakeSqs();
    const send = batchedSender(queueUrl, sqs.client);

    await send(['x'.repeat(128 * kib), 'y'.repeat(128 * kib)]);

    expect(sqs.calls).toHaveLength(1);
  });

  it('measures bodies in UTF-8 bytes, not characters', async () => {
    const sqs = fakeSqs();
    const send = batchedSender(queueUrl, sqs.client);
    const twoByteBody = 'é'.repeat(50 * kib);

    await send([twoByteBody, twoByteBody, twoByteBody]);

    expect(sqs.calls.map((input) => input.Entries!.length)).toEqual([2, 1]);
  });

  it('rejects only the send whose entry SQS listed as failed', async () => {
    const sqs = fakeSqs((input) => ({
      Failed: input
        .Entries!.filter((entry) => entry.MessageBody === 'bad')
        .map((entry) => ({ Id: entry.Id, Code: 'InternalError', Message: 'try again', SenderFault: false })),
    }));
    const send = batchedSender(queueUrl, sqs.client);

    const results = await Promise.allSettled([send(['ok-1']), send(['ok-2', 'bad']), send(['ok-3'])]);

    expect(sqs.calls).toHaveLength(1);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(Error);
    expect(String((results[1] as PromiseRejectedResult).reason.message)).toContain('try again');
  });

  it('rejects every send of a batch whose call threw, and only those', async () => {
    const outage = new Error('connection reset');
    const sqs = fakeSqs((input) => {
      if (input.Entries!.some((entry) => entry.MessageBody === 'a')) throw outage;
      return {};
    });
    const send = batchedSender(queueUrl, sqs.client);
    const nineBodies = Array.from({ length: 9 }, (_, index) => `filler${index}`);

    const results = await Promise.allSettled([send(['a']), send(nineBodies), send(['later'])]);

    expect(sqs.calls.map((input) => input.Entries!.length)).toEqual([10, 1]);
    expect(results[0]).toEqual({ status: 'rejected', reason: outage });
    expect(results[1]).toEqual({ status: 'rejected', reason: outage });
    expect(results[2]).toEqual({ status: 'fulfilled', value: undefined });
  });

  it('holds messages back whole seconds within SQS’s 0–900, each send its own delay', async () => {
    // Given a sender
    const sqs = fakeSqs();
    const send = batchedSender(queueUrl, sqs.client);

    // When sends ask for no delay, a fractional one, a negative one and one past SQS's limit in the same turn
    await Promise.all([send(['now']), send(['soon'], 2.6), send(['past'], -5), send(['late'], 3_600)]);

    // Then they share one call, each entry with its own delay rounded and clamped (none for none)
    expect(sqs.calls).toHaveLength(1);
    expect(sqs.calls[0]!.Entries!.map((entry) => [entry.MessageBody, entry.DelaySeconds])).toEqual([
      ['now', undefined],
      ['soon', 3],
      ['past', undefined],
      ['late', 900],
    ]);
  });
});
