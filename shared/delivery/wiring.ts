import { cacheTopics, cacheWindows, readThrough, scopedKey } from '#shared/core/cache.ts';
import { systemClock } from '#shared/core/clock.ts';
import { config } from '#shared/core/config.ts';
import { countMetric } from '#shared/core/observability.ts';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { serviceClients } from '#shared/aws/sdk-clients.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoDeliveryStore } from '#shared/data/delivery-store.ts';
import { dynamoEventRepository } from '#shared/data/event-repository.ts';
import { wireEventDestinationRepository } from '#shared/event-destinations/repository-wiring.ts';
import type { EventDestination } from '#shared/event-destinations/event-destination.ts';
import type { DestinationRef } from '#shared/events/event.ts';
import type { WebhookEndpoint } from '#shared/webhook-endpoints/webhook-endpoint.ts';
import { sqsDeliveryQueue } from '#shared/messaging/sqs-delivery-queue.ts';
import { wireQueueSeal } from '#shared/messaging/wiring.ts';
import { wireSecretBox } from '#shared/secrets/wiring.ts';
import { wireWebhookEndpointRepository } from '#shared/webhook-endpoints/wiring.ts';
import { deliveryAttemptsService } from './attempts-service.ts';
import { deliveryOutcomeMetrics, deliveryService } from './delivery-service.ts';
import { eventBridgePublisher } from './eventbridge-publisher.ts';
import { eventGridSender } from './event-grid-sender.ts';
import { webhookSender } from './webhook-sender.ts';

/** The delivery service on its real adapters; the worker and the sweeper call this once at cold start. */
export function wireDeliveryService() {
  const settings = config();
  const table = serviceTable();
  if (!settings.DELIVERIES_QUEUE_URL) throw new Error('Invalid configuration: DELIVERIES_QUEUE_URL is required to deliver events');
  const eventBridge = settings.EVENT_BUS_NAME
    ? eventBridgePublisher({
        client: serviceClients.events((options) => new EventBridgeClient(options)),
        busName: settings.EVENT_BUS_NAME,
      })
    : undefined;
  const eventGrid = settings.CLOUDTWO_EVENT_GRID_ENDPOINT
    ? eventGridSender({ endpoint: settings.CLOUDTWO_EVENT_GRID_ENDPOINT, timeoutMs: settings.DELIVERY_TIMEOUT_MS })
    : undefined;
  const destinations = wireEventDestinationRepository();
  const endpoints = wireWebhookEndpointRepository();
  return deliveryService({
    deliveries: dynamoDeliveryStore(table),
    events: dynamoEventRepository(table),
    destinations,
    // A warm worker reads a target at most once a window (`cacheWindows.deliveryTargets`), never older than the fan-out saw it.
    targets: readThrough(
      (ref: DestinationRef): Promise<EventDestination | WebhookEndpoint | undefined> =>
        ref.kind === 'event_destination' ? destinations.get(ref.scope, ref.id) : endpoints.get(ref.scope, ref.id),
      (ref) => scopedKey(ref.scope, ref.kind, ref.id),
      {
        ttlMillis: cacheWindows.deliveryTargets(),
        accepts: (found, ref) => found !== undefined && found.version >= (ref.version ?? Number.POSITIVE_INFINITY),
        invalidatedBy: [cacheTopics.eventDestinations, cacheTopics.webhookEndpoints],
      },
    ),
    queue: sqsDeliveryQueue(settings.DELIVERIES_QUEUE_URL, wireQueueSeal('deliveries')),
    webhooks: webhookSender({ timeoutMs: settings.DELIVERY_TIMEOUT_MS, egress: { allowPrivateInTestMode: settings.WEBHOOK_ALLOW_PRIVATE_TARGETS } }),
    // Opened secrets are kept for `cacheWindows.openedSecrets`: one KMS Decrypt per secret per warm worker per window.
    secrets: wireSecretBox(),
    eventBridge,
    eventGrid,
    retrySchedule: { test: settings.DELIVERY_RETRY_SCHEDULE_TEST, live: settings.DELIVERY_RETRY_SCHEDULE_LIVE },
    sweepGraceMillis: settings.SWEEP_GRACE_SECONDS * 1000,
    outcomes: { count: (outcome) => countMetric(deliveryOutcomeMetrics[outcome]) },
    clock: systemClock,
  });
}

/** The delivery attempts service (lists and resends) on its real adapters; handlers call this once at module scope. */
export function wireDeliveryAttemptsService() {
  const table = serviceTable();
  const queueUrl = config().DELIVERIES_QUEUE_URL;
  const destinations = wireEventDestinationRepository();
  const endpoints = wireWebhookEndpointRepository();
  return deliveryAttemptsService({
    deliveries: dynamoDeliveryStore(table),
    events: dynamoEventRepository(table),
    destinations: (scope, id) => destinations.get(scope, id),
    endpoints: (scope, id) => endpoints.get(scope, id),
    // Only the resend route sends (its function has the queue's URL and the grant); the list routes never do.
    queue: queueUrl
      ? sqsDeliveryQueue(queueUrl, wireQueueSeal('deliveries'))
      : {
          enqueue: async () => {
            throw new Error('Invalid configuration: DELIVERIES_QUEUE_URL is required to resend events');
          },
        },
    // The one clock every stamp comes from: a resend's delivery and its attempts agree on the local stack's moved clock.
    clock: systemClock,
  });
}
