import * as z from 'zod';
import { isoTime, openObject, unixTime } from '#shared/wire/objects.ts';

const relatedObject = z.object({
  id: z.string().describe('Unique identifier for the object.'),
  type: z.string().describe('Description of the event (for example, `invoice.created` or `charge.refunded`).'),
  url: z.string().describe('URL to retrieve the resource.'),
});

export const thinEventObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('v2.core.event').describe("String representing the object's type. Objects of the same type share the same value."),
    changes: z
      .object({ before: z.unknown().describe('The changed fields before the change.'), after: z.unknown().describe('The changed fields after the change.') })
      .nullable()
      .describe('Before and after changes for the primary related object.'),
    /** The connected account the event happened in; null for the platform's own. */
    context: z
      .string()
      .nullable()
      .describe(
        "Authentication context needed to fetch the event or related object. The connected account the event happened in; null for the platform's own.",
      ),
    created: isoTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    data: openObject.nullable().describe("The event's data, as the event's type defines it."),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    reason: z
      .object({
        type: z.literal('request').describe('Event reason type.'),
        request: z
          .object({
            id: z
              .string()
              .describe("ID of the API request that caused the event. If null, the event was automatic (e.g., the service's automatic subscription handling)."),
            idempotency_key: z.string().describe("The idempotency key transmitted during the request: `''` when the request sent no `Idempotency-Key`."),
          })
          .describe('Information on the API request that instigated the event.'),
      })
      .nullable()
      .describe('Reason for the event.'),
    related_object: relatedObject.nullable().describe('Object containing the reference to API resource relevant to the event.'),
    /** The v1 event of a `v1.*` thin event. */
    snapshot_event: z
      .string()
      .optional()
      .describe('For thin events with a corresponding snapshot event, this is the snapshot event ID. The v1 event of a `v1.*` thin event.'),
    type: z.string().describe('Description of the event (for example, `invoice.created` or `charge.refunded`).'),
  })
  .meta({ id: 'V2CoreEvent' });

/** What a thin destination receives: the event without `data`, `changes` or `reason`. */
export const thinNotificationObject = thinEventObject.pick({
  id: true,
  object: true,
  context: true,
  created: true,
  livemode: true,
  related_object: true,
  type: true,
});

export const snapshotEventObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('event').describe("String representing the object's type. Objects of the same type share the same value."),
    account: z.string().optional().describe('The connected account that originates the event.'),
    context: z.string().optional().describe('Authentication context needed to fetch the event or related object.'),
    api_version: z.string().describe('The API version used to render `data` when the event was created.'),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    data: z
      .object({
        object: openObject.describe('Object containing the API resource relevant to the event.'),
        previous_attributes: openObject
          .optional()
          .describe('Object containing the names of the updated attributes and their values prior to the event (only included in events of type `*.updated`).'),
      })
      .describe(
        'The object the event is about, as it was when the event happened (`data.object`), and for `*.updated` events the values it had before (`data.previous_attributes`).',
      ),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    pending_webhooks: z
      .int()
      .describe("Number of webhooks that haven't been successfully delivered (for example, to return a 20x response) to the URLs you specify."),
    request: z
      .object({
        id: z
          .string()
          .nullable()
          .describe("ID of the API request that caused the event. If null, the event was automatic (e.g., the service's automatic subscription handling)."),
        idempotency_key: z
          .string()
          .nullable()
          .describe('The idempotency key transmitted during the request, if any. *Note: This property is populated only for events on or after May 23, 2017*.'),
      })
      .describe('Information on the API request that triggers the event.'),
    type: z.string().describe('Description of the event (for example, `invoice.created` or `charge.refunded`).'),
  })
  .meta({ id: 'Event' });
