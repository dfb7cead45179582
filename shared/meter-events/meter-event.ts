import type { Outbox } from '#shared/events/event.ts';
import type { Meter } from '#shared/meters/meter.ts';
import type { Scope } from '#shared/platform/types.ts';

/** A usage event as a client sends it, with the identifier and timestamp filled in. */
export interface MeterEventInput {
  eventName: string;
  identifier: string;
  payload: Record<string, string>;
  /** Event time (ms). */
  timestamp: number;
}

/**
 * The lifecycle of a stored meter event. `processed`: in the usage aggregates; `invalid`: refused (reported
 * in an error report); `cancelled`: taken out of (or kept out of) the aggregates by an adjustment.
 * `accepted` (validated, not counted yet) is only ever found on an event an older version stored: the
 * sweeper converts it (legacy-accepted-events).
 */
export type MeterEventStatus = 'accepted' | 'processed' | 'invalid' | 'cancelled';

/** A meter event as the service keeps it: unique per identifier for 24 hours from `created`. */
export interface MeterEventRecord extends MeterEventInput {
  scope: Scope;
  platformId: string;
  /** When the service received it (ms); the 24-hour uniqueness and cancellation windows start here. */
  created: number;
  source: 'api' | 'stream';
  /** The stream request it came in, for stream events. */
  batchId: string | null;
  status: MeterEventStatus;
  /** The meter it counts for (stream events: once processed). */
  meterId: string | null;
  /** The adjustment that cancels it, once one was requested. */
  cancelAdjustmentId: string | null;
  /**
   * The idempotent request that created it (API events sent with an `Idempotency-Key`): a retry finds its
   * event here instead of in an idempotency record of its own, which would cost two more write units.
   */
  idempotency?: EventIdempotency;
}

/** What an API event keeps of the idempotent request that created it. */
export interface EventIdempotency {
  /** SHA-256 of the `Idempotency-Key` (the key itself is never stored). */
  keyHash: string;
  /** The request's fingerprint (`requestFingerprint`): a retry must match it. */
  fingerprint: string;
  /** The request that created the event, which a replay names (`Original-Request`). */
  requestId: string;
}

export interface MeterEventAdjustment {
  id: string;
  scope: Scope;
  platformId: string;
  created: number;
  eventName: string;
  type: 'cancel';
  cancelIdentifier: string;
  status: 'pending' | 'complete';
}

export interface MeterEventSession {
  id: string;
  scope: Scope;
  platformId: string;
  created: number;
  expiresAt: number;
  /**
   * SHA-256 of the API key that created the session: the session works only while that key does. Absent
   * on sessions stored before it was kept (they expire within 15 minutes of creation).
   */
  keyHash?: string;
}

/** One stream request: up to 100 events, stored before it is acknowledged. */
export interface MeterEventBatch {
  id: string;
  scope: Scope;
  platformId: string;
  created: number;
  events: MeterEventInput[];
}

/**
 * The usage lease of one meter, customer and minute of event time: the minute's usage item, held by one
 * API request at a time, which counts its event into the minute in the write that ends the lease.
 */
export interface UsageLease {
  scope: Scope;
  meter: Pick<Meter, 'id' | 'formula'>;
  customerId: string;
  minute: number;
  /** The request holding it (unique per request). */
  owner: string;
}

/**
 * An API event in flight under a usage lease, written with the take: if its request stops before the
 * release, whoever takes the lease next (or the settle message) counts it if its identifier claim stands.
 */
export interface LeaseEntry {
  owner: string;
  identifier: string;
  /** When its request received it (ms): the claim's uniqueness window starts here. */
  created: number;
  value: number;
  timestamp: number;
}

/** What became of an earlier holder's event: counted (with or without setting `last`), or fenced off. */
export type Settlement = 'count' | 'count-without-last' | 'fenced';

/** Work on the meter-events queue. */
export type MeterWork =
  | { kind: 'batch'; batch: MeterEventBatch }
  | { kind: 'cancel'; adjustment: MeterEventAdjustment }
  /** An API event refused at receipt for a reason reported asynchronously (unknown customer, too many digits). */
  | { kind: 'refused'; error: MeterEventError }
  /** Sent (delayed) as an API request takes a lease: settles the request's event if the request stopped. */
  | { kind: 'settle'; lease: UsageLease; entry: LeaseEntry };

/** Where accepted work goes to be processed (the meter-events queue). */
export interface MeterWorkQueue {
  /** Queues work, held back `delaySeconds` (up to 900) if given. */
  send(work: MeterWork[], delaySeconds?: number): Promise<void>;
}

/** Usage of one meter and customer in one minute of event time. */
export interface MinuteUsage {
  minute: number;
  /** Sum of the values of the events counted. */
  total: number;
  /** Number of events counted. */
  events: number;
  /** The value of the latest event (by event time) counted, unless that event was cancelled. */
  last: { value: number; timestamp: number } | null;
}

/**
 * A meter's usage for one customer over `[from, to)` of event time, aggregated by the meter's formula (the
 * sum of values, the number of events, or the latest value). Both bounds are floored to the minute, so a
 * minute's usage belongs to the range its start falls in: consecutive billing periods share no minute and
 * miss none.
 */
export interface UsageReader {
  aggregate(scope: Scope, meter: Pick<Meter, 'id' | 'formula'>, customerId: string, from: number, to: number): Promise<number>;
}

/** How a stored event changes when processing counts or cancels it; `value` is what it adds to (or takes from) its minute. */
export type RecordChange =
  /** A stream event, written for the first time as `processed` (its identifier may not be taken): under the lease or with its batch's mark. */
  | { kind: 'insert'; event: MeterEventRecord; value: number }
  /** `processed` → `cancelled`, completing the adjustment. */
  | { kind: 'cancel'; event: MeterEventRecord; value: number; adjustment: MeterEventAdjustment };

/** A change of usage: the record changes of one meter, customer and minute, applied with one aggregate update. */
export interface UsageGroup {
  scope: Scope;
  meter: Pick<Meter, 'id' | 'formula'>;
  customerId: string;
  minute: number;
  changes: RecordChange[];
}

/** A problem found while processing, counted in its meter's error window. */
export interface MeterEventError {
  scope: Scope;
  platformId: string;
  /** null when the event names no meter (reported as `v1.billing.meter.no_meter_found`). */
  meterId: string | null;
  code: string;
  message: string;
  identifier: string;
}

/** An error window whose validation period is over and that has not been reported yet. */
export interface ErrorWindow {
  scope: Scope;
  platformId: string;
  meterId: string | null;
  start: number;
  end: number;
  errorCount: number;
  byCode: Array<{ code: string; count: number; samples: Array<{ message: string; identifier: string }> }>;
}

/** Usage leases: the minute usage item a request holds while it counts its events. */
export interface UsageLeaseStore {
  /**
   * Takes a usage lease unless another holder has it (undefined when held), writing `entries` (the events
   * the holder is about to count) into it. Returns the entries earlier holders left: each must be settled.
   */
  takeLease(lease: UsageLease, entries: LeaseEntry[], now: number): Promise<LeaseEntry[] | undefined>;
  /**
   * Ends a lease held by `lease.owner`: counts `counted` into the minute and removes the entries of
   * `owners`, in one write. False when another request took the lease over (it settles what was left).
   */
  releaseLease(lease: UsageLease, counted: Array<{ entry: LeaseEntry; setsLast: boolean }>, owners: string[]): Promise<boolean>;
  /** A lease's holder, expiry and entries, read strongly consistently (the settle message's check). */
  readLease(lease: Omit<UsageLease, 'owner'>): Promise<{ owner?: string; until?: number; entries: LeaseEntry[] }>;
  /**
   * Claims an event's identifier for 24 hours, storing the event for `owner`'s request: `duplicate` when
   * another event holds it, `fenced` when a later holder of the lease settled this request's event as lost.
   */
  claim(event: MeterEventRecord, owner: string): Promise<'claimed' | 'duplicate' | 'fenced'>;
  /** Settles an entry a stopped request left: fences its identifier against the request, or finds its claim standing. */
  settle(scope: Scope, entry: LeaseEntry): Promise<Settlement>;
}

/** Event records (by identifier), adjustments, stream batches, and the unfinished work among them. */
export interface MeterEventRecordStore {
  /** The event of an identifier; `consistent` reads what a write just made (a retry finding its first try). */
  getEvent(scope: Scope, identifier: string, consistent?: boolean): Promise<MeterEventRecord | undefined>;
  /** Attaches the adjustment to its event and stores it; false when the event is already being cancelled or changed. */
  requestCancel(event: MeterEventRecord, adjustment: MeterEventAdjustment): Promise<boolean>;
  getAdjustment(scope: Scope, id: string): Promise<MeterEventAdjustment | undefined>;
  putBatch(batch: MeterEventBatch): Promise<void>;
  /** Marks a stream batch processed. */
  finishBatch(batch: MeterEventBatch): Promise<void>;
  /** Completes an adjustment whose event can no longer be cancelled (expired or refused meanwhile). */
  completeAdjustment(adjustment: MeterEventAdjustment): Promise<void>;
  /**
   * Unfinished work whose due time is past: batches and cancellations a crash left behind. Claims each by
   * pushing its due time to `retryAt` and counting the sweep; work already swept `maxSweeps` times is
   * parked instead (kept, but off the due index) and named in `parked`. An event an older version left
   * `accepted` is converted to a one-event batch (or cancelled uncounted when a cancellation names it):
   * legacy-accepted-events.
   */
  claimOverdueWork(dueBy: number, retryAt: number, limit: number, maxSweeps: number): Promise<{ claimed: MeterWork[]; parked: string[] }>;
}

/** Meter event sessions, by the hash of their token. */
export interface MeterEventSessionStore {
  putSession(session: MeterEventSession, tokenHash: string): Promise<void>;
  findSession(tokenHash: string): Promise<MeterEventSession | undefined>;
}

/** Usage per meter, customer and minute, and the record changes counted into it. */
export interface UsageStore {
  /**
   * Applies usage groups of cancellations (the counting plan's `transactional`), each with its record
   * changes in the same transaction (so each change counts once).
   * Returns the changes whose condition failed (already done, duplicate, changed meanwhile): none of their
   * group was applied, and the caller retries the group without them.
   */
  applyUsage(groups: UsageGroup[]): Promise<RecordChange[]>;
  /**
   * Counts groups of one stream batch's `insert`s (the counting plan's `marked`): each event claimed for
   * its batch, then each group's usage with the batch's mark, once however often the batch comes. Returns
   * the changes refused as duplicates of an identifier another event holds.
   */
  countMarked(groups: UsageGroup[], now: number): Promise<RecordChange[]>;
  /** Clears a cancelled event's value as its minute's `last` value, if it was. */
  forgetLast(scope: Scope, meterId: string, customerId: string, minute: number, identifier: string): Promise<void>;

  /** The minutes of `[from, to)` that hold usage, strongly consistent (the rollups rely on it). */
  usage(scope: Scope, meterId: string, customerId: string, from: number, to: number): Promise<MinuteUsage[]>;
}

/** Error windows: refused meter events counted per meter and window, until reported. */
export interface ErrorWindowStore {
  /** Counts errors in the window of length `windowMillis` around `now` (or a later one if that was reported already). */
  recordErrors(errors: MeterEventError[], now: number, windowMillis: number): Promise<void>;
  /** Windows that ended by `endedBy` and are not reported yet. */
  dueErrorWindows(endedBy: number, limit: number): Promise<ErrorWindow[]>;
  /** Marks a window reported, writing the report's outbox with it; false when it was reported already. */
  markReported(window: ErrorWindow, outbox: Outbox): Promise<boolean>;
}

/** Storage of the metering pipeline: one store per concern, wired together. */
export type MeterEventStore = UsageLeaseStore & MeterEventRecordStore & MeterEventSessionStore & UsageStore & ErrorWindowStore;
