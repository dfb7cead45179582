import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maxLeasedEvents, minBatchedEvents, minLoneShare, minMarkedEvents, planBatch, planStreamRequest } from '#shared/meter-events/counting-plan.ts';
import type { MeterEventAdjustment, MeterEventRecord, RecordChange, UsageGroup } from '#shared/meter-events/meter-event.ts';
import type { Scope } from '#shared/platform/types.ts';

const scope: Scope = { accountId: 'acct_plan', livemode: false };

const record = (identifier: string, batchId: string | null, source: MeterEventRecord['source'] = 'stream'): MeterEventRecord => ({
  eventName: 'api_call',
  identifier,
  payload: {},
  timestamp: 0,
  scope,
  platformId: scope.accountId,
  created: 0,
  source,
  batchId,
  status: source === 'api' ? 'accepted' : 'processed',
  meterId: 'mtr_1',
  cancelAdjustmentId: null,
});
const adjustment: MeterEventAdjustment = {
  id: 'mtradj_1',
  scope,
  platformId: scope.accountId,
  created: 0,
  eventName: 'api_call',
  type: 'cancel',
  cancelIdentifier: 'x',
  status: 'pending',
};
const group = (customerId: string, changes: RecordChange[], minute = 0): UsageGroup => ({
  scope,
  meter: { id: 'mtr_1', formula: 'sum' },
  customerId,
  minute,
  changes,
});
const inserts = (batchId: string, count: number, prefix = batchId): RecordChange[] =>
  Array.from({ length: count }, (_, i) => ({ kind: 'insert', event: record(`${prefix}-${i}`, batchId), value: 1 }));
const identifiers = (groups: UsageGroup[]) => groups.map((entry) => entry.changes.map((change) => change.event.identifier));

describe('the counting plan (offline)', () => {
  describe('of a stream request', () => {
    it(`tries every event of a request under ${minBatchedEvents} events at once, those without a meter too (their batch reports them)`, () => {
      expect(planStreamRequest(['a', 'a', undefined])).toEqual([true, true, true]);
      expect(planStreamRequest([])).toEqual([]);
    });

    it(`tries at once only the lone events of a larger request, and only when they are ${minLoneShare * 100} % of it`, () => {
      // Given 10 events, 8 alone in their customer, meter and minute (80 %): those 8 at once
      const lone = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
      expect(planStreamRequest([...lone, 'x', 'x'])).toEqual([...lone.map(() => true), false, false]);
      // Given 10 events, 7 alone (70 %): all go to the batch
      expect(planStreamRequest([...lone.slice(1), 'x', 'x', 'x'])).toEqual(Array.from({ length: 10 }, () => false));
      // An event with no meter is never alone
      expect(planStreamRequest([...lone.slice(0, 4), undefined])).toEqual([true, true, true, true, false]);
    });

    it('never tries at once two events of one customer, meter and minute of a larger request, and tries all or only lone ones', () => {
      fc.assert(
        fc.property(fc.array(fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }), { maxLength: 100 }), (raw) => {
          const groups = raw.map((n) => (n === undefined ? undefined : `g${n}`));
          const plan = planStreamRequest(groups);
          expect(plan).toHaveLength(groups.length);
          if (groups.length < minBatchedEvents) {
            expect(plan.every(Boolean)).toBe(true);
            return;
          }
          const atOnce = groups.filter((_, index) => plan[index]);
          expect(atOnce.every((entry) => entry !== undefined)).toBe(true);
          expect(new Set(atOnce).size).toBe(atOnce.length);
          for (const [index, entry] of groups.entries()) {
            if (plan[index]) expect(groups.filter((other) => other === entry)).toHaveLength(1);
          }
          const lone = groups.filter((entry) => entry !== undefined && groups.filter((other) => other === entry).length === 1).length;
          expect(atOnce.length).toBe(lone >= minLoneShare * groups.length ? lone : 0);
        }),
      );
    });
  });

  describe('of a batch of work', () => {
    it(`counts a batch's ${minMarkedEvents} events or more of one minute with its mark, and its fewer under the lease`, () => {
      const plan = planBatch([group('cus_1', inserts('b1', minMarkedEvents)), group('cus_2', inserts('b1', minMarkedEvents - 1))]);
      expect(identifiers(plan.marked)).toEqual([['b1-0', 'b1-1', 'b1-2']]);
      expect(identifiers(plan.leased)).toEqual([['b1-0', 'b1-1']]);
      expect(plan.leased[0]!.customerId).toBe('cus_2');
      expect(plan.transactional).toEqual([]);
    });

    it('counts the small shares of several batches of one minute under one take, at most 20 a take', () => {
      const changes = Array.from({ length: 11 }, (_, i) => inserts(`b${i}`, 2)).flat();
      const plan = planBatch([group('cus_1', changes)]);
      expect(plan.marked).toEqual([]);
      expect(plan.leased.map((entry) => entry.changes.length)).toEqual([maxLeasedEvents, 2]);
    });

    it("picks a batch's path from its own share, counting an identifier two batches bring in one take once", () => {
      // b2 brings `x` again: its share is still 3 (marked), as it would be delivered alone; b1's and b3's `y` are one entry of the take
      const insert = (identifier: string, batchId: string): RecordChange => ({ kind: 'insert', event: record(identifier, batchId), value: 1 });
      const plan = planBatch([group('cus_1', [insert('x', 'b1'), insert('x', 'b2'), ...inserts('b2', 2), insert('y', 'b1'), insert('y', 'b3')])]);
      expect(identifiers(plan.marked)).toEqual([['x', 'b2-0', 'b2-1']]);
      expect(identifiers(plan.leased)).toEqual([['x', 'y']]);
      expect(plan.leased[0]!.changes.map((change) => change.event.batchId)).toEqual(['b1', 'b1']);
    });

    it("marks each batch's share of one minute apart, since a mark belongs to one batch", () => {
      const plan = planBatch([group('cus_1', [...inserts('b1', 3), ...inserts('b2', 4)])]);
      expect(plan.marked.map((entry) => entry.changes.map((change) => change.event.batchId))).toEqual([
        ['b1', 'b1', 'b1'],
        ['b2', 'b2', 'b2', 'b2'],
      ]);
    });

    it('applies cancellations in the usage transaction', () => {
      const cancel: RecordChange = { kind: 'cancel', event: record('c', null), value: 1, adjustment };
      const plan = planBatch([group('cus_1', [cancel, ...inserts('b1', 1)])]);
      expect(plan.transactional).toEqual([group('cus_1', [cancel])]);
      expect(identifiers(plan.leased)).toEqual([['b1-0']]);
    });

    it('puts every change on exactly one path, in its own group, and never a stream event in the usage transaction', () => {
      const change = fc.record({
        kind: fc.constantFrom('insert', 'cancel'),
        batch: fc.integer({ min: 0, max: 3 }),
      });
      const groups = fc.array(
        fc.record({ customer: fc.integer({ min: 0, max: 3 }), minute: fc.integer({ min: 0, max: 2 }), changes: fc.array(change, { maxLength: 60 }) }),
        {
          maxLength: 8,
        },
      );
      fc.assert(
        fc.property(groups, (specs) => {
          let n = 0;
          const input = specs.map(({ customer, minute, changes }) =>
            group(
              `cus_${customer}`,
              changes.map(({ kind, batch }): RecordChange => {
                const event = record(`e${n++}`, kind === 'insert' ? `b${batch}` : null);
                return kind === 'cancel' ? { kind, event, value: 1, adjustment } : { kind, event, value: 1 };
              }),
              minute * 60_000,
            ),
          );
          const plan = planBatch(input);
          const placed = [...plan.marked, ...plan.leased, ...plan.transactional];
          const all = input.flatMap((entry) => entry.changes);
          expect(placed.flatMap((entry) => entry.changes)).toHaveLength(all.length);
          expect(new Set(placed.flatMap((entry) => entry.changes))).toEqual(new Set(all));
          for (const entry of placed) {
            const from = input.find((original) => original.changes.includes(entry.changes[0]!))!;
            expect({ ...entry, changes: [] }).toEqual({ ...from, changes: [] });
            expect(entry.changes.every((change) => from.changes.includes(change))).toBe(true);
          }
          for (const entry of plan.marked) {
            expect(entry.changes.length).toBeGreaterThanOrEqual(minMarkedEvents);
            expect(new Set(entry.changes.map((change) => change.kind === 'insert' && change.event.batchId)).size).toBe(1);
          }
          for (const entry of plan.leased) {
            expect(entry.changes.length).toBeLessThanOrEqual(maxLeasedEvents);
            expect(entry.changes.every((change) => change.kind === 'insert')).toBe(true);
          }
          expect(plan.transactional.every((entry) => entry.changes.every((change) => change.kind !== 'insert'))).toBe(true);
        }),
      );
    });
  });
});
