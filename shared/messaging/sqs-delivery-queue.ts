import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { serviceClients } from '#shared/sdk-clients.ts';
import type { DeliveryMessage, DeliveryQueue } from '#shared/events/ports.ts';

const maxDelaySeconds = 900;

/** SQS adapter for the deliveries queue: batches of 10, failures surfaced (the sweeper covers what is lost). */
export function sqsDeliveryQueue(queueUrl: string, sqs: SQSClient = serviceClients.sqs()): DeliveryQueue {
  return {
    async enqueue(messages: DeliveryMessage[], delaySeconds = 0) {
      const delay = Math.max(0, Math.min(maxDelaySeconds, Math.round(delaySeconds)));
      for (let start = 0; start < messages.length; start += 10) {
        const batch = messages.slice(start, start + 10);
        const { Failed = [] } = await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((message, index) => ({ Id: String(index), MessageBody: JSON.stringify(message), DelaySeconds: delay })),
          }),
        );
        if (Failed.length > 0) throw new Error(`SQS refused ${Failed.length} delivery messages: ${Failed[0]!.Message ?? Failed[0]!.Code}`);
      }
    },
  };
}
