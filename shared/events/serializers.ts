import type * as z from 'zod';
import { isoTimestamp, unixSeconds } from '#shared/wire/timestamps.ts';
import type { SnapshotEvent, ThinEvent } from './event.ts';
import { snapshotDataAt } from './versions.ts';
import type { thinEventObject, thinNotificationObject, snapshotEventObject } from './objects.ts';

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
