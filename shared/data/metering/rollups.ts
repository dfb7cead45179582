import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { lateHourOf } from '#shared/meter-events/counting-plan.ts';
import {
  rollEveryMillis,
  type HourRollup,
  type StoredHour,
  type UsagePartition,
  type UsageRollSchedule,
  type UsageRollupStore,
} from '#shared/meter-events/rollups.ts';
import { isConditionFailure, whenConditionHolds } from '../conditions.ts';
import { dueEntry, dueItems } from '../due-index.ts';
import { meterUsage as usageKeys } from '../keys.ts';
import { queryAll, type Table, type TransactItem } from '../table.ts';

const partitionKey = ({ scope, meterId, customerId }: UsagePartition) => usageKeys.pk(scope, meterId, customerId);
const hourKey = (partition: UsagePartition, hour: number) => ({ PK: partitionKey(partition), SK: usageKeys.hourSk(hour) });
const watermarkKey = (partition: UsagePartition) => ({ PK: partitionKey(partition), SK: usageKeys.watermarkSk() });

/** How long a sweep holds a claimed roll before another sweep may take it (a roll takes seconds). */
const claimMillis = 5 * 60 * 1000;

/**
 * Hour rollups, late markers, the watermark and its scheduled roll, in the usage partition
 * (TABLE_DESIGN.md [E20a], [E20b]): the update of each step, as pure builders.
 */
export const usageRollupEntity = {
  hourKey,
  watermarkKey,
  /**
   * The late marker a change of `minute`'s usage decided at `now` writes first, or undefined when the change
   * is on time (the counting plan's `lateHourOf`). It keeps the latest writer time, and creates the hour's
   * item when absent (a marker alone: "read the minutes").
   */
  markLate(tableName: string, partition: UsagePartition, minute: number, now: number): UpdateCommandInput | undefined {
    const hour = lateHourOf(minute, now);
    if (hour === undefined) return undefined;
    return {
      TableName: tableName,
      Key: hourKey(partition, hour),
      UpdateExpression: 'SET entity = :entity, dirtyAt = :at',
      ConditionExpression: 'attribute_not_exists(dirtyAt) OR dirtyAt < :at',
      ExpressionAttributeValues: { ':entity': 'meter_usage_hour', ':at': now },
    };
  },
  /** An hour's rollup computed at `asOf`, unless the item holds one computed later; `dirtyAt` is left as it is. */
  writeRollup(tableName: string, partition: UsagePartition, rollup: HourRollup, asOf: number): UpdateCommandInput {
    const sets = ['entity = :entity', '#total = :total', '#events = :events', 'asOf = :asOf'];
    if (rollup.last) sets.push('lastValue = :lastValue', 'lastTimestamp = :lastTimestamp');
    return {
      TableName: tableName,
      Key: hourKey(partition, rollup.hour),
      UpdateExpression: `SET ${sets.join(', ')}${rollup.last ? '' : ' REMOVE lastValue, lastTimestamp'}`,
      ConditionExpression: 'attribute_not_exists(asOf) OR asOf < :asOf',
      ExpressionAttributeNames: { '#total': 'total', '#events': 'events' },
      ExpressionAttributeValues: {
        ':entity': 'meter_usage_hour',
        ':total': rollup.total,
        ':events': rollup.events,
        ':asOf': asOf,
        ...(rollup.last ? { ':lastValue': rollup.last.value, ':lastTimestamp': rollup.last.timestamp } : {}),
      },
    };
  },
  /** The watermark moved to `to`, never back. */
  advance: (tableName: string, partition: UsagePartition, to: number): UpdateCommandInput => ({
    TableName: tableName,
    Key: watermarkKey(partition),
    UpdateExpression: 'SET entity = :entity, rolledThrough = :to',
    ConditionExpression: 'attribute_not_exists(rolledThrough) OR rolledThrough < :to',
    ExpressionAttributeValues: { ':entity': 'meter_usage_watermark', ':to': to },
  }),
  /**
   * Registers the partition for the scheduled roll until `until` (an action of the caller's transaction:
   * a subscription item that bills the meter's usage of the customer). Its first roll is due a day from
   * `now` unless it is scheduled already; registering again only moves `until`.
   */
  register(tableName: string, partition: UsagePartition, until: number, now: number): TransactItem {
    const due = dueEntry('meter-rolls', partitionKey(partition), now + rollEveryMillis);
    return {
      Update: {
        TableName: tableName,
        Key: watermarkKey(partition),
        UpdateExpression: 'SET entity = :entity, rollUntil = :until, GSI2PK = if_not_exists(GSI2PK, :pk), GSI2SK = if_not_exists(GSI2SK, :sk)',
        ExpressionAttributeValues: { ':entity': 'meter_usage_watermark', ':until': until, ':pk': due.GSI2PK, ':sk': due.GSI2SK },
      },
    };
  },
  /** A sweep's claim of a due roll: its due time moved on, if no other sweep moved it since it was read. */
  claim: (tableName: string, key: { PK: string; SK: string }, readSk: string, now: number): UpdateCommandInput => ({
    TableName: tableName,
    Key: key,
    UpdateExpression: 'SET GSI2SK = :claimed',
    ConditionExpression: 'GSI2SK = :read',
    ExpressionAttributeValues: { ':claimed': dueEntry('meter-rolls', key.PK, now + claimMillis).GSI2SK, ':read': readSk },
  }),
  /** The next roll at `dueAt`. */
  reschedule: (tableName: string, partition: UsagePartition, dueAt: number): UpdateCommandInput => {
    const due = dueEntry('meter-rolls', partitionKey(partition), dueAt);
    return {
      TableName: tableName,
      Key: watermarkKey(partition),
      UpdateExpression: 'SET GSI2PK = :pk, GSI2SK = :sk',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':pk': due.GSI2PK, ':sk': due.GSI2SK },
    };
  },
  /** Out of the schedule, unless registered again (`rollUntil` moved past `now`) since it was claimed. */
  lapse: (tableName: string, partition: UsagePartition, now: number): UpdateCommandInput => ({
    TableName: tableName,
    Key: watermarkKey(partition),
    UpdateExpression: 'REMOVE GSI2PK, GSI2SK',
    ConditionExpression: 'rollUntil <= :now',
    ExpressionAttributeValues: { ':now': now },
  }),
};

/**
 * Writes the late markers of the minutes a write is about to change (once per hour), each decided at this
 * moment of the table's clock: called by every path that changes a minute's usage, just before its write.
 */
export async function markLateHours(table: Table, minutes: Array<UsagePartition & { minute: number }>): Promise<void> {
  const now = table.clock();
  const marks = new Map<string, UpdateCommandInput>();
  for (const { minute, ...partition } of minutes) {
    const mark = usageRollupEntity.markLate(table.name, partition, minute, now);
    if (mark) marks.set(`${partitionKey(partition)}|${(mark.Key as { SK: string }).SK}`, mark);
  }
  // A failed condition: a later writer's marker is there already, which covers this change too.
  await Promise.all([...marks.values()].map((mark) => whenConditionHolds(() => table.update(mark))));
}

/** An hour item as read (its hour from its key: the item stays small, as a month of them is one page). */
function toStoredHour(item: Record<string, unknown>): StoredHour {
  const hour = usageKeys.hourOf(item.SK as string);
  const rolled = typeof item.asOf === 'number';
  return {
    hour,
    ...(rolled
      ? {
          asOf: item.asOf as number,
          rollup: {
            hour,
            total: Number(item.total),
            events: Number(item.events),
            last: typeof item.lastTimestamp === 'number' ? { value: Number(item.lastValue), timestamp: item.lastTimestamp } : null,
          },
        }
      : {}),
    ...(typeof item.dirtyAt === 'number' ? { dirtyAt: item.dirtyAt } : {}),
  };
}

/** Most rollup writes in flight at once for one partition. */
const writeConcurrency = 16;

/** The rollup side of the usage store, and the scheduled roll's registry (shared/meter-events/rollups.ts). */
export function dynamoUsageRollupStore(table: Table): Omit<UsageRollupStore, 'usage'> & UsageRollSchedule {
  const { name } = table;

  const rolledThrough = async (partition: UsagePartition) => (await table.getConsistent(watermarkKey(partition)))?.rolledThrough as number | undefined;

  return {
    async hours(partition, fromHour, toHour) {
      const [items, watermark] = await Promise.all([
        queryAll(table, {
          TableName: name,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': partitionKey(partition), ':from': usageKeys.hourSk(fromHour), ':to': usageKeys.hourSk(toHour - 1) },
          ConsistentRead: true,
        }),
        rolledThrough(partition),
      ]);
      return { hours: items.map(toStoredHour), rolledThrough: watermark };
    },

    rolledThrough,

    async firstMinute(partition) {
      const { items } = await table.query({
        TableName: name,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :minute)',
        ExpressionAttributeValues: { ':pk': partitionKey(partition), ':minute': usageKeys.minutePrefix() },
        ConsistentRead: true,
        Limit: 1,
      });
      return items[0] ? (usageKeys.parse(items[0].PK as string, items[0].SK as string)?.minute ?? undefined) : undefined;
    },

    async writeRollups(partition, rollups, asOf) {
      const pending = [...rollups];
      await Promise.all(
        Array.from({ length: Math.min(writeConcurrency, pending.length) }, async () => {
          for (let rollup = pending.shift(); rollup; rollup = pending.shift()) {
            const input = usageRollupEntity.writeRollup(name, partition, rollup, asOf);
            // A failed condition: a roll computed later wrote this hour already.
            await whenConditionHolds(() => table.update(input));
          }
        }),
      );
    },

    async advance(partition, to) {
      await whenConditionHolds(() => table.update(usageRollupEntity.advance(name, partition, to)));
    },

    async claimDue(now, limit) {
      const due = await dueItems(table, 'meter-rolls', now, limit);
      const claimed = await Promise.all(
        due.map(async (item) => {
          const partition = usageKeys.partition(item.PK as string);
          if (!partition) return undefined;
          try {
            await table.update(usageRollupEntity.claim(name, { PK: item.PK as string, SK: item.SK as string }, item.GSI2SK as string, now));
            return { partition, rollUntil: (item.rollUntil as number | undefined) ?? 0 };
          } catch (error) {
            // Another sweep claimed it first.
            if (isConditionFailure(error)) return undefined;
            throw error;
          }
        }),
      );
      return claimed.filter((entry) => entry !== undefined);
    },

    async reschedule(partition, dueAt) {
      await whenConditionHolds(() => table.update(usageRollupEntity.reschedule(name, partition, dueAt)));
    },

    lapse: (partition, now) => whenConditionHolds(() => table.update(usageRollupEntity.lapse(name, partition, now))),
  };
}

/**
 * The hook a subscription's creation (or renewal) calls for each metered item, as an action of its own
 * transaction: the usage partition of `meterId` and `customerId` is rolled daily until `until` (the
 * period's end, with a day's margin added here), so its invoice reads one Query page of rollups even when
 * nobody read the usage all month. One action per partition: a transaction may not name an item twice.
 */
export const registerUsageRoll = (table: Pick<Table, 'name' | 'clock'>, partition: UsagePartition, until: number): TransactItem =>
  usageRollupEntity.register(table.name, partition, until + rollEveryMillis, table.clock());
