import * as z from 'zod';
import { integerParam, v2MetadataParam, v2MetadataPatchParam } from '#shared/wire/params.ts';

const includeUrl = z.enum(['webhook_endpoint.url'], {
  error: (issue) =>
    issue.input === 'webhook_endpoint.signing_secret'
      ? 'webhook_endpoint.signing_secret can only be included when the destination is created'
      : `'${String(issue.input)}' cannot be included; the only value here is webhook_endpoint.url`,
});
const includeOnCreate = z.enum(['webhook_endpoint.signing_secret', 'webhook_endpoint.url']);

const enabledEvents = z.array(z.string().min(1)).min(1, 'at least one event type is required').max(250);
const name = z.string().min(1, 'the name cannot be empty').max(5000).describe('Event destination name.');
const webhookEndpoint = z.strictObject({
  url: z.string().min(1).max(2048).describe('The URL where the service sends matching events. Live mode requires HTTPS; sandbox mode also supports HTTP.'),
});

/**
 * Where a destination's events come from. The spec's `@organization_members` and
 * `@organization_members/@accounts` need organizations, which this service does not model (each platform
 * stands alone): they are refused rather than accepted to match nothing.
 */
const eventsFromValues = ['@self', '@accounts'] as const;
const eventsFrom = z
  .array(
    z.enum(eventsFromValues, {
      error: (issue) =>
        typeof issue.input === 'string' && issue.input.startsWith('@organization_members')
          ? `'${issue.input}' needs an organization, and this service has no organizations: a destination receives events from @self and @accounts only`
          : undefined,
    }),
  )
  .min(1)
  .max(4);

export const createEventDestinationParams = z.strictObject({
  enabled_events: enabledEvents.describe('The list of event types enabled for delivery to this destination.'),
  event_payload: z.enum(['snapshot', 'thin']).describe('Whether to deliver as snapshot or thin events.'),
  name,
  type: z
    .enum(['cloudone_eventbridge', 'cloudtwo_event_grid', 'webhook_endpoint'])
    .describe('The delivery transport. Chosen when the destination is created and cannot be changed by update.'),
  cloudone_eventbridge: z
    .strictObject({
      cloudone_account_id: z
        .string()
        .regex(/^\d{12}$/, 'must be a 12-digit account id')
        .describe('The CloudOne account id.'),
      cloudone_region: z
        .string()
        .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be a region such as us-east-1')
        .describe('The region of the CloudOne event source.'),
    })
    .optional()
    .describe('Configuration for delivering events to CloudOne EventBridge.'),
  cloudtwo_event_grid: z
    .strictObject({
      cloudtwo_region: z.string().min(1).max(64).describe('The CloudTwo region.'),
      cloudtwo_resource_group_name: z.string().min(1).max(90).describe('The name of the CloudTwo resource group.'),
      cloudtwo_subscription_id: z.string().min(1).max(64).describe('The CloudTwo subscription id.'),
    })
    .optional()
    .describe('Configuration for delivering events to CloudTwo Event Grid.'),
  description: z.string().max(5000).optional().describe("An optional user-defined description of the destination's purpose."),
  events_from: eventsFrom.optional().describe('The account or organization scopes that can supply events.'),
  include: z.array(includeOnCreate).max(4).optional().describe('Include normally redacted webhook fields in the create response.'),
  metadata: v2MetadataParam().optional().describe('User-defined key/value data for the destination.'),
  snapshot_api_version: z
    .string()
    .optional()
    .describe('For snapshot events only, the API version used to render event objects; do not provide this for thin events.'),
  webhook_endpoint: webhookEndpoint.optional().describe('Delivery target for the webhook endpoint. Live mode requires HTTPS; sandbox mode also supports HTTP.'),
});

export const updateEventDestinationParams = z.strictObject({
  description: z.string().max(5000).optional().describe("An optional user-defined description of the destination's purpose; it does not control routing."),
  enabled_events: enabledEvents.optional().describe('The list of event types enabled for delivery to this destination.'),
  include: z.array(includeUrl).max(4).optional().describe('Include the normally redacted `webhook_endpoint.url` in the response.'),
  /** A key set to null is removed. */
  metadata: v2MetadataPatchParam().optional().describe('Metadata. A key set to null is removed.'),
  name: name.optional().describe('A user-defined label for identifying the destination; it does not control routing.'),
  webhook_endpoint: webhookEndpoint
    .optional()
    .describe('New delivery target for the webhook endpoint. Live mode requires HTTPS; sandbox mode also supports HTTP.'),
});

export const retrieveEventDestinationParams = z.strictObject({
  include: z.array(includeUrl).max(4).optional().describe('Include normally redacted webhook fields in the create response.'),
});

export const listEventDestinationsParams = z.strictObject({
  include: z.array(includeUrl).max(4).optional().describe('Include the normally redacted `webhook_endpoint.url` in each returned destination.'),
  limit: integerParam(1, 100).optional().describe('The page size.'),
});

export type CreateEventDestinationParams = z.output<typeof createEventDestinationParams>;
export type UpdateEventDestinationParams = z.output<typeof updateEventDestinationParams>;
export type DestinationInclude = z.output<typeof includeOnCreate>;
