import { systemClock } from '#shared/core/clock.ts';
import { randomUUID } from 'node:crypto';
import { memoized, scopedKey } from '#shared/core/cache.ts';
import { logger } from '#shared/core/logger.ts';
import type { MeterRepository } from '#shared/meters/meter.ts';
import type { Scope } from '#shared/platform/types.ts';
import { planBatch } from './counting-plan.ts';
import type { MeterEventAdjustment, MeterEventError, MeterEventRecord, MeterEventStore, MeterWork, UsageGroup } from './meter-event.ts';
import { minuteOf, problemOf, readingOf, refusalOf, usageValueOf } from './rules.ts';
import { usageLeases } from './usage-lease.ts';

export interface MeterEventProcessorPorts {
  store: MeterEventStore;
  meters: Pick<MeterRepository, 'findByEventName' | 'get'>;
  /** Whether a customer exists in the scope (deleted customers do not). */
  customerExists(scope: Scope, id: string): Promise<boolean>;
  /** Length of the validation windows errors are gathered in before they are reported. */
  errorWindowMillis: number;
  clock?: () => number;
}

const scopeKey = (scope: Scope) => `${scope.accountId}|${scope.livemode}`;

/**
 * The asynchronous side of metering: applies a batch of queued work to the usage aggregates exactly once.
 * Stream events are checked, grouped in memory by meter, customer and minute, and counted per group the
 * way the counting plan (`planBatch`) says, so a redelivered message, a duplicate identifier or a
 * concurrent worker can never count an event twice. API events were counted on the request path: their
 * settle messages finish what a stopped request left, and their refusals are reported. Problems are
 * counted in their meter's error window; cancellations run after the batch's events.
 */
export function meterEventProcessor({ store, meters, customerExists, errorWindowMillis, clock = systemClock }: MeterEventProcessorPorts) {
  const leases = usageLeases(store, clock);
  /**
   * Processes a batch of work; returns the items to try again (their messages come back, the rest of the
   * batch is done). An error that touches the whole batch throws.
   */
  async function process(work: MeterWork[]): Promise<MeterWork[]> {
    const now = clock();
    // One read per meter and per customer in a batch.
    const meterFor = memoized(meters.findByEventName, scopedKey);
    const customerFound = memoized(customerExists, scopedKey);

    // Every event of each stream batch once (a batch queued twice comes as two). Events of different batches
    // with one identifier all stay: each batch's share of a group, which picks its path (the counting plan),
    // must be the same whichever batches a delivery brings together, or a redelivery could count an event on
    // a second path; their claims tell which one counts.
    const seen = new Set<string>();
    const events: MeterEventRecord[] = [];
    // The work items of each stream batch (a batch queued twice comes as two).
    const batchWork = new Map<string, MeterWork[]>();
    const retry = new Set<MeterWork>();
    const retrying = (items: MeterWork[]) => (error: unknown) => {
      logger.warn('Meter work failed; its messages are retried', { error: error as Error, items: items.length });
      for (const item of items) retry.add(item);
    };
    const admit = (event: MeterEventRecord) => {
      const key = `${scopeKey(event.scope)}|${event.batchId}|${event.identifier}`;
      if (seen.has(key)) return;
      seen.add(key);
      events.push(event);
    };
    for (const item of work) {
      if (item.kind === 'batch') {
        const { batch } = item;
        batchWork.set(batch.id, [...(batchWork.get(batch.id) ?? []), item]);
        for (const input of batch.events) {
          admit({
            ...input,
            scope: batch.scope,
            platformId: batch.platformId,
            created: batch.created,
            source: 'stream',
            batchId: batch.id,
            status: 'processed',
            meterId: null,
            cancelAdjustmentId: null,
          });
        }
      }
    }

    const errors: MeterEventError[] = work.flatMap((item) => (item.kind === 'refused' ? [item.error] : []));
    const groups = new Map<string, UsageGroup>();
    await Promise.all(
      events.map(async (event) => {
        const meter = await meterFor(event.scope, event.eventName);
        const refuse = (code: string, message: string) => {
          errors.push({ scope: event.scope, platformId: event.platformId, meterId: meter?.id ?? null, code, message, identifier: event.identifier });
        };
        // Bounds are judged at receipt, not at processing, which may run later.
        const problem = problemOf(meter, event, event.created);
        if (problem) return refuse(problem.async, problem.message);
        const refusal = await refusalOf(meter!, event, (id) => customerFound(event.scope, id));
        if (refusal) return refuse(refusal.code, refusal.message);
        const { customerId } = readingOf(meter!, event);
        const minute = minuteOf(event.timestamp);
        const key = `${scopeKey(event.scope)}|${meter!.id}|${customerId}|${minute}`;
        const group = groups.get(key) ?? {
          scope: event.scope,
          meter: { id: meter!.id, formula: meter!.formula },
          customerId: customerId!,
          minute,
          changes: [],
        };
        const value = usageValueOf(meter!, event);
        group.changes.push({ kind: 'insert', event: { ...event, meterId: meter!.id }, value });
        groups.set(key, group);
      }),
    );

    // Each group's events go the way the counting plan says. Changes refused on the transaction or mark
    // paths were counted already (a redelivery), or are duplicates of a counted identifier. A lease that
    // stays held fails its group alone: the messages of the group's events come back.
    const plan = planBatch([...groups.values()]);
    const workOf = (group: UsageGroup) => [...new Set(group.changes.flatMap((change) => batchWork.get(change.event.batchId ?? '') ?? []))];
    await Promise.all([
      store.applyUsage(plan.transactional),
      store.countMarked(plan.marked, now),
      ...plan.leased.map((group) => countLeased(group).catch(retrying(workOf(group)))),
    ]);
    if (errors.length > 0) await store.recordErrors(errors, now, errorWindowMillis);
    await Promise.all(work.flatMap((item) => (item.kind === 'batch' && !retry.has(item) ? [store.finishBatch(item.batch)] : [])));
    await Promise.all(work.flatMap((item) => (item.kind === 'settle' ? [leases.settle(item.lease, item.entry).catch(retrying([item]))] : [])));
    for (const item of work) if (item.kind === 'cancel') await cancel(item.adjustment).catch(retrying([item]));
    return work.filter((item) => retry.has(item));
  }

  /** One group's events (at most `maxLeasedEvents`, the counting plan's) under one take of its lease. */
  async function countLeased(group: UsageGroup): Promise<void> {
    const lease = { scope: group.scope, meter: group.meter, customerId: group.customerId, minute: group.minute, owner: `stream_${randomUUID()}` };
    const events = group.changes.map(({ event, value }) => ({
      event,
      entry: { identifier: event.identifier, created: event.created, value, timestamp: event.timestamp },
    }));
    await leases.countStreamed(lease, events);
  }

  /** Takes a cancelled event out of its minute's usage (or keeps it out, if it was never counted). */
  async function cancel(adjustment: MeterEventAdjustment): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const event = await store.getEvent(adjustment.scope, adjustment.cancelIdentifier);
      if (!event || event.cancelAdjustmentId !== adjustment.id || event.status === 'invalid' || event.status === 'cancelled') {
        return store.completeAdjustment(adjustment);
      }
      // Legacy (legacy-accepted-events): an older version's event, not counted yet: the sweeper cancels it
      // uncounted, and this message comes back until it has.
      if (event.status === 'accepted') throw new Error(`Adjustment ${adjustment.id} waits for the sweeper to convert its event`);
      const meter = event.meterId ? await meters.get(event.scope, event.meterId) : undefined;
      if (!meter) return store.completeAdjustment(adjustment);
      const { customerId } = readingOf(meter, event);
      const minute = minuteOf(event.timestamp);
      const group: UsageGroup = {
        scope: event.scope,
        meter: { id: meter.id, formula: meter.formula },
        customerId: customerId!,
        minute,
        changes: [{ kind: 'cancel', event, value: usageValueOf(meter, event), adjustment }],
      };
      const refused = await store.applyUsage([group]);
      if (refused.length === 0) {
        if (meter.formula === 'last') await store.forgetLast(event.scope, meter.id, customerId!, minute, event.identifier);
        return;
      }
    }
    throw new Error(`Adjustment ${adjustment.id} could not be applied: its event kept changing`);
  }

  return { process };
}
