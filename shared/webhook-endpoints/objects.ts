import * as z from 'zod';
import { deletedObject, metadataObject, unixTime } from '#shared/wire/objects.ts';

export const webhookEndpointObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('webhook_endpoint').describe("String representing the object's type. Objects of the same type share the same value."),
    api_version: z.string().nullable().describe('The API version that events are rendered as for this webhook endpoint.'),
    application: z.string().nullable().describe('The ID of the associated Connect application.'),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    description: z.string().nullable().describe('An optional description of what the webhook is used for.'),
    enabled_events: z
      .array(z.string())
      .describe("The list of events to enable for this endpoint. `['*']` indicates that all events are enabled, except those that require explicit selection."),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    /** Only in the create response. */
    secret: z.string().optional().describe("The endpoint's secret, used to generate webhook signatures. Only in the create response."),
    status: z.enum(['enabled', 'disabled']).describe('The status of the webhook. It can be `enabled` or `disabled`.'),
    url: z.string().describe('The URL of the webhook endpoint.'),
  })
  .meta({ id: 'WebhookEndpoint' });

export const deletedWebhookEndpointObject = deletedObject('webhook_endpoint').meta({ id: 'DeletedWebhookEndpoint' });
