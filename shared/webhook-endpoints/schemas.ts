import * as z from 'zod';
import { isServiceVersion, unknownVersionMessage } from '#shared/wire/api-version.ts';
import { isSnapshotEventType } from '#shared/events/subscribable.ts';
import { booleanParam, emptyable, expandParam, metadataParam, stringParam, v1ListParams } from '#shared/wire/params.ts';

const enabledEvent = z.string().refine((type) => type === '*' || isSnapshotEventType(type), {
  error: (issue) => `'${String(issue.input)}' is not an event type; use '*' or one of the documented types.`,
});

const enabledEvents = z.array(enabledEvent).min(1, 'at least one event type is required').max(250);

const url = z.string().min(1, 'the url cannot be empty').max(2048).describe('The URL of the webhook endpoint.');

export const createWebhookEndpointParams = z.strictObject({
  url,
  enabled_events: enabledEvents.describe(
    "The list of events to enable for this endpoint. You may specify `['*']` to enable all events, except those that require explicit selection.",
  ),
  api_version: z
    .string()
    .refine(isServiceVersion, { error: (issue) => unknownVersionMessage(String(issue.input)) })
    .optional()
    .describe("Events sent to this endpoint will be generated with this API version instead of your account's default API version."),
  connect: booleanParam().optional().describe('Whether this endpoint should receive events from connected accounts (`true`), or from your account (`false`).'),
  description: emptyable(stringParam()).optional().describe('An optional description of what the webhook is used for.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export const updateWebhookEndpointParams = z.strictObject({
  url: url.optional().describe('The URL of the webhook endpoint.'),
  enabled_events: enabledEvents
    .optional()
    .describe("The list of events to enable for this endpoint. You may specify `['*']` to enable all events, except those that require explicit selection."),
  description: emptyable(stringParam()).optional().describe('An optional description of what the webhook is used for.'),
  disabled: booleanParam().optional().describe('Disable the webhook endpoint if set to true.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export const retrieveWebhookEndpointParams = z.strictObject({
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export const listWebhookEndpointsParams = z.strictObject(v1ListParams);

export const deleteWebhookEndpointParams = z.strictObject({});

export type CreateWebhookEndpointParams = z.output<typeof createWebhookEndpointParams>;
export type UpdateWebhookEndpointParams = z.output<typeof updateWebhookEndpointParams>;
