import type { AttemptRecord, Delivery, DeliveryStatus } from '#shared/events/event.ts';

/** The outcome of handling a delivery, as written back to its record. */
export interface DeliveryUpdate {
  status: DeliveryStatus;
  /** Null when the delivery is finished. */
  nextAttemptAt: number | null;
  attempt: AttemptRecord | null;
  /** For snapshot events: settle `pending_webhooks` (and count a give-up) when the delivery finishes. */
  settleSnapshotEvent: { failed: boolean } | null;
}

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
}
