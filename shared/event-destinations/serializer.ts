import * as z from 'zod';
import { deletedObject, isoTime, metadataObject } from '#shared/http/objects.ts';
import { isoTimestamp } from '#shared/http/timestamps.ts';
import type { DestinationInclude } from './schemas.ts';
import type { EventDestination } from './event-destination.ts';

export const eventDestinationObject = z
  .object({
    id: z.string(),
    object: z.literal('v2.core.event_destination'),
    created: isoTime,
    description: z.string(),
    enabled_events: z.array(z.string()),
    event_payload: z.enum(['thin', 'snapshot']),
    events_from: z.array(z.string()).nullable(),
    livemode: z.boolean(),
    metadata: metadataObject.nullable(),
    name: z.string(),
    snapshot_api_version: z.string().nullable(),
    status: z.enum(['enabled', 'disabled']),
    status_details: z
      .object({ disabled: z.object({ reason: z.enum(['user', 'no_cloudone_event_source_exists', 'no_cloudtwo_partner_topic_exists']) }) })
      .nullable(),
    type: z.enum(['webhook_endpoint', 'cloudone_eventbridge', 'cloudtwo_event_grid']),
    updated: isoTime,
    cloudone_eventbridge: z
      .object({
        cloudone_account_id: z.string(),
        cloudone_event_source_arn: z.string(),
        cloudone_event_source_status: z.enum(['active', 'deleted', 'pending', 'unknown']),
      })
      .nullable(),
    cloudtwo_event_grid: z
      .object({
        cloudtwo_partner_topic_name: z.string(),
        cloudtwo_partner_topic_status: z.enum(['activated', 'deleted', 'never_activated', 'unknown']),
        cloudtwo_region: z.string(),
        cloudtwo_resource_group_name: z.string(),
        cloudtwo_subscription_id: z.string(),
      })
      .nullable(),
    /** `url` and `signing_secret` are null unless named in `include`. */
    webhook_endpoint: z.object({ signing_secret: z.string().nullable(), url: z.string().nullable() }).nullable(),
  })
  .meta({ id: 'V2CoreEventDestination' });

export const deletedEventDestinationObject = deletedObject('v2.core.event_destination').meta({ id: 'V2CoreDeletedEventDestination' });

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
