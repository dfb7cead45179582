import * as z from 'zod';
import { integerParam } from '#shared/http/params.ts';

const includeUrl = z.enum(['webhook_endpoint.url'], {
  error: (issue) =>
    issue.input === 'webhook_endpoint.signing_secret'
      ? 'webhook_endpoint.signing_secret can only be included when the destination is created'
      : `'${String(issue.input)}' cannot be included; the only value here is webhook_endpoint.url`,
});
const includeOnCreate = z.enum(['webhook_endpoint.signing_secret', 'webhook_endpoint.url']);

const metadata = z.record(z.string().min(1).max(40), z.string().max(500)).refine((map) => Object.keys(map).length <= 50, 'metadata can have at most 50 keys');
const enabledEvents = z.array(z.string().min(1)).min(1, 'at least one event type is required').max(250);
const name = z.string().min(1, 'the name cannot be empty').max(5000);
const webhookEndpoint = z.strictObject({ url: z.string().min(1).max(2048) });

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
  enabled_events: enabledEvents,
  event_payload: z.enum(['snapshot', 'thin']),
  name,
  type: z.enum(['cloudone_eventbridge', 'cloudtwo_event_grid', 'webhook_endpoint']),
  cloudone_eventbridge: z
    .strictObject({
      cloudone_account_id: z.string().regex(/^\d{12}$/, 'must be a 12-digit account id'),
      cloudone_region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be a region such as us-east-1'),
    })
    .optional(),
  cloudtwo_event_grid: z
    .strictObject({
      cloudtwo_region: z.string().min(1).max(64),
      cloudtwo_resource_group_name: z.string().min(1).max(90),
      cloudtwo_subscription_id: z.string().min(1).max(64),
    })
    .optional(),
  description: z.string().max(5000).optional(),
  events_from: eventsFrom.optional(),
  include: z.array(includeOnCreate).max(4).optional(),
  metadata: metadata.optional(),
  snapshot_api_version: z.string().optional(),
  webhook_endpoint: webhookEndpoint.optional(),
});

export const updateEventDestinationParams = z.strictObject({
  description: z.string().max(5000).optional(),
  enabled_events: enabledEvents.optional(),
  include: z.array(includeUrl).max(4).optional(),
  /** A key set to null is removed. */
  metadata: z
    .record(z.string().min(1).max(40), z.string().max(500).nullable())
    .refine((map) => Object.keys(map).length <= 50, 'metadata can have at most 50 keys')
    .optional(),
  name: name.optional(),
  webhook_endpoint: webhookEndpoint.optional(),
});

export const retrieveEventDestinationParams = z.strictObject({ include: z.array(includeUrl).max(4).optional() });

export const listEventDestinationsParams = z.strictObject({
  include: z.array(includeUrl).max(4).optional(),
  limit: integerParam(1, 100).optional(),
});

export type CreateEventDestinationParams = z.output<typeof createEventDestinationParams>;
export type UpdateEventDestinationParams = z.output<typeof updateEventDestinationParams>;
export type DestinationInclude = z.output<typeof includeOnCreate>;
