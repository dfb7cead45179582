import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sqsClient } from './sqs-delivery-queue.ts';

/** SQS limits of one SendMessageBatch call. */
const maxEntries = 10;
const maxBatchBytes = 256 * 1024;

type Waiter = { body: string; resolve: () => void; reject: (error: unknown) => void };

/**
 * Sends message bodies to one queue, coalescing every send of the same event-loop turn into SendMessageBatch calls
 * (10 entries and 256 KiB at most each): many concurrent requests in one warm process share calls. A
 * send resolves once SQS has taken its message and rejects when SQS refused it.
 */
export function batchedSender(queueUrl: string, sqs: SQSClient = sqsClient()): (bodies: string[]) => Promise<void> {
  let waiting: Waiter[] = [];

  async function sendBatch(batch: Waiter[]): Promise<void> {
    try {
      const { Failed = [] } = await sqs.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.map((waiter, index) => ({ Id: String(index), MessageBody: waiter.body })) }),
      );
      const failed = new Map(Failed.map((failure) => [Number(failure.Id), failure]));
      batch.forEach((waiter, index) => {
        const failure = failed.get(index);
        if (failure) waiter.reject(new Error(`SQS refused a message: ${failure.Message ?? failure.Code}`));
        else waiter.resolve();
      });
    } catch (error) {
      batch.forEach((waiter) => waiter.reject(error));
    }
  }

  function flush(): void {
    const all = waiting;
    waiting = [];
    let batch: Waiter[] = [];
    let bytes = 0;
    for (const waiter of all) {
      const size = Buffer.byteLength(waiter.body);
      if (batch.length === maxEntries || (batch.length > 0 && bytes + size > maxBatchBytes)) {
        void sendBatch(batch);
        batch = [];
        bytes = 0;
      }
      batch.push(waiter);
      bytes += size;
    }
    if (batch.length > 0) void sendBatch(batch);
  }

  return (bodies) =>
    Promise.all(
      bodies.map(
        (body) =>
          new Promise<void>((resolve, reject) => {
            if (waiting.length === 0) setImmediate(flush);
            waiting.push({ body, resolve, reject });
          }),
      ),
    ).then(() => undefined);
}
