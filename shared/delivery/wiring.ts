import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { meterAwsCalls } from '#shared/aws-calls.ts';
import { config } from '#shared/config.ts';
import { countMetric, traced } from '#shared/observability.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoDeliveryRepository } from '#shared/data/delivery-repository.ts';
import { dynamoEventDestinationRepository } from '#shared/data/event-destination-repository.ts';
import { dynamoEventRepository } from '#shared/data/event-repository.ts';
import { dynamoWebhookEndpointRepository } from '#shared/data/webhook-endpoint-repository.ts';
import { sqsDeliveryQueue } from '#shared/messaging/sqs-delivery-queue.ts';
import { deliveryOutcomeMetrics, deliveryService } from './delivery-service.ts';
import { eventBridgePublisher } from './eventbridge-publisher.ts';
import { eventGridSender } from './event-grid-sender.ts';
import { webhookSender } from './webhook-sender.ts';

/** A warm worker reads a destination at most once a second (see `targetRecentMillis`). */
const deliveryTargetRecentMillis = 1_000;

/** The delivery service on its real adapters; the worker and the sweeper call this once at cold start. */
export function wireDeliveryService() {
  const settings = config();
  const table = serviceTable();
  if (!settings.DELIVERIES_QUEUE_URL) throw new Error('Invalid configuration: DELIVERIES_QUEUE_URL is required to deliver events');
  const eventBridge = settings.EVENT_BUS_NAME
    ? eventBridgePublisher({
        client: traced(meterAwsCalls(new EventBridgeClient({ region: settings.AWS_REGION, endpoint: settings.EVENTBRIDGE_ENDPOINT }), 'events')),
        busName: settings.EVENT_BUS_NAME,
      })
    : undefined;
  const eventGrid = settings.CLOUDTWO_EVENT_GRID_ENDPOINT
    ? eventGridSender({ endpoint: settings.CLOUDTWO_EVENT_GRID_ENDPOINT, timeoutMs: settings.DELIVERY_TIMEOUT_MS })
    : undefined;
  return deliveryService({
    deliveries: dynamoDeliveryRepository(table),
    events: dynamoEventRepository(table),
    destinations: dynamoEventDestinationRepository(table),
    endpoints: dynamoWebhookEndpointRepository(table),
    queue: sqsDeliveryQueue(settings.DELIVERIES_QUEUE_URL),
    webhooks: webhookSender({ timeoutMs: settings.DELIVERY_TIMEOUT_MS, egress: { allowPrivateInTestMode: settings.WEBHOOK_ALLOW_PRIVATE_TARGETS } }),
    eventBridge,
    eventGrid,
    retrySchedule: { test: settings.DELIVERY_RETRY_SCHEDULE_TEST, live: settings.DELIVERY_RETRY_SCHEDULE_LIVE },
    sweepGraceMillis: settings.SWEEP_GRACE_SECONDS * 1000,
    targetRecentMillis: deliveryTargetRecentMillis,
    outcomes: { count: (outcome) => countMetric(deliveryOutcomeMetrics[outcome]) },
  });
}
