import * as z from 'zod';
import { isServiceVersion, unknownVersionMessage } from '#shared/http/api-version.ts';
import { isSnapshotEventType } from '#shared/events/catalogue.ts';
import { booleanParam, emptyable, expandParam, metadataParam, stringParam, v1ListParams } from '#shared/http/params.ts';

const enabledEvent = z.string().refine((type) => type === '*' || isSnapshotEventType(type), {
  error: (issue) => `'${String(issue.input)}' is not an event type; use '*' or one of the documented types.`,
});

const enabledEvents = z.array(enabledEvent).min(1, 'at least one event type is required').max(250);

const url = z.string().min(1, 'the url cannot be empty').max(2048);

export const createWebhookEndpointParams = z.strictObject({
  url,
  enabled_events: enabledEvents,
  api_version: z
    .string()
    .refine(isServiceVersion, { error: (issue) => unknownVersionMessage(String(issue.input)) })
    .optional(),
  connect: booleanParam().optional(),
  description: emptyable(stringParam()).optional(),
  metadata: metadataParam().optional(),
  expand: expandParam().optional(),
});

export const updateWebhookEndpointParams = z.strictObject({
  url: url.optional(),
  enabled_events: enabledEvents.optional(),
  description: emptyable(stringParam()).optional(),
  disabled: booleanParam().optional(),
  metadata: metadataParam().optional(),
  expand: expandParam().optional(),
});

export const retrieveWebhookEndpointParams = z.strictObject({ expand: expandParam().optional() });

export const listWebhookEndpointsParams = z.strictObject(v1ListParams);

export const deleteWebhookEndpointParams = z.strictObject({});

export type CreateWebhookEndpointParams = z.output<typeof createWebhookEndpointParams>;
export type UpdateWebhookEndpointParams = z.output<typeof updateWebhookEndpointParams>;
