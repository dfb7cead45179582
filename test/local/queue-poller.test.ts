import { createHash } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startQueuePoller, type PollerLogger, type QueuePoller } from '#local/queue-poller.ts';
import { startQueueWorkers, type InvalidBatchResponse } from '#local/queue-workers.ts';
import { createLocalSqsClient, startSqs, type LocalQueue, type LocalSqs } from '#local/sqs.ts';
import { queues } from '#shared/messaging/queues.ts';
import { sqsBatchHandler } from '#shared/messaging/sqs-batch-handler.ts';
import { recordingBatchHandler } from './fixtures/batch-handlers.ts';

describe('SQS emulator and queue poller', () => {
  let sqs: LocalSqs;
  let client: SQSClient;
  let poller: QueuePoller | undefined;
  let queueCount = 0;

  beforeAll(async () => {
    sqs = await startSqs();
    client = createLocalSqsClient(sqs.endpoint, sqs.credentials);
  });

  afterEach(async () => {
    await poller?.stop();
    poller = undefined;
  });

  afterAll(async () => {
    client?.destroy();
    await sqs?.stop();
  });

  /** A fresh queue per test; one-second visibility so redeliveries happen within the test. */
  const testQueue = (maxReceiveCount = 2): Promise<LocalQueue> => {
    queueCount += 1;
    return sqs.createQueue({ name: `poller-test-${queueCount}`, urlVariable: 'UNUSED', visibilityTimeoutSeconds: 1, maxReceiveCount });
  };

  const quietLogger = (): PollerLogger & { errors: unknown[][] } => {
    const errors: unknown[][] = [];
    return { errors, warn: (...args) => void errors.push(args), error: (...args) => void errors.push(args) };
  };

  const attributesOf = async (queueUrl: string) =>
    (await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['All'] }))).Attributes ?? {};

  /** Visible, in-flight and delayed messages together. */
  const countMessages = async (queueUrl: string) => {
    const attributes = await attributesOf(queueUrl);
    return (['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const)
      .map((name) => Number(attributes[name] ?? 0))
      .reduce((a, b) => a + b, 0);
  };

  it('creates every service queue with its dead-letter queue, redrive policy and visibility timeout', async () => {
    // Then each queue of the definitions exists with the attributes the definition asks for
    for (const [name, definition] of Object.entries(queues)) {
      const queue = await attributesOf(sqs.queueUrls[name as keyof typeof queues]);
      const deadLetter = await attributesOf(sqs.deadLetterQueueUrls[name as keyof typeof queues]);
      expect(sqs.queueUrls[name as keyof typeof queues]).toMatch(new RegExp(`/${definition.name}$`));
      expect(queue.VisibilityTimeout).toBe(String(definition.visibilityTimeoutSeconds));
      expect(JSON.parse(queue.RedrivePolicy ?? '{}')).toEqual({
        deadLetterTargetArn: deadLetter.QueueArn,
        maxReceiveCount: String(definition.maxReceiveCount),
      });
    }
  });

  it('delivers a batch to the handler as an SQSEvent shaped like Lambda’s, then deletes it', async () => {
    // Given three messages, one with message attributes
    const queue = await testQueue();
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: [
          {
            Id: '1',
            MessageBody: '{"n":1}',
            MessageAttributes: { kind: { DataType: 'String', StringValue: 'test' }, raw: { DataType: 'Binary', BinaryValue: Buffer.from([1, 2]) } },
          },
          { Id: '2', MessageBody: '{"n":2}' },
          { Id: '3', MessageBody: '{"n":3}' },
        ],
      }),
    );
    const worker = recordingBatchHandler();

    // When a poller feeds the queue to the handler
    poller = startQueuePoller({ sqsClient: client, queueUrl: queue.url, queueArn: queue.arn, handler: worker.handler, waitTimeSeconds: 1 });

    // Then the handler gets all three, once, in one batch with Lambda's record fields
    await vi.waitFor(() => expect(worker.records()).toHaveLength(3), { timeout: 5_000 });
    expect(worker.batches).toHaveLength(1);
    const first = worker.records().find((record) => record.body === '{"n":1}');
    expect(first).toMatchObject({
      eventSource: 'aws:sqs',
      eventSourceARN: queue.arn,
      awsRegion: 'us-east-1',
      md5OfBody: createHash('md5').update('{"n":1}').digest('hex'),
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: expect.stringMatching(/^\d+$/),
        ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d+$/),
      },
      messageAttributes: {
        kind: { stringValue: 'test', stringListValues: [], binaryListValues: [], dataType: 'String' },
        raw: { binaryValue: Buffer.from([1, 2]).toString('base64'), stringListValues: [], binaryListValues: [], dataType: 'Binary' },
      },
    });
    expect(first?.messageId).toEqual(expect.any(String));
    expect(first?.receiptHandle).toEqual(expect.any(String));

    // And the handled messages are gone from the queue
    await vi.waitFor(async () => expect(await countMessages(queue.url)).toBe(0), { timeout: 5_000 });
  });

  it('deletes the successes of a partial batch failure and moves the failure to the DLQ after maxReceiveCount', async () => {
    // Given two good messages and a poison one, on a queue allowing two receives
    const queue = await testQueue(2);
    for (const body of ['ok-1', 'poison', 'ok-2']) await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body }));
    const worker = recordingBatchHandler((body) => body === 'poison');

    // When the handler reports the poison message as a batch item failure each time
    poller = startQueuePoller({ sqsClient: client, queueUrl: queue.url, queueArn: queue.arn, handler: worker.handler, waitTimeSeconds: 1 });

    // Then the poison message lands in the dead-letter queue
    const deadLettered = await client.send(new ReceiveMessageCommand({ QueueUrl: queue.deadLetterUrl, WaitTimeSeconds: 10, MaxNumberOfMessages: 10 }));
    expect(deadLettered.Messages?.map((message) => message.Body)).toEqual(['poison']);

    // And it was tried maxReceiveCount times, after the visibility timeout each time, while the good ones ran once
    const bodies = worker.records().map((record) => record.body);
    expect(bodies.filter((body) => body === 'poison')).toHaveLength(2);
    expect(bodies.filter((body) => body.startsWith('ok')).sort()).toEqual(['ok-1', 'ok-2']);
    const poisonAttempts = worker.records().filter((record) => record.body === 'poison');
    expect(poisonAttempts.map((record) => record.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
    const poisonTimes = worker.deliveries.filter((delivery) => delivery.record.body === 'poison').map((delivery) => delivery.at);
    const gapMs = poisonTimes[1] - poisonTimes[0];
    expect(gapMs).toBeGreaterThanOrEqual(900);
    expect(await countMessages(queue.url)).toBe(0);
  });

  it('leaves the whole batch for redelivery when the handler throws', async () => {
    // Given two messages and a handler that fails on its first call only
    const queue = await testQueue(5);
    await client.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: [
          { Id: 'a', MessageBody: 'a' },
          { Id: 'b', MessageBody: 'b' },
        ],
      }),
    );
    const seen: string[][] = [];
    const logger = quietLogger();
    const handler = async (event: SQSEvent) => {
      seen.push(event.Records.map((record) => `${record.body}#${record.attributes.ApproximateReceiveCount}`).sort());
      if (seen.length === 1) throw new Error('first call fails');
    };

    // When the poller runs
    poller = startQueuePoller({ sqsClient: client, queueUrl: queue.url, handler, logger });

    // Then both messages come back once and are deleted after the successful attempt
    await vi.waitFor(() => expect(seen.flat()).toHaveLength(4), { timeout: 5_000 });
    // (the retried messages may come back in one receive or in two, as SQS does not keep batches together)
    expect(seen[0]).toEqual(['a#1', 'b#1']);
    expect(seen.slice(1).flat().sort()).toEqual(['a#2', 'b#2']);
    await vi.waitFor(async () => expect(await countMessages(queue.url)).toBe(0), { timeout: 5_000 });
    expect(logger.errors.map(([message]) => message)).toEqual([expect.stringContaining('whole batch of 2 will be retried')]);
  });

  it('treats a batch response naming an unknown message as a failure of the whole batch', async () => {
    // Given a handler that answers with an itemIdentifier not in the batch, then with nothing
    const queue = await testQueue(5);
    await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'only' }));
    let calls = 0;
    const handler = async () => {
      calls += 1;
      return calls === 1 ? { batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] } : undefined;
    };
    const invalid: unknown[] = [];

    // When the poller runs
    poller = startQueuePoller({
      sqsClient: client,
      queueUrl: queue.url,
      handler,
      logger: quietLogger(),
      onInvalidResponse: (response) => invalid.push(response),
    });

    // Then the message is delivered again, and deleted after the second (void) answer
    await vi.waitFor(() => expect(calls).toBe(2), { timeout: 5_000 });
    await vi.waitFor(async () => expect(await countMessages(queue.url)).toBe(0), { timeout: 5_000 });
    // and the invalid answer was reported, once
    expect(invalid).toEqual([{ batchItemFailures: [{ itemIdentifier: 'not-in-this-batch' }] }]);
  });

  it('answers overlapping batches of one batch handler each with its own failures, as separate Lambda instances would', async () => {
    // Given two messages whose first attempts fail, one slowly, handled by the deliveries worker's kind of handler
    const queue = await testQueue(5);
    for (const body of ['slow', 'quick']) await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body }));
    const attempts: string[] = [];
    // The slow one is still in its batch when the quick one's batch starts: the two overlap for a fact, not a delay.
    let quickStarted: () => void = () => undefined;
    const quickHasStarted = new Promise<void>((resolve) => (quickStarted = resolve));
    const handler = sqsBatchHandler(async ({ body, attributes }) => {
      attempts.push(`${body}#${attributes.ApproximateReceiveCount}`);
      if (body === 'quick') quickStarted();
      if (body === 'slow') await quickHasStarted;
      if (attributes.ApproximateReceiveCount === '1') throw new Error(`${body} failed`);
    });
    const logger = quietLogger();
    const invalid: unknown[] = [];

    // When a poller runs the two as overlapping batches of one
    poller = startQueuePoller({
      sqsClient: client,
      queueUrl: queue.url,
      handler,
      batchSize: 1,
      concurrency: 2,
      logger,
      onInvalidResponse: (response) => invalid.push(response),
    });

    // Then each message failed alone (a batch whose every record fails is thrown whole by Powertools), came back
    // once and was deleted after its second attempt, and no answer was invalid
    await vi.waitFor(async () => expect(await countMessages(queue.url)).toBe(0), { timeout: 10_000 });
    expect(attempts.sort()).toEqual(['quick#1', 'quick#2', 'slow#1', 'slow#2']);
    expect(invalid).toEqual([]);
    expect(logger.errors.map(([message]) => message)).toEqual([
      expect.stringContaining('whole batch of 1 will be retried'),
      expect.stringContaining('whole batch of 1 will be retried'),
    ]);
  });

  it("tells the stack of a worker's invalid batch response from the workers' thread", async () => {
    // Given the workers' thread running a worker that answers with a message outside its batch
    const queue = await testQueue(5);
    const reports: InvalidBatchResponse[] = [];
    const workers = await startQueueWorkers({
      sqsEndpoint: sqs.endpoint,
      sqsCredentials: sqs.credentials,
      workers: [
        {
          name: 'answersInvalidly',
          handler: 'test/local/fixtures/invalid-response-handler.ts',
          queueUrl: queue.url,
          queueArn: queue.arn,
          batchSize: 10,
          permissions: [],
        },
      ],
      concurrency: 1,
      clockOffset: new BigInt64Array(new SharedArrayBuffer(8)),
      kmsMasterKey: Buffer.alloc(32),
      onInvalidResponse: (report) => reports.push(report),
    });

    try {
      // When a message reaches it
      await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'any' }));

      // Then the stack is told which function answered what
      await vi.waitFor(
        () => expect(reports[0]).toEqual({ functionName: 'answersInvalidly', response: '{"batchItemFailures":[{"itemIdentifier":"not-in-this-batch"}]}' }),
        {
          timeout: 10_000,
        },
      );
    } finally {
      await workers.stop();
    }
  });

  it('handles up to `concurrency` batches at once from one receive loop', async () => {
    // Given three messages and a handler that holds each batch of one for a while
    const queue = await testQueue();
    for (const body of ['a', 'b', 'c']) await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body }));
    let running = 0;
    let mostAtOnce = 0;
    const handler = async () => {
      mostAtOnce = Math.max(mostAtOnce, ++running);
      await new Promise((wake) => setTimeout(wake, 300));
      running--;
    };

    // When a poller with concurrency 2 takes batches of one
    poller = startQueuePoller({ sqsClient: client, queueUrl: queue.url, handler, batchSize: 1, concurrency: 2 });

    // Then two batches ran side by side, never three, and every message was handled and deleted
    await vi.waitFor(async () => expect(await countMessages(queue.url)).toBe(0), { timeout: 5_000 });
    expect(mostAtOnce).toBe(2);
  });

  it("deletes each batch's handled messages as soon as it ends, in one DeleteMessageBatch call per batch", async () => {
    // Given four messages, a poller taking batches of one, four at a time, and a count of its delete calls
    const queue = await testQueue();
    for (const body of ['a', 'b', 'c', 'd']) await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: body }));
    const counted = createLocalSqsClient(sqs.endpoint, sqs.credentials);
    let deleteCalls = 0;
    counted.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'DeleteMessageBatchCommand') deleteCalls++;
        return next(args);
      },
      { step: 'initialize' },
    );
    let handled = 0;
    const handler = async () => void handled++;

    // When the four batches are handled
    poller = startQueuePoller({ sqsClient: counted, queueUrl: queue.url, handler, batchSize: 1, concurrency: 4 });

    // Then all four are deleted, one call each, as Lambda's event source mapping does
    await vi.waitFor(async () => expect(await countMessages(queue.url)).toBe(0), { timeout: 5_000 });
    await poller.stop();
    poller = undefined;
    counted.destroy();
    expect(handled).toBe(4);
    expect(deleteCalls).toBe(4);
  });

  it('waits on stop for the batch in flight to finish and be deleted', async () => {
    // Given a slow handler working on a message
    const queue = await testQueue();
    await client.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: 'slow' }));
    let started = false;
    let finished = false;
    const handler = async () => {
      started = true;
      await new Promise((wake) => setTimeout(wake, 300));
      finished = true;
    };
    const running = startQueuePoller({ sqsClient: client, queueUrl: queue.url, handler });
    await vi.waitFor(() => expect(started).toBe(true), { timeout: 5_000 });

    // When the poller is stopped mid-batch
    await running.stop();

    // Then the handler had finished and its message was deleted
    expect(finished).toBe(true);
    expect(await countMessages(queue.url)).toBe(0);
  });

  it('keeps polling after SQS errors instead of crashing', async () => {
    // Given a poller on a queue that has been deleted
    const logger = quietLogger();
    const worker = recordingBatchHandler();
    const definition = { name: `poller-test-deleted-${Date.now()}`, urlVariable: 'UNUSED', visibilityTimeoutSeconds: 1, maxReceiveCount: 2 };
    const { url } = await sqs.createQueue(definition);
    await client.send(new DeleteQueueCommand({ QueueUrl: url }));
    poller = startQueuePoller({
      sqsClient: client,
      queueUrl: url,
      queueArn: 'arn:aws:sqs:us-east-1:000000000000:x',
      handler: worker.handler,
      retryPauseMs: 100,
      logger,
    });
    await vi.waitFor(() => expect(logger.errors.length).toBeGreaterThan(1), { timeout: 5_000 });

    // When the queue is back and gets a message
    await client.send(new CreateQueueCommand({ QueueName: definition.name }));
    await client.send(new SendMessageCommand({ QueueUrl: url, MessageBody: 'late' }));

    // Then the poller delivers it
    await vi.waitFor(() => expect(worker.records().map((record) => record.body)).toEqual(['late']), { timeout: 5_000 });
  });
});
