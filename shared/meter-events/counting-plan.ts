import type { RecordChange, UsageGroup } from './meter-event.ts';

/**
 * How each meter event is counted, decided once. The service, the processor and the usage store carry
 * out these decisions and never re-decide them; every threshold of the write path lives here. The write
 * units below are DynamoDB's, as test/integration/metering-capacity.test.ts measures them (docs/metering.md
 * draws the states an event goes through).
 *
 * - `lease`: under its minute's usage lease, on the request path (take, claim, release: 3 units) or, in
 *   the worker, a few events of one batch under one take (2 + n units for n events).
 * - `mark`: a batch's events of one customer, meter and minute claimed one by one and counted with the
 *   batch's mark in one transaction (1 unit each, plus 4 per group).
 * - `transaction`: record changes applied in the usage transaction itself (cancellations).
 */

/**
 * Stream requests from this many events on are stored as a batch for the worker: a small batch of n
 * events of one customer costs (6 + 2n) / n write units per event for n < 3 and (8 + n) / n from 3 on
 * (docs/capacity.md), an event counted at once under its lease 3, so from 4 events on the batch is as cheap
 * or cheaper.
 */
export const minBatchedEvents = 4;

/**
 * The share of a larger stream request's events that are alone in their customer, meter and minute (within
 * the request) from which those are counted at once too: a lone event costs 3 write units either way (take,
 * claim, release, at once or in the worker), and the batch adds about 0.2 per event, which the events that
 * share a minute (2 units each or less in the worker) make up for only below this share.
 */
export const minLoneShare = 0.8;

/**
 * A batch's events of one customer, meter and minute are counted with the batch's mark from this many on
 * (1 + 4/n write units each); fewer go under the lease (1 + 2/n). A redelivered batch groups its events
 * as its first try did, so it meets the path that try took.
 */
export const minMarkedEvents = 3;

/**
 * Stream events counted under one take of a lease: a group's small share of a whole batch of ten messages
 * (under 3 each) in one take and one release, the minute's item then about 2 KB while it is held.
 */
export const maxLeasedEvents = 20;

/**
 * For each event of a stream request (identifiers already unique), whether it is counted at once under its
 * lease (true) or stored in the request's batch for the worker (false). `groupOf` names an event's
 * customer, meter and minute, or is undefined when the event names no meter (such an event goes to the
 * batch, whose processing reports it). A request of fewer than `minBatchedEvents` tries every event at
 * once; a larger one only when its lone events are at least `minLoneShare` of it, and then only those.
 * An event the request path cannot count after all (a problem, a refusal, a held lease) still goes to the
 * batch: the plan says where to try first, the batch is where everything not counted ends.
 */
export function planStreamRequest(groupOf: ReadonlyArray<string | undefined>): boolean[] {
  if (groupOf.length < minBatchedEvents) return groupOf.map(() => true);
  const sizes = new Map<string, number>();
  for (const group of groupOf) if (group !== undefined) sizes.set(group, (sizes.get(group) ?? 0) + 1);
  const alone = groupOf.map((group) => group !== undefined && sizes.get(group) === 1);
  const atOnce = alone.filter(Boolean).length >= minLoneShare * groupOf.length;
  return atOnce ? alone : groupOf.map(() => false);
}

/** Where the worker counts each part of a usage group (see the paths above). */
export interface BatchCountingPlan {
  /** Groups of one batch's `insert`s, each of at least `minMarkedEvents`: claimed, then counted with the batch's mark. */
  marked: UsageGroup[];
  /** Groups of one batch's `insert`s, each of at most `maxLeasedEvents`: counted under one take of the lease. */
  leased: UsageGroup[];
  /** Cancellations, applied in the usage transaction. */
  transactional: UsageGroup[];
}

/**
 * Splits the usage groups of a batch of work (each of one customer, meter and minute) by the path that
 * counts them. A group's stream events are told apart per stream batch, since a mark and its redelivery
 * check belong to one batch; the batches' small shares are counted under the lease together, at most
 * `maxLeasedEvents` a take. A batch's share, and so its path, depends on the batch alone: every try of a
 * batch counts its events on the same path, whatever else its delivery brought.
 */
export function planBatch(groups: readonly UsageGroup[]): BatchCountingPlan {
  const plan: BatchCountingPlan = { marked: [], leased: [], transactional: [] };
  for (const group of groups) {
    const byBatch = new Map<string, RecordChange[]>();
    const transactional: RecordChange[] = [];
    for (const change of group.changes) {
      if (change.kind !== 'insert') transactional.push(change);
      else {
        const key = change.event.batchId ?? '';
        const list = byBatch.get(key);
        if (list) list.push(change);
        else byBatch.set(key, [change]);
      }
    }
    if (transactional.length > 0) plan.transactional.push({ ...group, changes: transactional });
    // The small shares of several batches go under one take together, an identifier once (the first): two
    // entries of one identifier in a lease would each be settled as counted.
    const leased: RecordChange[] = [];
    const inLease = new Set<string>();
    for (const [batchId, changes] of byBatch) {
      if (batchId !== '' && changes.length >= minMarkedEvents) plan.marked.push({ ...group, changes });
      else {
        for (const change of changes) {
          if (inLease.has(change.event.identifier)) continue;
          inLease.add(change.event.identifier);
          leased.push(change);
        }
      }
    }
    for (let start = 0; start < leased.length; start += maxLeasedEvents) plan.leased.push({ ...group, changes: leased.slice(start, start + maxLeasedEvents) });
  }
  return plan;
}

/** An hour of event time (usage is rolled up per hour: TABLE_DESIGN.md, *Usage rollups*). */
export const hourMillis = 60 * 60 * 1000;
export const hourOf = (time: number): number => Math.floor(time / hourMillis) * hourMillis;

/**
 * A change of a minute's usage decided this long after the minute's hour ended is late: it first marks the
 * hour's rollup dirty (one more write unit). Usage is on time almost always (events arrive within seconds),
 * so the ordinary path pays nothing.
 */
export const lateAfterMillis = 5 * 60 * 1000;

/**
 * The longest a writer takes from deciding whether its change is late to committing it: the Lambda maximum
 * timeout (15 minutes). A roll waits this long past lateness before it reads an hour, and a rollup is
 * trusted only when it was computed this long after the hour's latest late marker, so a change decided on
 * time has always committed before the roll reads, and a late one is never missed.
 */
export const writerBoundMillis = 15 * 60 * 1000;

/**
 * The hour whose rollup a change of `minute`'s usage, decided at `now` (the writer's clock), must mark
 * dirty before it is written, or undefined when the change is on time. Every path that changes a minute's
 * usage (a lease's release, a batch's mark, the usage transaction, forgetting a cancelled `last`) asks this.
 */
export function lateHourOf(minute: number, now: number): number | undefined {
  const hour = hourOf(minute);
  return hour + hourMillis + lateAfterMillis <= now ? hour : undefined;
}
