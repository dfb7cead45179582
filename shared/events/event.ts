import type { IdempotencyReceipt } from '#shared/platform/ports.ts';
import type { Scope } from '#shared/platform/types.ts';

/** What an event is about: `{id, type, url}` as thin events show it. */
export interface RelatedObject {
  id: string;
  type: string;
  url: string;
}

/** The API request that caused an event. */
export interface RequestReason {
  id: string;
  idempotencyKey: string | null;
}

/** Where and why events happen: the acting account (scope), its platform, and the request. */
export interface EventOrigin {
  scope: Scope;
  /** The platform that owns the destinations and endpoints events fan out to. */
  platformId: string;
  request: RequestReason | null;
  /** The version snapshot events are recorded with (the request's `Service-Version`). */
  apiVersion: string;
  /** A create whose Idempotency-Key is kept with the event that answers it (routes declaring `idempotency: { answeredBy }`). */
  receipt?: ReceiptRequest;
}

/**
 * What the request pipeline asks of the change a create makes: write the key's receipt in the same
 * transaction as the event of type `answeredBy`, whose object is the success body.
 */
export interface ReceiptRequest {
  answeredBy: string;
  /** The receipt, but for the event it points at. */
  draft: Omit<IdempotencyReceipt, 'event'>;
  /**
   * Set by each `prepare` that found the event: the event's object, and the receipt that went into the
   * outbox (`written` once its transaction committed). The pipeline answers from the operation's own
   * result and checks it against this object (an operation that answers with another object than its
   * event's keeps its response with one more put).
   */
  prepared?: { object: Record<string, unknown>; receipt: IdempotencyReceipt };
}

/** A thin (v2) event as stored; kept 30 days. */
export interface ThinEvent {
  id: string;
  scope: Scope;
  platformId: string;
  type: string;
  created: number;
  relatedObject: RelatedObject | null;
  changes: { before: unknown; after: unknown } | null;
  data: Record<string, unknown> | null;
  reason: RequestReason | null;
  /** The snapshot event emitted with this one, for `v1.*` mirrors. */
  snapshotEventId: string | null;
  /** Its deliveries, as read back from the table (absent on the event as emitted). */
  deliveryIds?: string[];
}

/** A snapshot (v1) event as stored; kept 30 days. */
export interface SnapshotEvent {
  id: string;
  scope: Scope;
  platformId: string;
  type: string;
  created: number;
  apiVersion: string;
  /** The object exactly as a GET of it returned it when the event happened. */
  object: Record<string, unknown>;
  previousAttributes: Record<string, unknown> | null;
  request: RequestReason | null;
  /** Deliveries of this event not yet done. */
  pendingWebhooks: number;
  /** Deliveries of this event that gave up. */
  failedWebhooks: number;
  /** Its deliveries, as read back from the table (absent on the event as emitted). */
  deliveryIds?: string[];
}

export type EventKind = 'thin' | 'snapshot';

export interface EventRef {
  kind: EventKind;
  scope: Scope;
  id: string;
}

export type DestinationKind = 'event_destination' | 'webhook_endpoint';

export interface DestinationRef {
  kind: DestinationKind;
  /** The platform scope the destination belongs to. */
  scope: Scope;
  id: string;
  /**
   * The destination's version when the event was fanned out to it. The delivery worker may use a copy of
   * the destination it read lately, but never one older than this. Absent on records from before it existed.
   */
  version?: number;
}

export interface AttemptRecord {
  at: number;
  outcome: 'delivered' | 'failed';
  status: number | null;
  durationMs: number;
  error: string | null;
  /** The start of the receiver's response body (a few hundred bytes; never the request or a secret); absent on older records. */
  responseExcerpt?: string | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** Why a delivery was cancelled without an attempt, found when it came due. */
export type CancelReason = 'destination_deleted' | 'destination_disabled' | 'destination_has_no_target' | 'event_expired';

/** Deliveries an event may have, fan-out, pings and resends together; a resend beyond it is refused. */
export const maxDeliveriesPerEvent = 100;

/** Events are kept 30 days, deliveries as long as their events. */
export const eventRetentionMillis = 30 * 24 * 60 * 60 * 1000;

/** One event on its way to one destination: written by the event's fan-out (a ping's, with the ping). */
export interface Delivery {
  id: string;
  event: EventRef;
  destination: DestinationRef;
  /** A ping or a resend goes to its destination whatever the destination's status and subscriptions. */
  explicit: boolean;
  /** Sent again by hand (`POST /v1/events/:id/retry`, `POST /v2/service/events/:id/resend`): one attempt, never retried. */
  resend?: boolean;
  /** The event's type (absent on records from before it was kept). */
  eventType?: string;
  /** Why it was cancelled, when it was. */
  cancelReason?: CancelReason;
  status: DeliveryStatus;
  attempts: AttemptRecord[];
  /** When the next attempt is due; null once the delivery is finished. */
  nextAttemptAt: number | null;
  created: number;
  /** Times the sweeper re-queued it since its last recorded attempt (a worker that keeps failing on it). */
  sweeps?: number;
}

/**
 * The events of one change still to be fanned out to the platform's subscribers: written with the change
 * (its record is the promise that the fan-out happens), carried by one queue message, and turned into
 * deliveries by the deliveries worker, which removes the record in the same transaction.
 */
export interface FanOut {
  id: string;
  /** The platform (and mode) whose destinations and endpoints the events go to. */
  platform: Scope;
  /** `@self` or `@accounts`: where the events happened, as subscribers filter it. */
  source: string;
  /** Each event with its type, and the id of the object it reports created, if it does (a subscriber is not told of its own creation). */
  events: Array<{ ref: EventRef; type: string; creates: string | null }>;
  created: number;
  /** Times the sweeper re-queued it (a worker that keeps failing on it). */
  sweeps?: number;
}

/** Everything one change writes besides itself: its events, their fan-out, and explicit deliveries (a ping). */
export interface Outbox {
  thinEvents: ThinEvent[];
  snapshotEvents: SnapshotEvent[];
  deliveries: Delivery[];
  fanOut: FanOut | null;
  /** The Idempotency-Key's receipt of the create this change is (see `ReceiptRequest`). */
  receipt?: IdempotencyReceipt;
}

/** A change as a capability reports it to the emitter. */
export type EventInput =
  | {
      kind: 'snapshot';
      type: string;
      /** The object as its GET renders it. */
      object: Record<string, unknown>;
      previousAttributes?: Record<string, unknown>;
      relatedObject: RelatedObject;
    }
  | {
      kind: 'thin';
      type: string;
      relatedObject: RelatedObject | null;
      changes?: { before: unknown; after: unknown } | null;
      data?: Record<string, unknown> | null;
      /** Deliver to this destination only (a ping), instead of fanning out. */
      only?: DestinationRef;
    };

/** How a destination or v1 webhook endpoint subscribes, as the fan-out sees it. */
export interface Subscriber {
  ref: DestinationRef;
  payload: EventKind;
  enabled: boolean;
  /** Event types, or `*` for every snapshot type (v1 endpoints). */
  enabledEvents: string[];
  /** `@self`, `@accounts`, `@organization_members`, `@organization_members/@accounts`. */
  eventsFrom: string[];
  /** When the destination or endpoint was created: it receives the events of changes made from then on. */
  created: number;
}

export const emptyOutbox = (): Outbox => ({ thinEvents: [], snapshotEvents: [], deliveries: [], fanOut: null });
