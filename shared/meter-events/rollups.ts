import { systemClock, type Clock } from '#shared/core/clock.ts';
import { logger } from '#shared/core/logger.ts';
import type { Scope } from '#shared/platform/types.ts';
import { hourMillis, hourOf, lateAfterMillis, writerBoundMillis } from './counting-plan.ts';
import type { MeterEventStore, MinuteUsage, UsageReader } from './meter-event.ts';
import { minuteOf } from './rules.ts';
import { minuteUsageReader } from './summaries.ts';

/** One meter's usage of one customer: the partition its minutes, hour rollups and watermark share. */
export interface UsagePartition {
  scope: Scope;
  meterId: string;
  customerId: string;
}

/** An hour's usage rolled up from its minutes: the sums, and the latest `last` of its minutes. */
export interface HourRollup {
  hour: number;
  total: number;
  events: number;
  last: { value: number; timestamp: number } | null;
}

/**
 * An hour's item as stored: its rollup and when it was computed (`asOf`, the roller's clock before it read
 * the minutes), and `dirtyAt`, the writer time of the latest late change of one of its minutes. An item
 * with only `dirtyAt` is a late marker on an hour never rolled since.
 */
export interface StoredHour {
  hour: number;
  rollup?: HourRollup;
  asOf?: number;
  dirtyAt?: number;
}

/** The usage store's rollup side (shared/data/metering/rollups.ts), every read strongly consistent. */
export interface UsageRollupStore extends Pick<MeterEventStore, 'usage'> {
  /** The hour items of `[fromHour, toHour)` (one Query) and the watermark (`rolledThrough`; a GetItem beside it). */
  hours(partition: UsagePartition, fromHour: number, toHour: number): Promise<{ hours: StoredHour[]; rolledThrough: number | undefined }>;
  /** The watermark alone. */
  rolledThrough(partition: UsagePartition): Promise<number | undefined>;
  /** The earliest minute item of the partition, if any (a Query of one item). */
  firstMinute(partition: UsagePartition): Promise<number | undefined>;
  /** Writes rollups computed at `asOf`, each unless its item holds a later one; a late marker on it stays. */
  writeRollups(partition: UsagePartition, rollups: HourRollup[], asOf: number): Promise<void>;
  /** Moves the watermark to `to` unless it is there or later already (concurrent rollers never move it back). */
  advance(partition: UsagePartition, to: number): Promise<void>;
}

/**
 * Hours rolled per roll (scheduled or on read): a week, about one 1 MB Query page of a busy customer's
 * minutes (10,080 items of about 100 bytes), so no roll reads or writes without bound.
 */
export const maxHoursPerRoll = 168;

/** The end of the hours that may be rolled at `now`: those ended at least `lateAfterMillis + writerBoundMillis` ago. */
export const rollableBefore = (now: number): number => hourOf(now - lateAfterMillis - writerBoundMillis);

/**
 * Whether an hour's rollup can stand in for its minutes: computed after the hour became rollable, and at
 * least `writerBoundMillis` after its latest late marker (every change that marker announced has committed
 * by then, and was read).
 */
export function trusted(item: StoredHour): item is StoredHour & { rollup: HourRollup; asOf: number } {
  if (item.rollup === undefined || item.asOf === undefined) return false;
  if (item.asOf < item.hour + hourMillis + lateAfterMillis + writerBoundMillis) return false;
  return item.dirtyAt === undefined || item.asOf >= item.dirtyAt + writerBoundMillis;
}

/** The rollups of `hours` from their minutes (hours without minutes: zero). */
export function rollupsOf(hours: number[], minutes: MinuteUsage[]): HourRollup[] {
  const byHour = new Map<number, HourRollup>(hours.map((hour) => [hour, { hour, total: 0, events: 0, last: null }]));
  for (const minute of minutes) {
    const rollup = byHour.get(hourOf(minute.minute));
    if (!rollup) continue;
    rollup.total += minute.total;
    rollup.events += minute.events;
    if (minute.last && (!rollup.last || minute.last.timestamp > rollup.last.timestamp)) rollup.last = minute.last;
  }
  return [...byHour.values()];
}

/** An hour's rollup as one piece of usage, starting at the hour (what `MinuteUsage` readers aggregate). */
const pieceOf = (rollup: HourRollup): MinuteUsage => ({ minute: rollup.hour, total: rollup.total, events: rollup.events, last: rollup.last });

/** What one read did: the Queries it made (rollups, minute ranges), the minute items it read, the hours it rolled. */
export interface UsageReadStats {
  rollupQueries: number;
  minuteQueries: number;
  minutesRead: number;
  hoursRolled: number;
}

/**
 * Usage read through the hour rollups (TABLE_DESIGN.md, *Usage rollups*): whole hours come from their
 * rollup when it is trusted, or are known empty (before the watermark, no item); the partial hours at the
 * range's edges, hours not rolled yet and dirty hours come from their minutes. Each read rolls what it read
 * from minutes and may roll (at most `maxHoursPerRoll` hours), so the next read is cheaper. The pieces
 * aggregate exactly as the minutes do: sums and counts add, and `last` is the latest of the latest.
 */
export function usageRollups({ store, clock = systemClock, rollOnRead = true }: { store: UsageRollupStore; clock?: Clock; rollOnRead?: boolean }) {
  /** The watermark to read by: the stored one, or for a partition never rolled, the first hour that may hold usage. */
  async function watermarkOf(partition: UsagePartition, stored: number | undefined, asOf: number): Promise<{ at: number; fresh: boolean }> {
    if (stored !== undefined) return { at: stored, fresh: false };
    const first = await store.firstMinute(partition);
    // Hours before the first minute, once rollable, had no usage: a change to one from now on is late, so marked.
    return { at: Math.min(first === undefined ? Number.POSITIVE_INFINITY : hourOf(first), rollableBefore(asOf)), fresh: true };
  }

  async function read(partition: UsagePartition, from: number, to: number): Promise<{ usage: MinuteUsage[]; stats: UsageReadStats }> {
    const [start, end] = [minuteOf(from), minuteOf(to)];
    const stats: UsageReadStats = { rollupQueries: 0, minuteQueries: 0, minutesRead: 0, hoursRolled: 0 };
    if (end <= start) return { usage: [], stats };
    const firstHour = Math.ceil(start / hourMillis) * hourMillis;
    const lastHour = hourOf(end);
    if (firstHour >= lastHour) {
      const usage = await store.usage(partition.scope, partition.meterId, partition.customerId, start, end);
      return { usage, stats: { ...stats, minuteQueries: 1, minutesRead: usage.length } };
    }
    // Before any read: a rollup written from what this read finds is computed as of now.
    const asOf = clock();
    const minutesOf = ([a, b]: [number, number]) => store.usage(partition.scope, partition.meterId, partition.customerId, a, b);
    // Read from minutes whatever the rollups say, so in the same round trip as the rollups: the partial
    // hours at the edges, and the hours that may not be rolled yet (none of them can have a trusted rollup).
    const rolledPart = Math.max(firstHour, Math.min(lastHour, rollableBefore(asOf)));
    const certain: Array<[number, number]> = [];
    if (start < firstHour) certain.push([start, firstHour]);
    if (rolledPart < end) {
      const last = certain.at(-1);
      if (last && last[1] === rolledPart) last[1] = end;
      else certain.push([rolledPart, end]);
    }
    const noHours = { hours: [] as StoredHour[], rolledThrough: undefined };
    const [{ hours, rolledThrough }, certainMinutes] = await Promise.all([
      rolledPart > firstHour ? store.hours(partition, firstHour, rolledPart) : noHours,
      Promise.all(certain.map(minutesOf)),
    ]);
    stats.rollupQueries = rolledPart > firstHour ? 1 : 0;
    const pieces: MinuteUsage[] = [];
    const ranges: Array<[number, number]> = [];
    const unrolled: number[] = [];
    const byHour = new Map(hours.map((item) => [item.hour, item]));
    const watermark = rolledPart > firstHour ? await watermarkOf(partition, rolledThrough, asOf) : { at: firstHour, fresh: false };
    for (let hour = firstHour; hour < rolledPart; hour += hourMillis) {
      const item = byHour.get(hour);
      if (item && trusted(item)) pieces.push(pieceOf(item.rollup));
      else if (!item && hour < watermark.at) continue;
      else {
        const last = ranges.at(-1);
        if (last && last[1] === hour) last[1] = hour + hourMillis;
        else ranges.push([hour, hour + hourMillis]);
        unrolled.push(hour);
      }
    }
    const unrolledMinutes = (await Promise.all(ranges.map(minutesOf))).flat();
    const minutes = [...certainMinutes.flat(), ...unrolledMinutes];
    stats.minuteQueries = certain.length + ranges.length;
    stats.minutesRead = minutes.length;
    if (rollOnRead && rolledPart > firstHour) {
      try {
        stats.hoursRolled = await rollRead(partition, { asOf, byHour, unrolled, minutes: unrolledMinutes, watermark, firstHour, lastHour: rolledPart });
      } catch (error) {
        // The answer stands: rolling is only to make the next read cheaper (the scheduled roll does it too).
        logger.warn('Usage read could not roll what it read', { error: error as Error, meterId: partition.meterId });
      }
    }
    return { usage: [...pieces, ...minutes].sort((a, b) => a.minute - b.minute), stats };
  }

  /**
   * Rolls the hours a read took from their minutes that may be rolled (the earliest `maxHoursPerRoll`), and
   * moves the watermark over them when the read began at or before it. Returns the hours written.
   */
  async function rollRead(
    partition: UsagePartition,
    read: {
      asOf: number;
      byHour: Map<number, StoredHour>;
      unrolled: number[];
      minutes: MinuteUsage[];
      watermark: { at: number; fresh: boolean };
      firstHour: number;
      lastHour: number;
    },
  ): Promise<number> {
    const { asOf, byHour, minutes, watermark } = read;
    const rollable = rollableBefore(asOf);
    // A dirty hour whose marker is too recent would still not be trusted: not worth a write yet.
    const candidates = read.unrolled.filter((hour) => {
      const dirtyAt = byHour.get(hour)?.dirtyAt;
      return hour < rollable && (dirtyAt === undefined || asOf >= dirtyAt + writerBoundMillis);
    });
    const chosen = candidates.slice(0, maxHoursPerRoll);
    const written = rollupsOf(chosen, minutes).filter((rollup) => rollup.events !== 0 || rollup.total !== 0 || rollup.last || byHour.has(rollup.hour));
    if (written.length > 0) await store.writeRollups(partition, written, asOf);
    // Hours from the watermark up to here were all read (from rollups, or minutes rolled just now, or markers).
    const capped = candidates[maxHoursPerRoll] ?? Number.POSITIVE_INFINITY;
    const through = Math.min(read.lastHour, rollable, capped);
    if (watermark.at >= read.firstHour && through > watermark.at) await store.advance(partition, through);
    else if (watermark.fresh && Number.isFinite(watermark.at)) await store.advance(partition, watermark.at);
    return written.length;
  }

  /**
   * The scheduled roll of one partition: from its watermark, the hours that may be rolled, at most
   * `maxHoursPerRoll`; then the watermark moves past them. True when it caught up (nothing rollable left).
   */
  async function roll(partition: UsagePartition): Promise<{ caughtUp: boolean; hoursRolled: number }> {
    const asOf = clock();
    const rollable = rollableBefore(asOf);
    const watermark = await watermarkOf(partition, await store.rolledThrough(partition), asOf);
    if (!Number.isFinite(watermark.at) || watermark.at >= rollable) {
      if (watermark.fresh && Number.isFinite(watermark.at)) await store.advance(partition, watermark.at);
      return { caughtUp: true, hoursRolled: 0 };
    }
    const through = Math.min(rollable, watermark.at + maxHoursPerRoll * hourMillis);
    const [{ hours }, minutes] = await Promise.all([
      store.hours(partition, watermark.at, through),
      store.usage(partition.scope, partition.meterId, partition.customerId, watermark.at, through),
    ]);
    const byHour = new Map(hours.map((item) => [item.hour, item]));
    const all: number[] = [];
    for (let hour = watermark.at; hour < through; hour += hourMillis) all.push(hour);
    const written = rollupsOf(all, minutes).filter((rollup) => rollup.events !== 0 || rollup.total !== 0 || rollup.last || byHour.has(rollup.hour));
    if (written.length > 0) await store.writeRollups(partition, written, asOf);
    await store.advance(partition, through);
    return { caughtUp: through === rollable, hoursRolled: written.length };
  }

  /** Usage pieces of `[from, to)`: whole hours as one piece each (at the hour's start), minutes elsewhere. */
  const usage: MeterEventStore['usage'] = async (scope, meterId, customerId, from, to) => (await read({ scope, meterId, customerId }, from, to)).usage;

  return {
    read,
    roll,
    usage,
    /** The `UsageReader` port on the rollups: the same aggregate as the minute reader's, from far fewer items. */
    reader: minuteUsageReader({ usage }) satisfies UsageReader,
  };
}

export type UsageRollups = ReturnType<typeof usageRollups>;

/** The registry of partitions rolled on a schedule (the watermark items in the due index). */
export interface UsageRollSchedule {
  /** Partitions whose roll is due by `now`, each claimed (its due time moved on a few minutes), with its registration's end. */
  claimDue(now: number, limit: number): Promise<Array<{ partition: UsagePartition; rollUntil: number }>>;
  reschedule(partition: UsagePartition, dueAt: number): Promise<void>;
  /** Takes the partition off the schedule unless registered again past `now`; false when it was. */
  lapse(partition: UsagePartition, now: number): Promise<boolean>;
}

/** A day between scheduled rolls of a registered partition (stack time: event timestamps follow the stack's clock). */
export const rollEveryMillis = 24 * 60 * 60 * 1000;

/** Rolls at once per sweep: a sweep of 1,000 daily rolls (~100 ms each) takes a few seconds of the job's 30. */
const sweepConcurrency = 16;

/**
 * Rolls claimed per sweep (each of the 32 due shards gives its share): one sweep a minute rolls up to
 * 1.4 million partitions a day, a million registered partitions with room to catch up.
 */
const rollsPerSweep = 1000;

/**
 * The scheduled roll: partitions a metered subscription item registered are rolled once a day (stack
 * time), sooner while a roll has not caught up, until their registration ends, so an invoice reads one
 * page of rollups even if nobody read the usage all month.
 */
export function usageRollSweeper({
  schedule,
  rollups,
  clock = systemClock,
}: {
  schedule: UsageRollSchedule;
  rollups: Pick<UsageRollups, 'roll'>;
  clock?: Clock;
}) {
  return {
    async sweep(limit = rollsPerSweep): Promise<{ rolled: number; hours: number }> {
      const now = clock();
      const due = await schedule.claimDue(now, limit);
      let hours = 0;
      const pending = [...due];
      await Promise.all(
        Array.from({ length: Math.min(sweepConcurrency, pending.length) }, async () => {
          for (let entry = pending.shift(); entry; entry = pending.shift()) {
            const { partition, rollUntil } = entry;
            const outcome = await rollups.roll(partition);
            hours += outcome.hoursRolled;
            if (outcome.caughtUp && rollUntil <= now && (await schedule.lapse(partition, now))) continue;
            await schedule.reschedule(partition, outcome.caughtUp ? now + rollEveryMillis : now);
          }
        }),
      );
      return { rolled: due.length, hours };
    },
  };
}
