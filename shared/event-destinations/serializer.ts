import type * as z from 'zod';
import { isoTimestamp } from '#shared/wire/timestamps.ts';
import type { DestinationInclude } from './schemas.ts';
import type { EventDestination } from './event-destination.ts';
import type { eventDestinationObject, deletedEventDestinationObject } from './objects.ts';

/**
 * The v2 object. `webhook_endpoint.url` and `.signing_secret` are null unless named in `include`
 * (the secret can only be included on create, which the request schemas enforce).
 */
export function serializeEventDestination(destination: EventDestination, include: readonly DestinationInclude[] = []): z.input<typeof eventDestinationObject> {
  const webhook = destination.webhookEndpoint;
  const cloudone = destination.cloudoneEventbridge;
  const cloudtwo = destination.cloudtwoEventGrid;
  return {
    id: destination.id,
    object: 'v2.core.event_destination',
    created: isoTimestamp(destination.created),
    description: destination.description,
    enabled_events: destination.enabledEvents,
    event_payload: destination.eventPayload,
    events_from: destination.eventsFrom?.map((value) => (value === '@self' ? 'self' : value)) ?? null,
    livemode: destination.scope.livemode,
    metadata: destination.metadata,
    name: destination.name,
    snapshot_api_version: destination.snapshotApiVersion,
    status: destination.status,
    status_details: destination.disabledReason ? { disabled: { reason: destination.disabledReason } } : null,
    type: destination.type,
    updated: isoTimestamp(destination.updated),
    cloudone_eventbridge: cloudone
      ? {
          cloudone_account_id: cloudone.accountId,
          cloudone_event_source_arn: cloudone.eventSourceArn,
          cloudone_event_source_status: cloudone.eventSourceStatus,
        }
      : null,
    cloudtwo_event_grid: cloudtwo
      ? {
          cloudtwo_partner_topic_name: cloudtwo.partnerTopicName,
          cloudtwo_partner_topic_status: cloudtwo.partnerTopicStatus,
          cloudtwo_region: cloudtwo.region,
          cloudtwo_resource_group_name: cloudtwo.resourceGroupName,
          cloudtwo_subscription_id: cloudtwo.subscriptionId,
        }
      : null,
    webhook_endpoint: webhook
      ? {
          signing_secret: include.includes('webhook_endpoint.signing_secret') ? webhook.signingSecret : null,
          url: include.includes('webhook_endpoint.url') ? webhook.url : null,
        }
      : null,
  };
}

export const serializeDeletedEventDestination = (id: string): z.input<typeof deletedEventDestinationObject> => ({
  id,
  object: 'v2.core.event_destination',
  deleted: true,
});
