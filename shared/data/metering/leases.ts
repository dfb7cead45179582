import type { PutCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { LeaseEntry, MeterEventRecord, UsageLease, UsageLeaseStore } from '#shared/meter-events/meter-event.ts';
import type { Scope } from '#shared/platform/types.ts';
import { uniquenessWindowMillis } from '#shared/meter-events/rules.ts';
import { backOff, epochSeconds, isConditionFailure, isTransactionConflict, oldItemOf } from '../conditions.ts';
import { meterUsage as usageKeys } from '../keys.ts';
import type { Table } from '../table.ts';
import { claimable, eventItem, eventKey, eventRetentionMillis } from './items.ts';
import { markLateHours } from './rollups.ts';

/** A usage lease is released by its request; this bounds it when the request dies. */
const leaseMillis = 5_000;

export const leaseKey = (lease: Omit<UsageLease, 'owner'>) => ({
  PK: usageKeys.pk(lease.scope, lease.meter.id, lease.customerId),
  SK: usageKeys.sk(lease.minute),
});

/** The entries of one lease holder on the minute's item (a list), removed by the release that settles them. */
const entryPrefix = 'entry#';
const entryAttribute = (owner: string) => `${entryPrefix}${owner}`;
/** The entries left in a usage item's lease (also read by the local stack's recovery of settle messages). */
export const entriesOf = (item: Record<string, unknown> | undefined): LeaseEntry[] =>
  Object.entries(item ?? {}).flatMap(([attribute, value]) =>
    attribute.startsWith(entryPrefix)
      ? (value as Array<Omit<LeaseEntry, 'owner'>>).map((entry) => ({ ...entry, owner: attribute.slice(entryPrefix.length) }))
      : [],
  );

/** What a release counts: the entries counted into the minute, and the one whose value becomes `last`, if any. */
function tally(counted: Array<{ entry: LeaseEntry; setsLast: boolean }>) {
  let total = 0;
  let latest: LeaseEntry | undefined;
  for (const { entry, setsLast } of counted) {
    total += entry.value;
    if (setsLast && (!latest || entry.timestamp >= latest.timestamp)) latest = entry;
  }
  return { total, latest };
}

/**
 * Usage leases on the minute usage items, and the identifier claims made under them (TABLE_DESIGN.md
 * 18): the update of each step, as pure builders.
 */
export const usageLeaseEntity = {
  key: leaseKey,
  /** Taken if free or run out, with the holder's entries written in the same update; the old item comes back. */
  take(tableName: string, lease: UsageLease, entries: LeaseEntry[], now: number): UpdateCommandInput {
    const writes = entries.length > 0;
    return {
      TableName: tableName,
      Key: leaseKey(lease),
      UpdateExpression: `SET leaseOwner = :owner, leaseUntil = :until${writes ? ', #entry = :entries' : ''}`,
      ConditionExpression: 'attribute_not_exists(leaseUntil) OR leaseUntil < :now',
      ...(writes ? { ExpressionAttributeNames: { '#entry': entryAttribute(lease.owner) } } : {}),
      ExpressionAttributeValues: {
        ':owner': lease.owner,
        ':until': now + leaseMillis,
        ':now': now,
        ...(writes ? { ':entries': entries.map(({ identifier, created, value, timestamp }) => ({ identifier, created, value, timestamp })) } : {}),
      },
      ReturnValues: 'ALL_OLD',
    };
  },
  /**
   * Released by its holder, counting `counted` into the minute (and, with `setsLast`, its latest entry as
   * `last` unless the minute holds a later one) and removing the entries of `owners`.
   */
  release(
    tableName: string,
    lease: UsageLease,
    counted: Array<{ entry: LeaseEntry; setsLast: boolean }>,
    owners: string[],
    setsLast: boolean,
  ): UpdateCommandInput {
    const names: Record<string, string> = {};
    const removes = ['leaseOwner', 'leaseUntil'];
    [...new Set(owners)].forEach((owner, index) => {
      names[`#e${index}`] = entryAttribute(owner);
      removes.push(`#e${index}`);
    });
    const { total, latest } = tally(counted);
    const last = setsLast && lease.meter.formula === 'last' && latest !== undefined;
    const counts = counted.length > 0;
    const sets = counts ? ['entity = :entity', 'minuteStart = :minute'] : [];
    if (last) sets.push('lastValue = :lastValue', 'lastTimestamp = :lastTimestamp', 'lastIdentifier = :lastIdentifier');
    return {
      TableName: tableName,
      Key: leaseKey(lease),
      UpdateExpression: [sets.length > 0 ? `SET ${sets.join(', ')}` : '', counts ? 'ADD #total :total, #events :events' : '', `REMOVE ${removes.join(', ')}`]
        .join(' ')
        .trim(),
      ConditionExpression: `leaseOwner = :owner${last ? ' AND (attribute_not_exists(lastTimestamp) OR lastTimestamp <= :lastTimestamp)' : ''}`,
      ExpressionAttributeNames: { ...names, ...(counts ? { '#total': 'total', '#events': 'events' } : {}) },
      ExpressionAttributeValues: {
        ':owner': lease.owner,
        ...(counts ? { ':entity': 'meter_usage', ':minute': lease.minute, ':total': total, ':events': counted.length } : {}),
        ...(last ? { ':lastValue': latest.value, ':lastTimestamp': latest.timestamp, ':lastIdentifier': latest.identifier } : {}),
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    };
  },
  /** An identifier claimed by `owner`: free, out of its 24 hours, or fenced only against other owners. */
  claim: (tableName: string, event: MeterEventRecord, owner: string): PutCommandInput => ({
    TableName: tableName,
    Item: { ...eventItem(event), claimedBy: owner },
    ConditionExpression: `${claimable} OR (attribute_exists(fencedOwners) AND NOT contains(fencedOwners, :owner))`,
    ExpressionAttributeValues: { ':cutoff': event.created - uniquenessWindowMillis, ':owner': owner },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  }),
  /** The fence a settling holder puts on a stopped request's identifier, unless its claim stands (the old item tells). */
  fence: (tableName: string, scope: Scope, entry: LeaseEntry): UpdateCommandInput => ({
    TableName: tableName,
    Key: eventKey({ scope, identifier: entry.identifier }),
    UpdateExpression: 'SET entity = :fence, created = :created, expiresAt = :expiresAt ADD fencedOwners :owners',
    ConditionExpression: `${claimable} OR attribute_exists(fencedOwners)`,
    ExpressionAttributeValues: {
      ':fence': 'meter_event_fence',
      ':created': entry.created,
      ':expiresAt': epochSeconds(entry.created + eventRetentionMillis),
      ':owners': new Set([entry.owner]),
      ':cutoff': entry.created - uniquenessWindowMillis,
    },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  }),
};

/**
 * Usage leases on the minute usage items (TABLE_DESIGN.md, 18): a request takes the minute's lease,
 * claims its events' identifiers, and counts them in the write that releases the lease; whoever takes the
 * lease next settles what a stopped request left.
 */
export function dynamoUsageLeaseStore(table: Table): UsageLeaseStore {
  const { name } = table;
  return {
    async takeLease(lease, entries, now) {
      for (let round = 0; ; round++) {
        try {
          return entriesOf(await table.update(usageLeaseEntity.take(name, lease, entries, now)));
        } catch (error) {
          if (isConditionFailure(error)) return undefined;
          // A stream worker's transaction on the minute: held, in effect; a few tries, then the caller's 409.
          if (!isTransactionConflict(error)) throw error;
          if (round >= 3) return undefined;
          await backOff(round);
        }
      }
    },

    async releaseLease(lease, counted, owners) {
      let setsLast = true;
      if (counted.length > 0) await markLateHours(table, [{ scope: lease.scope, meterId: lease.meter.id, customerId: lease.customerId, minute: lease.minute }]);
      for (let round = 0; ; round++) {
        try {
          await table.update(usageLeaseEntity.release(name, lease, counted, owners, setsLast));
          return true;
        } catch (error) {
          if (isTransactionConflict(error) && round < 50) {
            await backOff(round);
            continue;
          }
          if (!isConditionFailure(error)) throw error;
          if (oldItemOf(error)?.leaseOwner !== lease.owner) return false;
          // Still ours: the minute holds a later `last` (a stream event's); count without it.
          setsLast = false;
        }
      }
    },

    async readLease(lease) {
      const Item = await table.getConsistent(leaseKey(lease));
      return { owner: Item?.leaseOwner as string | undefined, until: Item?.leaseUntil as number | undefined, entries: entriesOf(Item) };
    },

    async claim(event, owner) {
      try {
        await table.put(usageLeaseEntity.claim(name, event, owner));
        return 'claimed';
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return (oldItemOf(error)?.fencedOwners as Set<string> | undefined)?.has(owner) ? 'fenced' : 'duplicate';
      }
    },

    async settle(scope, entry) {
      try {
        // The fence: the stopped request's claim (conditional on not being fenced) can no longer succeed.
        await table.update(usageLeaseEntity.fence(name, scope, entry));
        return 'fenced';
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const claimed = oldItemOf(error);
        // Its claim stands (count it), or the identifier is another event's (the request's claim failed).
        if (claimed?.claimedBy !== entry.owner) return 'fenced';
        return claimed.cancelAdjustmentId ? 'count-without-last' : 'count';
      }
    },
  };
}
