import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hourMillis, lateAfterMillis, lateHourOf, writerBoundMillis } from '#shared/meter-events/counting-plan.ts';
import type { MinuteUsage } from '#shared/meter-events/meter-event.ts';
import {
  maxHoursPerRoll,
  rollableBefore,
  rollupsOf,
  trusted,
  usageRollSweeper,
  usageRollups,
  type StoredHour,
  type UsagePartition,
  type UsageRollSchedule,
  type UsageRollupStore,
} from '#shared/meter-events/rollups.ts';
import { minuteUsageReader } from '#shared/meter-events/summaries.ts';

const minuteMillis = 60_000;
/** An hour start well away from the epoch (2026-11-02T00:00Z). */
const t0 = Date.UTC(2026, 10, 2);
const partition: UsagePartition = { scope: { accountId: 'acct_rollups', livemode: false }, meterId: 'mtr_rollups', customerId: 'cus_rollups' };

/**
 * One usage partition in memory, with DynamoDB's semantics where the rollups rely on them: the minute items
 * writers change (each late change first marks its hour, as shared/data/metering/rollups.ts `markLateHours`
 * does), hour items whose rollup is replaced only by a later one and whose marker keeps the latest writer
 * time, and a watermark that never moves back. Every read is of the committed state (strongly consistent).
 */
function memoryPartition() {
  const minutes = new Map<number, MinuteUsage>();
  const hours = new Map<number, StoredHour>();
  let watermark: number | undefined;
  const calls = { usage: 0, hours: 0, firstMinute: 0, writes: 0 };

  const store: UsageRollupStore = {
    async usage(_scope, _meter, _customer, from, to) {
      calls.usage++;
      return [...minutes.values()]
        .filter((minute) => minute.minute >= from && minute.minute < to)
        .sort((a, b) => a.minute - b.minute)
        .map((minute) => ({ ...minute }));
    },
    async hours(_partition, fromHour, toHour) {
      calls.hours++;
      return {
        hours: [...hours.values()].filter((item) => item.hour >= fromHour && item.hour < toHour).map((item) => structuredClone(item)),
        rolledThrough: watermark,
      };
    },
    rolledThrough: async () => watermark,
    async firstMinute() {
      calls.firstMinute++;
      const keys = [...minutes.keys()].sort((a, b) => a - b);
      return keys[0];
    },
    async writeRollups(_partition, rollups, asOf) {
      for (const rollup of rollups) {
        calls.writes++;
        const item = hours.get(rollup.hour);
        if (item?.asOf !== undefined && item.asOf >= asOf) continue;
        hours.set(rollup.hour, { ...item, hour: rollup.hour, rollup: structuredClone(rollup), asOf });
      }
    },
    async advance(_partition, to) {
      if (watermark === undefined || watermark < to) watermark = to;
    },
  };

  return {
    store,
    calls,
    hours,
    /** The late marker a change of `minute` decided at `now` writes first (none when on time). */
    mark(minute: number, now: number) {
      const hour = lateHourOf(minute, now);
      if (hour === undefined) return;
      const item = hours.get(hour);
      if (item?.dirtyAt !== undefined && item.dirtyAt >= now) return;
      hours.set(hour, { ...item, hour, dirtyAt: now });
    },
    /** A change committed: an event counted (or cancelled, `sign` -1), or a cancelled `last` forgotten. */
    commit(change: Change) {
      const minute = Math.floor(change.timestamp / minuteMillis) * minuteMillis;
      const usage = minutes.get(minute) ?? { minute, total: 0, events: 0, last: null };
      if (change.kind === 'forget') usage.last = null;
      else {
        const sign = change.kind === 'cancel' ? -1 : 1;
        usage.total += sign * change.value;
        usage.events += sign;
        if (change.kind === 'count' && (!usage.last || change.timestamp >= usage.last.timestamp))
          usage.last = { value: change.value, timestamp: change.timestamp };
      }
      minutes.set(minute, usage);
    },
  };
}

interface Change {
  kind: 'count' | 'cancel' | 'forget';
  timestamp: number;
  value: number;
}

/** A write: decided at `decided` (its late marker then), committed up to `writerBoundMillis` later. */
const writeArbitrary = fc.record({
  kind: fc.constantFrom<Change['kind']>('count', 'count', 'count', 'cancel', 'forget'),
  timestamp: fc.integer({ min: t0, max: t0 + 6 * hourMillis }),
  value: fc.integer({ min: 1, max: 1000 }),
  // On time (within seconds of the event), hours late, or decided right around the late boundary.
  decision: fc.oneof(
    fc.record({ after: fc.constant<'event' | 'boundary'>('event'), offset: fc.integer({ min: -5 * minuteMillis, max: 30_000 }) }),
    fc.record({ after: fc.constant<'event' | 'boundary'>('event'), offset: fc.integer({ min: 0, max: 5 * hourMillis }) }),
    fc.record({ after: fc.constant<'event' | 'boundary'>('boundary'), offset: fc.integer({ min: -2 * minuteMillis, max: 2 * minuteMillis }) }),
  ),
  commitDelay: fc.oneof(fc.integer({ min: 0, max: writerBoundMillis }), fc.integer({ min: writerBoundMillis - 2 * minuteMillis, max: writerBoundMillis })),
});

/** Any time, or right around when an hour becomes rollable. */
const atArbitrary = fc.oneof(
  fc.integer({ min: t0, max: t0 + 12 * hourMillis }),
  fc
    .tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: -2 * minuteMillis, max: 2 * minuteMillis }))
    .map(([hour, offset]) => t0 + (hour + 1) * hourMillis + lateAfterMillis + writerBoundMillis + offset),
);
const rangeArbitrary = fc.tuple(fc.integer({ min: t0 - hourMillis, max: t0 + 8 * hourMillis }), fc.integer({ min: 0, max: 9 * hourMillis }));

describe('usage rollups (offline)', () => {
  it('decides a change late from five minutes after its hour ended, on the writer’s clock', () => {
    const minute = t0 + 30 * minuteMillis;
    const hourEnd = t0 + hourMillis;
    expect(lateHourOf(minute, minute + 1_000)).toBeUndefined();
    expect(lateHourOf(minute, hourEnd + lateAfterMillis - 1)).toBeUndefined();
    expect(lateHourOf(minute, hourEnd + lateAfterMillis)).toBe(t0);
    expect(lateHourOf(t0 + 59 * minuteMillis, hourEnd + lateAfterMillis + 5 * hourMillis)).toBe(t0);
  });

  it('rolls an hour only once it ended late-time plus the writer bound ago, and trusts a rollup only that long after its latest marker', () => {
    const eligibleAt = t0 + hourMillis + lateAfterMillis + writerBoundMillis;
    expect(rollableBefore(eligibleAt - 1)).toBe(t0);
    expect(rollableBefore(eligibleAt)).toBe(t0 + hourMillis);
    const rollup = { hour: t0, total: 5, events: 1, last: null };
    expect(trusted({ hour: t0, rollup, asOf: eligibleAt })).toBe(true);
    expect(trusted({ hour: t0, rollup, asOf: eligibleAt - 1 })).toBe(false);
    expect(trusted({ hour: t0, dirtyAt: eligibleAt })).toBe(false);
    expect(trusted({ hour: t0, rollup, asOf: eligibleAt + writerBoundMillis - 1, dirtyAt: eligibleAt })).toBe(false);
    expect(trusted({ hour: t0, rollup, asOf: eligibleAt + writerBoundMillis, dirtyAt: eligibleAt })).toBe(true);
  });

  it('rolls an hour up from its minutes: sums, counts, and the latest `last`', () => {
    const minutes: MinuteUsage[] = [
      { minute: t0, total: 3, events: 1, last: { value: 3, timestamp: t0 + 5 } },
      { minute: t0 + minuteMillis, total: 4, events: 2, last: { value: 1, timestamp: t0 + minuteMillis + 9 } },
      { minute: t0 + 2 * minuteMillis, total: 0, events: 0, last: null },
      { minute: t0 + hourMillis, total: 7, events: 1, last: null },
    ];
    expect(rollupsOf([t0, t0 + 2 * hourMillis], minutes)).toEqual([
      { hour: t0, total: 7, events: 3, last: { value: 1, timestamp: t0 + minuteMillis + 9 } },
      { hour: t0 + 2 * hourMillis, total: 0, events: 0, last: null },
    ]);
  });

  it('reads every range exactly as the minute-by-minute aggregate, whatever writes (on time, late, cancelled), rolls and reads interleave', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(writeArbitrary, { maxLength: 60 }),
        fc.array(atArbitrary, { maxLength: 6 }),
        fc.array(fc.tuple(atArbitrary, rangeArbitrary), { minLength: 1, maxLength: 8 }),
        async (writes, rolls, reads) => {
          const memory = memoryPartition();
          let now = t0;
          const rollups = usageRollups({ store: memory.store, clock: () => now });
          const minuteReader = minuteUsageReader(memory.store);
          type Step = { at: number; order: number; run: () => Promise<void> };
          const steps: Step[] = [];
          for (const write of writes) {
            const hourEnd = Math.floor(write.timestamp / hourMillis) * hourMillis + hourMillis;
            const decided = write.decision.after === 'event' ? write.timestamp + write.decision.offset : hourEnd + lateAfterMillis + write.decision.offset;
            const change: Change = { kind: write.kind, timestamp: write.timestamp, value: write.value };
            steps.push({ at: decided, order: 0, run: async () => memory.mark(write.timestamp, decided) });
            steps.push({ at: decided + write.commitDelay, order: 1, run: async () => memory.commit(change) });
          }
          for (const at of rolls) steps.push({ at, order: 2, run: async () => void (await rollups.roll(partition)) });
          for (const [at, [from, length]] of reads) {
            steps.push({
              at,
              order: 3,
              run: async () => {
                for (const formula of ['sum', 'count', 'last'] as const) {
                  const meter = { id: partition.meterId, formula };
                  const expected = await minuteReader.aggregate(partition.scope, meter, partition.customerId, from, from + length);
                  const actual = await rollups.reader.aggregate(partition.scope, meter, partition.customerId, from, from + length);
                  expect(actual).toBe(expected);
                }
              },
            });
          }
          steps.sort((a, b) => a.at - b.at || a.order - b.order);
          for (const step of steps) {
            now = step.at;
            await step.run();
          }
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('reads a rolled month with one rollup Query and minute Queries only for the partial hours at its edges', async () => {
    const memory = memoryPartition();
    for (let minute = t0; minute < t0 + 31 * 24 * hourMillis; minute += minuteMillis) memory.commit({ kind: 'count', timestamp: minute, value: 2 });
    let now = t0 + 32 * 24 * hourMillis;
    const rollups = usageRollups({ store: memory.store, clock: () => now });
    for (let round = 0; !(await rollups.roll(partition)).caughtUp; round++) expect(round).toBeLessThan(10);
    memory.calls.usage = 0;
    memory.calls.hours = 0;
    const { usage, stats } = await rollups.read(partition, t0 + 30 * minuteMillis, t0 + 31 * 24 * hourMillis - 30 * minuteMillis);
    expect(usage.reduce((sum, piece) => sum + piece.total, 0)).toBe(2 * (31 * 24 * 60 - 60));
    expect(stats).toEqual({ rollupQueries: 1, minuteQueries: 2, minutesRead: 60, hoursRolled: 0 });

    // A late event after the roll: its hour is read from its minutes, exactly, until a roll trusts it again.
    now += hourMillis;
    memory.mark(t0 + 5 * hourMillis, now);
    memory.commit({ kind: 'count', timestamp: t0 + 5 * hourMillis + 1, value: 100 });
    const late = await rollups.read(partition, t0, t0 + 31 * 24 * hourMillis);
    expect(late.usage.reduce((sum, piece) => sum + piece.total, 0)).toBe(2 * 31 * 24 * 60 + 100);
    expect(late.stats).toMatchObject({ rollupQueries: 1, minuteQueries: 1, minutesRead: 60, hoursRolled: 0 });
    now += writerBoundMillis;
    expect((await rollups.read(partition, t0, t0 + 31 * 24 * hourMillis)).stats).toMatchObject({ minuteQueries: 1, hoursRolled: 1 });
    expect((await rollups.read(partition, t0, t0 + 31 * 24 * hourMillis)).stats).toMatchObject({ minuteQueries: 0, minutesRead: 0 });
  });

  it('rolls at most a week per read and per scheduled roll, and moves the watermark only over what it rolled', async () => {
    const memory = memoryPartition();
    for (let minute = t0; minute < t0 + 14 * 24 * hourMillis; minute += 10 * minuteMillis) memory.commit({ kind: 'count', timestamp: minute, value: 1 });
    const now = t0 + 15 * 24 * hourMillis;
    const rollups = usageRollups({ store: memory.store, clock: () => now });
    const first = await rollups.read(partition, t0, t0 + 14 * 24 * hourMillis);
    expect(first.stats.hoursRolled).toBe(maxHoursPerRoll);
    const second = await rollups.read(partition, t0, t0 + 14 * 24 * hourMillis);
    expect(second.stats.hoursRolled).toBe(14 * 24 - maxHoursPerRoll);
    expect((await rollups.read(partition, t0, t0 + 14 * 24 * hourMillis)).stats).toMatchObject({ minuteQueries: 0, hoursRolled: 0 });
  });

  it('answers without writing when reading only, and answers even when its roll on read fails', async () => {
    const memory = memoryPartition();
    for (let minute = t0; minute < t0 + 24 * hourMillis; minute += 10 * minuteMillis) memory.commit({ kind: 'count', timestamp: minute, value: 2 });
    const now = t0 + 2 * 24 * hourMillis;
    const readOnly = usageRollups({ store: memory.store, clock: () => now, rollOnRead: false });
    expect((await readOnly.read(partition, t0, t0 + 24 * hourMillis)).stats).toMatchObject({ hoursRolled: 0, minutesRead: 144 });
    expect(memory.calls.writes).toBe(0);
    expect(memory.hours.size).toBe(0);
    const refused = usageRollups({
      store: { ...memory.store, writeRollups: async () => Promise.reject(new Error('AccessDenied')) },
      clock: () => now,
    });
    const meter = { id: partition.meterId, formula: 'sum' as const };
    expect(await refused.reader.aggregate(partition.scope, meter, partition.customerId, t0, t0 + 24 * hourMillis)).toBe(2 * 144);
  });

  it('rolls registered partitions daily until their registration ends, sooner while a roll has not caught up', async () => {
    const memory = memoryPartition();
    memory.commit({ kind: 'count', timestamp: t0, value: 1 });
    let now = t0 + 30 * 24 * hourMillis;
    const rollups = usageRollups({ store: memory.store, clock: () => now });
    const scheduled: Array<{ dueAt: number } | 'lapsed'> = [];
    const schedule: UsageRollSchedule = {
      claimDue: async () => [{ partition, rollUntil: t0 + 31 * 24 * hourMillis }],
      reschedule: async (_partition, dueAt) => void scheduled.push({ dueAt }),
      lapse: async () => {
        scheduled.push('lapsed');
        return true;
      },
    };
    const sweeper = usageRollSweeper({ schedule, rollups, clock: () => now });
    expect(await sweeper.sweep()).toEqual({ rolled: 1, hours: 1 });
    expect(scheduled.at(-1)).toEqual({ dueAt: now });
    for (let round = 0; (scheduled.at(-1) as { dueAt: number }).dueAt === now; round++) {
      expect(round).toBeLessThan(5);
      await sweeper.sweep();
    }
    expect(scheduled.at(-1)).toEqual({ dueAt: now + 24 * hourMillis });
    now = t0 + 32 * 24 * hourMillis;
    await sweeper.sweep();
    expect(scheduled.at(-1)).toBe('lapsed');
  });
});
