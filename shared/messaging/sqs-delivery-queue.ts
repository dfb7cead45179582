import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { meterAwsCalls } from '#shared/aws-calls.ts';
import { config } from '#shared/config.ts';
import { traced } from '#shared/observability.ts';
import { reusedHandlers, serviceClientOptions, withoutCallLogging } from '#shared/sdk-clients.ts';
import type { DeliveriesQueueMessage, DeliveryQueue } from '#shared/events/ports.ts';
import type { QueueSeal } from './message-seal.ts';

let client: SQSClient | undefined;

/**
 * The SQS client, once per process; locally the endpoint points at the emulator. It only sends, so a call
 * that gets no answer within 10 s fails (and is retried by the SDK) instead of holding up the sends queued
 * behind it.
 */
export function sqsClient(): SQSClient {
  client ??= traced(
    meterAwsCalls(
      withoutCallLogging(
        new SQSClient({
          ...serviceClientOptions(config().SQS_ENDPOINT),
          ...reusedHandlers,
          requestHandler: { requestTimeout: 10_000, throwOnRequestTimeout: true },
        }),
      ),
      'sqs',
    ),
  );
  return client;
}

const maxDelaySeconds = 900;

/**
 * SQS adapter for the deliveries queue: batches of 10, each message sealed (the worker drops what the service
 * did not seal), failures surfaced (the sweeper covers what is lost).
 */
export function sqsDeliveryQueue(queueUrl: string, seal: QueueSeal, sqs: SQSClient = sqsClient()): DeliveryQueue {
  return {
    async enqueue(messages: DeliveriesQueueMessage[], delaySeconds = 0) {
      const delay = Math.max(0, Math.min(maxDelaySeconds, Math.round(delaySeconds)));
      const bodies = await seal.seal(messages.map((message) => JSON.stringify(message)));
      for (let start = 0; start < bodies.length; start += 10) {
        const batch = bodies.slice(start, start + 10);
        const { Failed = [] } = await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((body, index) => ({ Id: String(index), MessageBody: body, DelaySeconds: delay })),
          }),
        );
        if (Failed.length > 0) throw new Error(`SQS refused ${Failed.length} delivery messages: ${Failed[0]!.Message ?? Failed[0]!.Code}`);
      }
    },
  };
}
