import type { Permission } from '#functions/permissions.ts';
import { callTotals, withCallScope } from '#shared/aws/aws-calls.ts';
import { functionCallScope } from './iam.ts';
import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { createLambdaContext, localAccountId } from '#local/lambda-context.ts';

/** A queue worker's handler as Lambda calls it; the same shape the worker modules export. */
// biome-ignore lint/suspicious/noConfusingVoidType: Lambda's own handler type; a worker may return nothing
export type SqsBatchHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void> | SQSBatchResponse | void;

/** Where the poller reports what it cannot throw (it never crashes the process). */
export interface PollerLogger {
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

export interface QueuePollerOptions {
  sqsClient: SQSClient;
  queueUrl: string;
  /** `eventSourceARN` of every record. Looked up with GetQueueAttributes when omitted. */
  queueArn?: string;
  handler: SqsBatchHandler;
  /** Messages per batch, 1–10 (one ReceiveMessage call). @default 10 */
  batchSize?: number;
  /** Long-poll wait of each ReceiveMessage call. @default 1 */
  waitTimeSeconds?: number;
  /** `context.functionName`. @default the queue name */
  functionName?: string;
  /** What the function may call, enforced as IAM would (`local/iam.ts`). @default - anything */
  permissions?: readonly Permission[];
  /** Deadline behind `context.getRemainingTimeInMillis()`; not enforced. @default 60_000 */
  timeoutMs?: number;
  /** Pause after SQS itself fails, before the next attempt. @default 1_000 */
  retryPauseMs?: number;
  /**
   * Batches handled at once, like concurrent Lambda invocations: one receive loop hands batches out, so an
   * idle worker keeps one long poll open instead of one per invocation (which all wake for each message).
   * They share one module instance, where Lambda would give each its own: a handler must keep no state of
   * one invocation at module scope (a Powertools `BatchProcessor` is such state: make one per invocation,
   * as `shared/messaging/sqs-batch-handler.ts` does).
   * @default 1
   */
  concurrency?: number;
  /** @default console */
  logger?: PollerLogger;
  /**
   * Told of every batch response Lambda would reject (one naming a message outside its batch, or not a
   * batch response at all), besides the error logged: such a response is always a bug of the handler, and
   * its whole batch comes back (duplicate webhooks). The test harness fails the run on one.
   */
  onInvalidResponse?: (response: unknown) => void;
}

export interface QueuePoller {
  /** Stops polling and resolves once the batch being handled (if any) has finished and been deleted. */
  stop(): Promise<void>;
}

/**
 * Feeds a queue to a handler the way Lambda's SQS event source mapping does with `ReportBatchItemFailures`:
 * receive a batch, invoke the handler with an `SQSEvent`, then delete every message not listed in
 * `batchItemFailures`. A thrown error or an invalid response fails the whole batch (nothing is deleted);
 * failed messages come back after the queue's visibility timeout, and the queue's redrive policy moves them
 * to its dead-letter queue after `maxReceiveCount` receives. Up to `concurrency` batches at a time; each
 * batch's handled messages are deleted as soon as it ends (one DeleteMessageBatch call).
 */
export function startQueuePoller(options: QueuePollerOptions): QueuePoller {
  const { sqsClient, queueUrl, handler, batchSize = 10, waitTimeSeconds = 1, timeoutMs = 60_000, retryPauseMs = 1_000, concurrency = 1 } = options;
  const logger = options.logger ?? console;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10) {
    throw new Error(`batchSize must be an integer from 1 to 10, got ${batchSize}`);
  }
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer, got ${concurrency}`);
  const queueName = queueUrl.split('/').pop() ?? queueUrl;
  const functionName = options.functionName ?? queueName;

  let stopping = false;
  let receiving: AbortController | undefined;
  const inFlight = new Set<Promise<void>>();
  let slotFreed: (() => void) | undefined;
  let wakeFromPause: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resume) => {
      const timer = setTimeout(resume, ms);
      wakeFromPause = () => {
        clearTimeout(timer);
        resume();
      };
    });

  async function poll(): Promise<void> {
    const region = await sqsClient.config.region();
    const eventSourceARN = options.queueArn ?? (await lookUpQueueArn(region));
    while (!stopping) {
      if (inFlight.size >= concurrency) {
        await new Promise<void>((resume) => (slotFreed = resume));
        continue;
      }
      let messages: Message[];
      try {
        receiving = new AbortController();
        const received = await sqsClient.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: batchSize,
            WaitTimeSeconds: waitTimeSeconds,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: receiving.signal },
        );
        messages = received.Messages ?? [];
      } catch (error) {
        if (stopping) break;
        logger.error(`Receiving from ${queueName} failed; retrying in ${retryPauseMs} ms`, error);
        await pause(retryPauseMs);
        continue;
      } finally {
        receiving = undefined;
      }
      if (messages.length === 0) {
        // Without long polling an empty queue would be polled in a busy loop.
        if (waitTimeSeconds === 0) await pause(100);
        continue;
      }
      const batch = handleBatch(messages, region, eventSourceARN).finally(() => {
        inFlight.delete(batch);
        slotFreed?.();
        slotFreed = undefined;
      });
      inFlight.add(batch);
    }
    while (inFlight.size > 0) await Promise.all(inFlight);
  }

  async function handleBatch(messages: Message[], region: string, eventSourceARN: string): Promise<void> {
    const event: SQSEvent = { Records: messages.map((message) => toRecord(message, region, eventSourceARN)) };
    let failed: ReadonlySet<string> | 'all';
    try {
      const context = createLambdaContext({ functionName, region, timeoutMs });
      // `LOCAL_AWS_CALLS=true`: what each invocation cost is printed, as the x-local-aws-calls header tells for requests.
      const measure = process.env.LOCAL_AWS_CALLS === 'true';
      const scope = options.permissions ? functionCallScope(functionName, options.permissions, measure) : undefined;
      const response = await (scope ? withCallScope(scope, () => handler(event, context)) : handler(event, context));
      if (scope && measure) {
        console.log(`aws-calls ${JSON.stringify({ function: functionName, records: messages.length, ...callTotals(scope) })}`);
      }
      failed = failedMessageIds(response, event);
      if (failed === 'all') {
        logger.error(`${functionName} returned an invalid batch response; the whole batch will be retried`, response);
        options.onInvalidResponse?.(response);
      }
    } catch (error) {
      logger.error(`${functionName} failed; the whole batch of ${messages.length} will be retried`, error);
      failed = 'all';
    }
    if (failed === 'all') return;
    const done = messages.filter((message) => !failed.has(message.MessageId ?? ''));
    if (done.length > 0) await deleteMessages(done);
  }

  async function deleteMessages(messages: Message[]): Promise<void> {
    for (let start = 0; start < messages.length; start += 10) {
      const chunk = messages.slice(start, start + 10);
      try {
        const result = await sqsClient.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: chunk.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
          }),
        );
        if (result.Failed?.length) {
          logger.warn(`Deleting ${result.Failed.length} handled messages from ${queueName} failed; they will be delivered again`, result.Failed);
        }
      } catch (error) {
        logger.warn(`Deleting handled messages from ${queueName} failed; they will be delivered again`, error);
      }
    }
  }

  async function lookUpQueueArn(region: string): Promise<string> {
    try {
      const { Attributes } = await sqsClient.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
      if (Attributes?.QueueArn) return Attributes.QueueArn;
    } catch (error) {
      logger.warn(`Could not look up the ARN of ${queueName}; deriving it from the URL`, error);
    }
    return `arn:aws:sqs:${region}:${localAccountId}:${queueName}`;
  }

  const polling = poll().catch((error: unknown) => logger.error(`Polling ${queueName} stopped unexpectedly`, error));

  return {
    async stop() {
      stopping = true;
      receiving?.abort();
      wakeFromPause?.();
      slotFreed?.();
      await polling;
    },
  };
}

/**
 * Lambda's reading of a batch response: nothing or no `batchItemFailures` means every message succeeded;
 * an entry without a valid `itemIdentifier` of this batch means the whole batch failed.
 */
function failedMessageIds(response: unknown, event: SQSEvent): ReadonlySet<string> | 'all' {
  if (response === undefined || response === null) return new Set();
  if (typeof response !== 'object') return 'all';
  const failures = (response as Partial<SQSBatchResponse>).batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return 'all';
  const batchIds = new Set(event.Records.map((record) => record.messageId));
  const failed = new Set<string>();
  for (const failure of failures as unknown[]) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !batchIds.has(id)) return 'all';
    failed.add(id);
  }
  return failed;
}

function toRecord(message: Message, awsRegion: string, eventSourceARN: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  const record: SQSRecord = {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ...(attributes as Partial<SQSRecordAttributes>),
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? localAccountId,
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: toLambdaMessageAttributes(message.MessageAttributes ?? {}),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN,
    awsRegion,
  };
  if (message.MD5OfMessageAttributes) record.md5OfMessageAttributes = message.MD5OfMessageAttributes;
  return record;
}

/** SQS's `{ StringValue, BinaryValue: bytes }` becomes Lambda's `{ stringValue, binaryValue: base64, ... }`. */
function toLambdaMessageAttributes(attributes: Record<string, MessageAttributeValue>): SQSMessageAttributes {
  const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      {
        ...(value.StringValue !== undefined && { stringValue: value.StringValue }),
        ...(value.BinaryValue !== undefined && { binaryValue: base64(value.BinaryValue) }),
        stringListValues: value.StringListValues ?? [],
        binaryListValues: (value.BinaryListValues ?? []).map(base64),
        dataType: value.DataType ?? 'String',
      },
    ]),
  );
}
