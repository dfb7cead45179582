import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createLambdaContext } from '#local/lambda-context.ts';
import { sqsBatchHandler } from '#shared/messaging/sqs-batch-handler.ts';

const record = (messageId: string): SQSRecord => ({
  messageId,
  receiptHandle: `receipt-${messageId}`,
  body: JSON.stringify({ id: messageId }),
  attributes: { ApproximateReceiveCount: '1', SentTimestamp: '0', SenderId: 'local', ApproximateFirstReceiveTimestamp: '0' },
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:deliveries',
  awsRegion: 'us-east-1',
});
const batch = (...ids: string[]): SQSEvent => ({ Records: ids.map(record) });
const context = () => createLambdaContext({ functionName: 'deliverEvent' });

describe('SQS batch handler', () => {
  it('answers each of two invocations in flight at once with its own failed messages only', async () => {
    // Given a record handler under which a1 fails only once the second invocation has been answered, and b1 fails at once
    let secondAnswered!: () => void;
    const afterSecond = new Promise<void>((resolve) => (secondAnswered = resolve));
    const handler = sqsBatchHandler(async ({ messageId }) => {
      if (messageId === 'a1') {
        await afterSecond;
        throw new Error('a1 failed');
      }
      if (messageId === 'b1') throw new Error('b1 failed');
    });

    // When two batches are handled at once, as a local poller running several batches through one module does
    const first = handler(batch('a1', 'a2'), context());
    const second = await handler(batch('b1', 'b2'), context());
    secondAnswered();

    // Then each answer names only its own batch's failure, which is all Lambda accepts in an answer
    expect(second).toEqual({ batchItemFailures: [{ itemIdentifier: 'b1' }] });
    expect(await first).toEqual({ batchItemFailures: [{ itemIdentifier: 'a1' }] });
  });

  it('reports no failures for a batch whose records all succeed', async () => {
    // Given a record handler that succeeds on every record
    const handled: string[] = [];
    const handler = sqsBatchHandler(async ({ messageId }) => void handled.push(messageId));

    // When a batch of three is handled
    const answer = await handler(batch('m1', 'm2', 'm3'), context());

    // Then every record was handled and none is reported failed
    expect(handled.sort()).toEqual(['m1', 'm2', 'm3']);
    expect(answer).toEqual({ batchItemFailures: [] });
  });
});
