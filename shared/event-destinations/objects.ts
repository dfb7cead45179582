import * as z from 'zod';
import { deletedObject, isoTime, metadataObject } from '#shared/wire/objects.ts';

export const eventDestinationObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z
      .literal('v2.core.event_destination')
      .describe("String representing the object's type. Objects of the same type share the same value of the object field."),
    created: isoTime.describe('The time when the destination was created.'),
    description: z.string().describe("An optional user-defined description of the destination's purpose."),
    enabled_events: z.array(z.string()).describe('The list of event types enabled for delivery to this destination.'),
    event_payload: z.enum(['thin', 'snapshot']).describe('Whether to deliver as snapshot or thin events.'),
    events_from: z.array(z.string()).nullable().describe("Specifies which accounts' events route to this destination."),
    livemode: z.boolean().describe('Has the value `true` if the object exists in live mode or the value `false` if the object exists in test mode.'),
    metadata: metadataObject.nullable().describe('User-defined key/value data for the destination; it has no effect on event matching or delivery.'),
    name: z.string().describe('A user-defined label for identifying the destination in the service.'),
    snapshot_api_version: z.string().nullable().describe('For snapshot events only, the API version used to render event objects.'),
    status: z
      .enum(['enabled', 'disabled'])
      .describe(
        'Whether the service currently attempts delivery. the service attempts delivery to enabled destinations when their provider configuration is active; disabled destinations do not receive delivery attempts.',
      ),
    status_details: z
      .object({
        disabled: z
          .object({
            reason: z
              .enum(['user', 'no_cloudone_event_source_exists', 'no_cloudtwo_partner_topic_exists'])
              .describe('Reason event destination has been disabled.'),
          })
          .describe('Present when the destination was disabled; identifies the cause, time, and provider-side object involved when available.'),
      })
      .nullable()
      .describe('Additional lifecycle context for the destination status, when available.'),
    type: z
      .enum(['webhook_endpoint', 'cloudone_eventbridge', 'cloudtwo_event_grid'])
      .describe('The delivery transport. Chosen when the destination is created and cannot be changed by update.'),
    updated: isoTime.describe('The time when the destination object was last updated.'),
    cloudone_eventbridge: z
      .object({
        cloudone_account_id: z.string().describe('The CloudOne account id.'),
        cloudone_event_source_arn: z.string().describe('The ARN of the CloudOne event source.'),
        cloudone_event_source_status: z.enum(['active', 'deleted', 'pending', 'unknown']).describe('The state of the CloudOne event source.'),
      })
      .nullable()
      .describe('Configuration for delivering events to CloudOne EventBridge.'),
    cloudtwo_event_grid: z
      .object({
        cloudtwo_partner_topic_name: z.string().describe('The name of the CloudTwo partner topic.'),
        cloudtwo_partner_topic_status: z.enum(['activated', 'deleted', 'never_activated', 'unknown']).describe('The state of the CloudTwo partner topic.'),
        cloudtwo_region: z.string().describe('The CloudTwo region.'),
        cloudtwo_resource_group_name: z.string().describe('The name of the CloudTwo resource group.'),
        cloudtwo_subscription_id: z.string().describe('The CloudTwo subscription id.'),
      })
      .nullable()
      .describe('Configuration for delivering events to CloudTwo Event Grid.'),
    /** `url` and `signing_secret` are null unless named in `include`. */
    webhook_endpoint: z
      .object({
        signing_secret: z.string().nullable().describe('The secret used to verify the service signatures on delivered events.'),
        url: z.string().nullable().describe('The URL where the service sends matching events. Live mode requires HTTPS; sandbox mode also supports HTTP.'),
      })
      .nullable()
      .describe('Configuration for delivering events to a webhook endpoint. `url` and `signing_secret` are null unless named in `include`.'),
  })
  .meta({ id: 'V2CoreEventDestination' });

export const deletedEventDestinationObject = deletedObject('v2.core.event_destination').meta({ id: 'V2CoreDeletedEventDestination' });
