import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { serviceClients } from '#shared/aws/sdk-clients.ts';

/** SQS limits of one SendMessageBatch call, and of a message's delay. */
const maxEntries = 10;
const maxBatchBytes = 256 * 1024;
const maxDelaySeconds = 900;

type Waiter = { body: string; delaySeconds: number; resolve: () => void; reject: (error: unknown) => void };

/**
 * The service's one way to put messages on a queue. Sends message bodies to one queue, coalescing every
 * send of the same event-loop turn, and every send made while the previous call is out, into
 * SendMessageBatch calls (10 entries and 256 KiB at most each): many concurrent requests in one warm
 * process share calls. A send resolves once SQS has taken its messages and rejects when SQS refused one.
 * `delaySeconds` holds the messages of one send back that long (whole seconds, 0 to 900: SQS's limit).
 */
export function batchedSender(
  queueUrl: string,
  sqs: SQSClient = serviceClients.sqs(),
  maxInFlight = 1,
): (bodies: string[], delaySeconds?: number) => Promise<void> {
  const waiting: Waiter[] = [];

  async function sendBatch(batch: Waiter[]): Promise<void> {
    try {
      const { Failed = [] } = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((waiter, index) => ({
            Id: String(index),
            MessageBody: waiter.body,
            ...(waiter.delaySeconds > 0 ? { DelaySeconds: waiter.delaySeconds } : {}),
          })),
        }),
      );
      const failed = new Map(Failed.map((failure) => [Number(failure.Id), failure]));
      batch.forEach((waiter, index) => {
        const failure = failed.get(index);
        if (failure) waiter.reject(new Error(`SQS refused a message: ${failure.Message ?? failure.Code}`));
        else waiter.resolve();
      });
    } catch (error) {
      for (const waiter of batch) waiter.reject(error);
    }
  }

  /**
   * `maxInFlight` calls at a time (one by default): sends that come while they are out wait and go together
   * in the next call. Under load that makes calls fuller (about 5-8 entries instead of 3-4 at 500 meter
   * events/s locally), and a call costs about the same whatever its size. A lone send goes at once. A queue
   * whose sends are each on a request's or a delivery's critical path (the deliveries queue) takes more.
   */
  let inFlight = 0;
  let scheduled = false;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };

  /** The next batch off the front of `waiting`: 10 entries and 256 KiB at most. */
  function nextBatch(): Waiter[] {
    let count = 0;
    let bytes = 0;
    while (count < waiting.length && count < maxEntries) {
      const size = Buffer.byteLength(waiting[count]!.body);
      if (count > 0 && bytes + size > maxBatchBytes) break;
      bytes += size;
      count++;
    }
    return waiting.splice(0, count);
  }

  function flush(): void {
    scheduled = false;
    while (inFlight < maxInFlight && waiting.length > 0) {
      inFlight++;
      void sendBatch(nextBatch()).finally(() => {
        inFlight--;
        if (waiting.length > 0) schedule();
      });
    }
  }

  return (bodies, delaySeconds = 0) => {
    const delay = Math.max(0, Math.min(maxDelaySeconds, Math.round(delaySeconds)));
    return Promise.all(
      bodies.map(
        (body) =>
          new Promise<void>((resolve, reject) => {
            schedule();
            waiting.push({ body, delaySeconds: delay, resolve, reject });
          }),
      ),
    ).then(() => undefined);
  };
}
