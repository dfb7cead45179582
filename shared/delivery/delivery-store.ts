import type { AttemptRecord, CancelReason, Delivery, DeliveryStatus } from '#shared/events/event.ts';
import type { Page } from '#shared/wire/paging.ts';
import type { Scope } from '#shared/platform/types.ts';

/** The outcome of handling a delivery, as written back to its record. */
export interface DeliveryUpdate {
  status: DeliveryStatus;
  /** Null when the delivery is finished. */
  nextAttemptAt: number | null;
  attempt: AttemptRecord | null;
  /** For snapshot events: settle `pending_webhooks` (and count a give-up) when the delivery finishes. */
  settleSnapshotEvent: { failed: boolean } | null;
  /** Why a delivery is cancelled (with status `cancelled` only). */
  cancelReason?: CancelReason;
}

/** One page of a destination's deliveries, and where the next one starts (opaque; a storage position). */
export interface DeliveryPage extends Page<Delivery> {
  next: string | undefined;
}

/** What a resend's write found: written, the event gone, or the event at {@link maxDeliveriesPerEvent}. */
export type ResendWrite = 'created' | 'event_missing' | 'too_many';

/** Storage port for delivery (outbox) records. */
export interface DeliveryStore {
  get(id: string): Promise<Delivery | undefined>;
  /**
   * Writes the outcome if the record is still pending with the attempts the caller saw (so a duplicate
   * message cannot record twice); false otherwise.
   */
  update(delivery: Delivery, update: DeliveryUpdate): Promise<boolean>;
  /** Pending deliveries that were due at or before `dueBy`, oldest first, at most `limit` per call. */
  overdue(dueBy: number, limit: number): Promise<Delivery[]>;
  /**
   * Moves a pending delivery's due time from `from` to `to` and counts the sweep (the sweeper's claim);
   * false if it changed meanwhile. Recording an attempt (`update`) sets the count back to zero.
   */
  reschedule(delivery: Delivery, to: number): Promise<boolean>;
  /** The deliveries with these ids (those that exist), in one read. */
  getMany(ids: string[]): Promise<Delivery[]>;
  /**
   * A destination's or endpoint's deliveries, grouped by status (pending, failed, delivered, cancelled), each
   * group newest first; only `status`'s when given. One query per page; `after` is a page's `next`.
   */
  listByDestination(destination: { scope: Scope; id: string }, query: { status?: DeliveryStatus; limit: number; after?: string }): Promise<DeliveryPage>;
  /**
   * Writes a resend's delivery and links it to its event (counted in a snapshot event's `pending_webhooks`),
   * atomically, unless the event is gone or has {@link maxDeliveriesPerEvent} deliveries already.
   */
  createResend(delivery: Delivery): Promise<ResendWrite>;
}
