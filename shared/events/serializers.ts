import * as z from 'zod';
import { isoTime, openObject, unixTime } from '#shared/http/objects.ts';
import { isoTimestamp, unixSeconds } from '#shared/http/timestamps.ts';
import type { SnapshotEvent, ThinEvent } from './event.ts';
import { snapshotDataAt } from './versions.ts';

const relatedObject = z.object({ id: z.string(), type: z.string(), url: z.string() });

export const thinEventObject = z
  .object({
    id: z.string(),
    object: z.literal('v2.core.event'),
    changes: z.object({ before: z.unknown(), after: z.unknown() }).nullable(),
    /** The connected account the event happened in; null for the platform's own. */
    context: z.string().nullable(),
    created: isoTime,
    data: openObject.nullable(),
    livemode: z.boolean(),
    /** `idempotency_key` is a string, as the reference types it: `''` when the request sent no `Idempotency-Key`. */
    reason: z.object({ type: z.literal('request'), request: z.object({ id: z.string(), idempotency_key: z.string() }) }).nullable(),
    related_object: relatedObject.nullable(),
    /** The v1 event of a `v1.*` thin event. */
    snapshot_event: z.string().optional(),
    type: z.string(),
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
    id: z.string(),
    object: z.literal('event'),
    account: z.string().optional(),
    context: z.string().optional(),
    api_version: z.string(),
    created: unixTime,
    data: z.object({ object: openObject, previous_attributes: openObject.optional() }),
    livemode: z.boolean(),
    pending_webhooks: z.int(),
    request: z.object({ id: z.string().nullable(), idempotency_key: z.string().nullable() }),
    type: z.string(),
  })
  .meta({ id: 'Event' });

/** The account a connected account's event happened in; null for the platform's own events. */
const contextOf = (event: { scope: { accountId: string }; platformId: string }) => (event.scope.accountId === event.platformId ? null : event.scope.accountId);

/** The full v2 event, as `GET /v2/core/events/:id` returns it. */
export function serializeThinEvent(event: ThinEvent): z.input<typeof thinEventObject> {
  return {
    id: event.id,
    object: 'v2.core.event',
    changes: event.changes,
    context: contextOf(event),
    created: isoTimestamp(event.created),
    data: event.data,
    livemode: event.scope.livemode,
    reason: event.reason ? { type: 'request', request: { id: event.reason.id, idempotency_key: event.reason.idempotencyKey ?? '' } } : null,
    related_object: event.relatedObject,
    ...(event.snapshotEventId ? { snapshot_event: event.snapshotEventId } : {}),
    type: event.type,
  };
}

/** What a thin destination receives: enough to fetch the event and the object, nothing versioned. */
export function thinNotification(event: ThinEvent): z.input<typeof thinNotificationObject> {
  return {
    id: event.id,
    object: 'v2.core.event',
    context: contextOf(event),
    created: isoTimestamp(event.created),
    livemode: event.scope.livemode,
    related_object: event.relatedObject,
    type: event.type,
  };
}

/**
 * The v1 event rendered at a version, and saying which in `api_version`: a destination's or endpoint's
 * pinned version, the version a caller names, else the version of the request that caused the event (the
 * default version when it named none). Its object is stored as that request saw it and re-rendered.
 */
export function serializeSnapshotEvent(event: SnapshotEvent, version: string = event.apiVersion): z.input<typeof snapshotEventObject> {
  const context = contextOf(event);
  const data = snapshotDataAt(event.object, event.previousAttributes, version);
  return {
    id: event.id,
    object: 'event',
    ...(context ? { account: context, context } : {}),
    api_version: version,
    created: unixSeconds(event.created),
    data: { object: data.object, ...(data.previous ? { previous_attributes: data.previous } : {}) },
    livemode: event.scope.livemode,
    pending_webhooks: event.pendingWebhooks,
    request: { id: event.request?.id ?? null, idempotency_key: event.request?.idempotencyKey ?? null },
    type: event.type,
  };
}
