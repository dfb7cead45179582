import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maxTransactionItems, usagePlanner } from '#shared/data/metering/usage-planner.ts';
import type { MeterEventAdjustment, MeterEventRecord, RecordChange, UsageGroup } from '#shared/meter-events/meter-event.ts';

const scope = { accountId: 'acct_planner', livemode: false };
const planner = usagePlanner('table');

const event = (identifier: string, timestamp = 0): MeterEventRecord => ({
  eventName: 'api_calls',
  identifier,
  payload: {},
  timestamp,
  scope,
  platformId: 'acct_planner',
  created: 0,
  source: 'api',
  batchId: null,
  status: 'accepted',
  meterId: 'mtr_1',
  cancelAdjustmentId: null,
});
const adjustment = (id: string): MeterEventAdjustment => ({
  id,
  scope,
  platformId: 'acct_planner',
  created: 0,
  eventName: 'api_calls',
  type: 'cancel',
  cancelIdentifier: id,
  status: 'pending',
});
const group = (customerId: string, minute: number, changes: RecordChange[], formula: 'sum' | 'last' = 'sum'): UsageGroup => ({
  scope,
  meter: { id: 'mtr_1', formula },
  customerId,
  minute,
  changes,
});
const size = (entry: { group: UsageGroup }) => 1 + entry.group.changes.reduce((sum, change) => sum + (change.kind === 'cancel' ? 2 : 1), 0);

describe('the usage transaction planner (offline)', () => {
  it("adds a group's values and counts into its minute, minus its cancellations", () => {
    const { usageAction } = planner;
    const changes: RecordChange[] = [
      { kind: 'insert', event: event('a'), value: 5 },
      { kind: 'insert', event: event('b'), value: 2 },
      { kind: 'cancel', event: event('c'), value: 4, adjustment: adjustment('c') },
    ];
    const { Update } = usageAction({ group: group('cus_1', 60_000, changes), keepLast: false });
    expect(Update.ExpressionAttributeValues).toMatchObject({ ':total': 3, ':events': 1, ':minute': 60_000 });
    expect(Update.UpdateExpression).toBe('SET entity = :entity, minuteStart = :minute ADD #total :total, #events :events');
    expect(Update.ConditionExpression).toBeUndefined();
  });

  it("sets a `last` meter's value from the group's latest event, unless the minute holds a later one", () => {
    const { usageAction } = planner;
    const changes: RecordChange[] = [
      { kind: 'insert', event: event('early', 10), value: 1 },
      { kind: 'insert', event: event('late', 20), value: 7 },
    ];
    const sets = usageAction({ group: group('cus_1', 0, changes, 'last'), keepLast: false }).Update;
    expect(sets.ExpressionAttributeValues).toMatchObject({ ':lastValue': 7, ':lastTimestamp': 20, ':lastIdentifier': 'late' });
    expect(sets.ConditionExpression).toBe('attribute_not_exists(lastTimestamp) OR lastTimestamp <= :lastTimestamp');
    const keeps = usageAction({ group: group('cus_1', 0, changes, 'last'), keepLast: true }).Update;
    expect(keeps.ExpressionAttributeValues).not.toHaveProperty(':lastValue');
    expect(keeps.ConditionExpression).toBeUndefined();
  });

  it('moves a cancelled record with a condition on its state and completes its adjustment; a stream event never', () => {
    const { changeActions } = planner;
    expect(() => changeActions({ kind: 'insert', event: event('b'), value: 1 })).toThrow(/counting plan/);
    const cancel = changeActions({ kind: 'cancel', event: event('c'), value: 1, adjustment: adjustment('adj_1') });
    expect(cancel).toHaveLength(2);
    expect(cancel[1]).toMatchObject({ Update: { ConditionExpression: '#status = :pending' } });
  });

  it('packs any groups into transactions of at most 100 actions, never two updates of one minute in the same one, losing nothing', () => {
    const { bounded, pack } = planner;
    const changeOf = fc.oneof(fc.constant<'insert' | 'cancel'>('insert'), fc.constant<'insert' | 'cancel'>('cancel'));
    const groups = fc.array(
      fc.record({
        customer: fc.integer({ min: 0, max: 3 }),
        minute: fc.integer({ min: 0, max: 2 }),
        kinds: fc.array(changeOf, { minLength: 1, maxLength: 120 }),
      }),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(groups, (specs) => {
        let n = 0;
        const input = specs.map(({ customer, minute, kinds }) =>
          group(
            `cus_${customer}`,
            minute * 60_000,
            kinds.map((kind): RecordChange => {
              const id = `e${n++}`;
              return kind === 'cancel' ? { kind, event: event(id), value: 1, adjustment: adjustment(id) } : { kind, event: event(id), value: 1 };
            }),
          ),
        );
        const transactions = pack(bounded(input));
        for (const transaction of transactions) {
          expect(transaction.reduce((sum, entry) => sum + size(entry), 0)).toBeLessThanOrEqual(maxTransactionItems);
          const minutes = transaction.map((entry) => `${entry.group.customerId}|${entry.group.minute}`);
          expect(new Set(minutes).size).toBe(minutes.length);
        }
        const planned = transactions.flat().flatMap((entry) => entry.group.changes.map((change) => change.event.identifier));
        expect(planned.sort()).toEqual(input.flatMap((each) => each.changes.map((change) => change.event.identifier)).sort());
      }),
    );
  });
});
