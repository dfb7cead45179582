import type { Outbox } from '#shared/events/event.ts';
import type {
  ErrorWindow,
  LeaseEntry,
  MeterEventAdjustment,
  MeterEventBatch,
  MeterEventError,
  MeterEventRecord,
  MeterEventSession,
  MeterEventStore,
  MeterWork,
  MinuteUsage,
  RecordChange,
  UsageGroup,
  UsageLease,
} from '#shared/meter-events/meter-event.ts';
import { uniquenessWindowMillis } from '#shared/meter-events/rules.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Table } from './table.ts';
import { cancellationCodes, epochSeconds, isConditionFailure } from './conditions.ts';
import {
  meterErrorWindow,
  meterEvent as eventKeys,
  meterEventAdjustment as adjustmentKeys,
  meterEventBatch as batchKeys,
  meterEventSession as sessionKeys,
  meterUsage as usageKeys,
  meterWorkDue,
} from './keys.ts';
import { dueShardOf, dueShards, perShardLimit } from './outbox-items.ts';
import { transactGuarded } from './transactions.ts';

const hour = 60 * 60 * 1000;
const day = 24 * hour;
/** Event records outlive the 24-hour window by a day, so "too old to cancel" can be told from "unknown". */
const eventRetentionMillis = 2 * day;
const adjustmentRetentionMillis = 30 * day;
const batchRetentionMillis = 7 * day;
const errorWindowRetentionMillis = 30 * day;
/** A usage lease is released by its request; this bounds it when the request dies. */
const leaseMillis = 5_000;
/**
 * Stream events of one batch, customer, meter and minute from which on they are claimed one by one
 * (1 write unit each) and counted with the batch's mark (4 units per group), instead of inside the usage
 * transaction (2 units each): cheaper from 3 events on.
 */
const minClaimedGroup = 3;

/**
 * Whether a stream batch is stored with a separate due item: the due index projects whole items, so a
 * batch over 1 KB would be written twice (and rewritten when finished) for its place in the index.
 */
const isLargeBatch = (batch: MeterEventBatch) => JSON.stringify(batch.events).length > 700;
const maxSamplesPerCode = 5;

/** Waits before another try of a transaction that conflicted with another: jittered, growing to 0.5 s. */
const backOff = (round: number) => new Promise((resolve) => setTimeout(resolve, Math.min(500, 10 * 2 ** Math.min(round, 6)) * (0.5 + Math.random())));
const maxTransactionItems = 100;

const internal = new Set(['PK', 'SK', 'GSI2PK', 'GSI2SK', 'entity', 'expiresAt', 'claimedBy']);
const strip = <T>(item: Record<string, unknown>): T => Object.fromEntries(Object.entries(item).filter(([key]) => !internal.has(key))) as T;
const unexpired = (item: Record<string, unknown> | undefined, now: number) =>
  item && (typeof item.expiresAt !== 'number' || item.expiresAt * 1000 > now) ? item : undefined;

const workDue = (id: string, dueAt: number) => ({ GSI2PK: meterWorkDue.gsi2pk('work', dueShardOf(id)), GSI2SK: meterWorkDue.gsi2sk(dueAt, id) });

const eventKey = (event: Pick<MeterEventRecord, 'scope' | 'identifier'>) => ({ PK: eventKeys.pk(event.scope, event.identifier), SK: eventKeys.sk() });
const leaseKey = (lease: Omit<UsageLease, 'owner'>) => ({ PK: usageKeys.pk(lease.scope, lease.meter.id, lease.customerId), SK: usageKeys.sk(lease.minute) });

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

/** The condition under which an identifier can be claimed: free, or its last claim out of the 24-hour window. */
const claimable = 'attribute_not_exists(PK) OR created < :cutoff';

/** The item a failed condition found (`ReturnValuesOnConditionCheckFailure: ALL_OLD`), unmarshalled. */
const oldItemOf = (error: unknown): Record<string, unknown> | undefined => (error as { Item?: Record<string, unknown> }).Item;

const isTransactionConflict = (error: unknown) => (error as { name?: string })?.name === 'TransactionConflictException';
const adjustmentKey = (adjustment: Pick<MeterEventAdjustment, 'scope' | 'id'>) => ({
  PK: adjustmentKeys.pk(adjustment.scope, adjustment.id),
  SK: adjustmentKeys.sk(),
});

function eventItem(event: MeterEventRecord) {
  const { cancelAdjustmentId, ...rest } = event;
  return {
    ...eventKey(event),
    entity: 'meter_event',
    expiresAt: epochSeconds(event.created + eventRetentionMillis),
    ...rest,
    ...(cancelAdjustmentId ? { cancelAdjustmentId } : {}),
  };
}

const toEvent = (item: Record<string, unknown>): MeterEventRecord => {
  const event = strip<MeterEventRecord>(item);
  return { ...event, cancelAdjustmentId: event.cancelAdjustmentId ?? null };
};

/** Whether the error code of one transaction item is a failed condition. */
const failedCondition = (code: string | undefined) => code === 'ConditionalCheckFailed';

interface PlannedGroup {
  group: UsageGroup;
  /** Set when the minute already holds a later `last` value: the group then leaves it alone. */
  keepLast: boolean;
}

/**
 * DynamoDB adapter of the metering pipeline. Every event has its own partition (by identifier), usage is
 * one item per meter, customer and minute, and each processed group moves its events' statuses and the
 * minute's totals in one transaction, which is what makes counting exactly once.
 */
export function dynamoMeterEventStore(table: Table): MeterEventStore {
  const { name } = table;

  async function conditional(write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async function queryAll(input: Parameters<Table['query']>[0]): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await table.query({ ...input, ExclusiveStartKey });
      items.push(...page.items);
      ExclusiveStartKey = page.lastKey;
    } while (ExclusiveStartKey);
    return items;
  }

  const completeAdjustmentUpdate = (adjustment: MeterEventAdjustment) => ({
    TableName: name,
    Key: adjustmentKey(adjustment),
    UpdateExpression: 'SET #status = :complete REMOVE GSI2PK, GSI2SK',
    ConditionExpression: '#status = :pending',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':complete': 'complete', ':pending': 'pending' },
  });

  /** The actions of one record change, in order. */
  function changeActions(change: RecordChange, now: number) {
    if (change.kind === 'process') {
      return [
        {
          Update: {
            TableName: name,
            Key: eventKey(change.event),
            UpdateExpression: 'SET #status = :processed REMOVE GSI2PK, GSI2SK',
            ConditionExpression: '#status = :accepted',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':processed': 'processed', ':accepted': 'accepted' },
          },
        },
      ];
    }
    if (change.kind === 'insert') {
      return [
        {
          Put: {
            TableName: name,
            Item: eventItem({ ...change.event, status: 'processed' }),
            ConditionExpression: `${claimable} OR attribute_exists(fencedOwners)`,
            ExpressionAttributeValues: { ':cutoff': now - uniquenessWindowMillis },
          },
        },
      ];
    }
    return [
      {
        Update: {
          TableName: name,
          Key: eventKey(change.event),
          UpdateExpression: 'SET #status = :cancelled',
          ConditionExpression: '#status = :processed AND cancelAdjustmentId = :adjustment',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':cancelled': 'cancelled', ':processed': 'processed', ':adjustment': change.adjustment.id },
        },
      },
      { Update: completeAdjustmentUpdate(change.adjustment) },
    ];
  }

  /** The minute's update: totals always, the `last` value when the group holds a later event than the minute. */
  function usageAction({ group, keepLast }: PlannedGroup) {
    let total = 0;
    let events = 0;
    let latest: RecordChange | undefined;
    for (const change of group.changes) {
      const sign = change.kind === 'cancel' ? -1 : 1;
      total += sign * change.value;
      events += sign;
      if (change.kind !== 'cancel' && (!latest || change.event.timestamp >= latest.event.timestamp)) latest = change;
    }
    const setsLast = group.meter.formula === 'last' && latest !== undefined && !keepLast;
    const sets = ['entity = :entity', 'minuteStart = :minute'];
    if (setsLast) sets.push('lastValue = :lastValue', 'lastTimestamp = :lastTimestamp', 'lastIdentifier = :lastIdentifier');
    return {
      Update: {
        TableName: name,
        Key: { PK: usageKeys.pk(group.scope, group.meter.id, group.customerId), SK: usageKeys.sk(group.minute) },
        UpdateExpression: `SET ${sets.join(', ')} ADD #total :total, #events :events`,
        ...(setsLast ? { ConditionExpression: 'attribute_not_exists(lastTimestamp) OR lastTimestamp <= :lastTimestamp' } : {}),
        ExpressionAttributeNames: { '#total': 'total', '#events': 'events' },
        ExpressionAttributeValues: {
          ':entity': 'meter_usage',
          ':minute': group.minute,
          ':total': total,
          ':events': events,
          ...(setsLast ? { ':lastValue': latest!.value, ':lastTimestamp': latest!.event.timestamp, ':lastIdentifier': latest!.event.identifier } : {}),
        },
      },
    };
  }

  /** Runs one transaction of whole groups. Returns what failed its condition, or 'conflict' to retry as is. */
  async function applyTransaction(planned: PlannedGroup[], now: number): Promise<{ failed: RecordChange[]; lastBlocked: PlannedGroup[] } | 'conflict' | 'ok'> {
    const actions: Record<string, unknown>[] = [];
    const owners: Array<{ planned: PlannedGroup; change?: RecordChange }> = [];
    for (const entry of planned) {
      actions.push(usageAction(entry));
      owners.push({ planned: entry });
      for (const change of entry.group.changes) {
        for (const action of changeActions(change, now)) {
          actions.push(action);
          owners.push({ planned: entry, change });
        }
      }
    }
    try {
      await table.transact(actions);
      return 'ok';
    } catch (error) {
      const codes = cancellationCodes(error);
      if (!codes) throw error;
      if (!codes.some(failedCondition)) return 'conflict';
      const failed = new Set<RecordChange>();
      const lastBlocked: PlannedGroup[] = [];
      codes.forEach((code, index) => {
        if (!failedCondition(code)) return;
        const owner = owners[index]!;
        if (owner.change) failed.add(owner.change);
        else lastBlocked.push(owner.planned);
      });
      return { failed: [...failed], lastBlocked };
    }
  }

  /** Packs groups into transactions of at most 100 actions, never two updates of one minute in the same one. */
  function pack(planned: PlannedGroup[]): PlannedGroup[][] {
    const transactions: Array<{ groups: PlannedGroup[]; size: number; minutes: Set<string> }> = [];
    for (const entry of planned) {
      const size = 1 + entry.group.changes.reduce((sum, change) => sum + (change.kind === 'cancel' ? 2 : 1), 0);
      const minute = `${usageKeys.pk(entry.group.scope, entry.group.meter.id, entry.group.customerId)}|${entry.group.minute}`;
      let target = transactions.find((tx) => tx.size + size <= maxTransactionItems && !tx.minutes.has(minute));
      if (!target) {
        target = { groups: [], size: 0, minutes: new Set() };
        transactions.push(target);
      }
      target.groups.push(entry);
      target.size += size;
      target.minutes.add(minute);
    }
    return transactions.map((tx) => tx.groups);
  }

  /** Splits groups whose actions would not fit one transaction. */
  function bounded(groups: UsageGroup[]): PlannedGroup[] {
    const planned: PlannedGroup[] = [];
    const perChunk = Math.floor((maxTransactionItems - 1) / 2);
    for (const group of groups) {
      for (let start = 0; start < group.changes.length; start += perChunk) {
        planned.push({ group: { ...group, changes: group.changes.slice(start, start + perChunk) }, keepLast: false });
      }
    }
    return planned;
  }

  /** Groups whose every change is an action of the usage transaction (API events, cancellations, small stream groups). */
  async function applyInTransactions(groups: UsageGroup[], now: number): Promise<RecordChange[]> {
    const failed: RecordChange[] = [];
    let pending = bounded(groups);
    for (let round = 0; pending.length > 0; round++) {
      if (round > 50) throw new Error('Usage could not be applied: transactions kept conflicting');
      const retry: PlannedGroup[] = [];
      let conflicted = false;
      await Promise.all(
        pack(pending).map(async (transaction) => {
          const outcome = await applyTransaction(transaction, now);
          if (outcome === 'ok') return;
          if (outcome === 'conflict') {
            conflicted = true;
            retry.push(...transaction);
            return;
          }
          const refused = new Set(outcome.failed);
          failed.push(...outcome.failed);
          for (const entry of transaction) {
            const changes = entry.group.changes.filter((change) => !refused.has(change));
            if (changes.length > 0) retry.push({ group: { ...entry.group, changes }, keepLast: entry.keepLast || outcome.lastBlocked.includes(entry) });
          }
        }),
      );
      pending = retry;
      if (conflicted) await backOff(round);
    }
    return failed;
  }

  /**
   * Stream events claimed one by one, then counted in one transaction per group with the batch's mark for
   * that group: a redelivered batch finds its own claims (the old image names the batch) and the mark, and
   * counts nothing twice; an identifier another event holds is a duplicate and is refused.
   */
  async function applyClaimed(groups: UsageGroup[], now: number): Promise<RecordChange[]> {
    const refused: RecordChange[] = [];
    const ready: UsageGroup[] = [];
    await Promise.all(
      groups.map(async (group) => {
        const outcomes = await Promise.all(group.changes.map((change) => claim(change, now)));
        const changes = group.changes.filter((_, index) => outcomes[index]);
        refused.push(...group.changes.filter((_, index) => !outcomes[index]));
        if (changes.length > 0) ready.push({ ...group, changes });
      }),
    );
    await Promise.all(ready.map((group) => countWithMark(group, now)));
    return refused;
  }

  /** Claims a stream event's identifier for its batch; true if the batch holds it (now, or from an earlier try). */
  async function claim(change: RecordChange, now: number): Promise<boolean> {
    try {
      await table.put({
        TableName: name,
        Item: eventItem({ ...change.event, status: 'processed' }),
        ConditionExpression: `${claimable} OR attribute_exists(fencedOwners)`,
        ExpressionAttributeValues: { ':cutoff': now - uniquenessWindowMillis },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return change.event.batchId !== null && oldItemOf(error)?.batchId === change.event.batchId;
    }
  }

  /** One group's usage with its batch's mark, in one transaction; nothing when the mark exists already. */
  async function countWithMark(group: UsageGroup, now: number): Promise<void> {
    const batchId = group.changes[0]!.event.batchId!;
    const usagePk = usageKeys.pk(group.scope, group.meter.id, group.customerId);
    const mark = {
      Put: {
        TableName: name,
        Item: {
          PK: batchKeys.pk(batchId),
          SK: batchKeys.appliedSk(usagePk, group.minute),
          entity: 'meter_batch_mark',
          expiresAt: epochSeconds(now + batchRetentionMillis),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    };
    let keepLast = false;
    for (let round = 0; ; round++) {
      if (round > 50) throw new Error('Usage could not be applied: transactions kept conflicting');
      try {
        await table.transact([usageAction({ group, keepLast }), mark]);
        return;
      } catch (error) {
        const codes = cancellationCodes(error);
        if (!codes) throw error;
        if (failedCondition(codes[1])) return;
        if (failedCondition(codes[0])) keepLast = true;
        else await backOff(round);
      }
    }
  }

  function errorWindowOf(item: Record<string, unknown>): ErrorWindow {
    const byCode: ErrorWindow['byCode'] = [];
    for (const [attribute, value] of Object.entries(item)) {
      if (!attribute.startsWith('count_')) continue;
      const code = attribute.slice('count_'.length);
      const samples = ((item[`samples_${code}`] as Array<{ message: string; identifier: string }> | undefined) ?? []).slice(0, maxSamplesPerCode);
      byCode.push({ code, count: value as number, samples });
    }
    byCode.sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
    return {
      scope: item.scope as Scope,
      platformId: item.platformId as string,
      meterId: (item.meterId as string | null) ?? null,
      start: item.windowStart as number,
      end: item.windowEnd as number,
      errorCount: item.errorCount as number,
      byCode,
    };
  }

  return {
    async takeLease(lease, entries, now) {
      const writes = entries.length > 0;
      for (let round = 0; ; round++) {
        try {
          const old = await table.update({
            TableName: name,
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
          });
          return entriesOf(old);
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
      const names: Record<string, string> = {};
      const removes = ['leaseOwner', 'leaseUntil'];
      [...new Set(owners)].forEach((owner, index) => {
        names[`#e${index}`] = entryAttribute(owner);
        removes.push(`#e${index}`);
      });
      let total = 0;
      let latest: LeaseEntry | undefined;
      for (const { entry, setsLast } of counted) {
        total += entry.value;
        if (setsLast && (!latest || entry.timestamp >= latest.timestamp)) latest = entry;
      }
      let setsLast = lease.meter.formula === 'last' && latest !== undefined;
      for (let round = 0; ; round++) {
        const sets = counted.length > 0 ? ['entity = :entity', 'minuteStart = :minute'] : [];
        if (setsLast) sets.push('lastValue = :lastValue', 'lastTimestamp = :lastTimestamp', 'lastIdentifier = :lastIdentifier');
        const counts = counted.length > 0;
        try {
          await table.update({
            TableName: name,
            Key: leaseKey(lease),
            UpdateExpression: [
              sets.length > 0 ? `SET ${sets.join(', ')}` : '',
              counts ? 'ADD #total :total, #events :events' : '',
              `REMOVE ${removes.join(', ')}`,
            ]
              .join(' ')
              .trim(),
            ConditionExpression: `leaseOwner = :owner${setsLast ? ' AND (attribute_not_exists(lastTimestamp) OR lastTimestamp <= :lastTimestamp)' : ''}`,
            ExpressionAttributeNames: { ...names, ...(counts ? { '#total': 'total', '#events': 'events' } : {}) },
            ExpressionAttributeValues: {
              ':owner': lease.owner,
              ...(counts ? { ':entity': 'meter_usage', ':minute': lease.minute, ':total': total, ':events': counted.length } : {}),
              ...(setsLast ? { ':lastValue': latest!.value, ':lastTimestamp': latest!.timestamp, ':lastIdentifier': latest!.identifier } : {}),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          });
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
        await table.put({
          TableName: name,
          Item: { ...eventItem(event), claimedBy: owner },
          ConditionExpression: `${claimable} OR (attribute_exists(fencedOwners) AND NOT contains(fencedOwners, :owner))`,
          ExpressionAttributeValues: { ':cutoff': event.created - uniquenessWindowMillis, ':owner': owner },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        });
        return 'claimed';
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return (oldItemOf(error)?.fencedOwners as Set<string> | undefined)?.has(owner) ? 'fenced' : 'duplicate';
      }
    },

    async settle(scope, entry) {
      try {
        // The fence: the stopped request's claim (conditional on not being fenced) can no longer succeed.
        await table.update({
          TableName: name,
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
        });
        return 'fenced';
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const claimed = oldItemOf(error);
        // Its claim stands (count it), or the identifier is another event's (the request's claim failed).
        if (claimed?.claimedBy !== entry.owner) return 'fenced';
        return claimed.cancelAdjustmentId ? 'count-without-last' : 'count';
      }
    },

    async getEvent(scope, identifier) {
      const item = unexpired(await table.get(eventKey({ scope, identifier })), table.clock());
      return item && item.entity === 'meter_event' ? toEvent(item) : undefined;
    },

    async requestCancel(event, adjustment) {
      const attach = {
        TableName: name,
        Key: eventKey(event),
        UpdateExpression: 'SET cancelAdjustmentId = :adjustment',
        ConditionExpression: 'created = :created AND attribute_not_exists(cancelAdjustmentId) AND #status IN (:accepted, :processed)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':adjustment': adjustment.id, ':created': event.created, ':accepted': 'accepted', ':processed': 'processed' },
      };
      const put = {
        TableName: name,
        Item: {
          ...adjustmentKey(adjustment),
          ...workDue(adjustmentKeys.pk(adjustment.scope, adjustment.id), adjustment.created),
          entity: 'meter_event_adjustment',
          expiresAt: epochSeconds(adjustment.created + adjustmentRetentionMillis),
          ...adjustment,
        },
      };
      return transactGuarded(table, [{ Update: attach }, { Put: put }], undefined);
    },

    async getAdjustment(scope, id) {
      const item = await table.get(adjustmentKey({ scope, id }));
      return item ? strip<MeterEventAdjustment>(item) : undefined;
    },

    async putBatch(batch) {
      const PK = batchKeys.pk(batch.id);
      const expiresAt = epochSeconds(batch.created + batchRetentionMillis);
      const item = { PK, SK: batchKeys.sk(), entity: 'meter_event_batch', expiresAt, ...batch };
      const put = (Item: Record<string, unknown>) => table.put({ TableName: name, Item });
      if (!isLargeBatch(batch)) {
        await put({ ...item, ...workDue(PK, batch.created) });
        return;
      }
      // Acknowledged only once both are stored; a due item whose batch is missing is dropped by the sweeper.
      await Promise.all([put(item), put({ PK, SK: batchKeys.dueSk(), entity: 'meter_event_batch_due', expiresAt, ...workDue(PK, batch.created) })]);
    },

    async finishBatch(batch) {
      const finish = (SK: string) =>
        conditional(() =>
          table.update({
            TableName: name,
            Key: { PK: batchKeys.pk(batch.id), SK },
            UpdateExpression: 'SET processedAt = :now REMOVE GSI2PK, GSI2SK',
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':now': table.clock() },
          }),
        );
      // A large batch stored before due items existed holds its own place in the due index.
      if (!isLargeBatch(batch) || !(await finish(batchKeys.dueSk()))) await finish(batchKeys.sk());
    },

    async putSession(session, tokenHash) {
      await table.put({
        TableName: name,
        // `expiresAt` is the table's TTL attribute (seconds): the session's own expiry is kept apart.
        Item: {
          PK: sessionKeys.pk(tokenHash),
          SK: sessionKeys.sk(),
          entity: 'meter_event_session',
          ...session,
          sessionExpiresAt: session.expiresAt,
          expiresAt: epochSeconds(session.expiresAt + day),
        },
      });
    },

    async findSession(tokenHash) {
      const item = await table.get({ PK: sessionKeys.pk(tokenHash), SK: sessionKeys.sk() });
      if (!item) return undefined;
      const { sessionExpiresAt, ...session } = strip<MeterEventSession & { sessionExpiresAt: number }>(item);
      return { ...session, expiresAt: sessionExpiresAt };
    },

    async applyUsage(groups, now) {
      const transactional: UsageGroup[] = [];
      const claimed: UsageGroup[] = [];
      for (const group of groups) {
        const others = group.changes.filter((change) => change.kind !== 'insert');
        if (others.length > 0) transactional.push({ ...group, changes: others });
        const byBatch = new Map<string, RecordChange[]>();
        for (const change of group.changes) {
          if (change.kind !== 'insert') continue;
          const key = change.event.batchId ?? '';
          const list = byBatch.get(key);
          if (list) list.push(change);
          else byBatch.set(key, [change]);
        }
        for (const [batchId, changes] of byBatch) (batchId && changes.length >= minClaimedGroup ? claimed : transactional).push({ ...group, changes });
      }
      const [failedTransactional, failedClaims] = await Promise.all([applyInTransactions(transactional, now), applyClaimed(claimed, now)]);
      return [...failedTransactional, ...failedClaims];
    },

    async markInvalid(events) {
      await Promise.all(
        events.map((event) =>
          conditional(() =>
            table.update({
              TableName: name,
              Key: eventKey(event),
              UpdateExpression: 'SET #status = :invalid REMOVE GSI2PK, GSI2SK',
              ConditionExpression: '#status = :accepted',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':invalid': 'invalid', ':accepted': 'accepted' },
            }),
          ),
        ),
      );
    },

    cancelUncounted(event, adjustment) {
      const cancel = {
        TableName: name,
        Key: eventKey(event),
        UpdateExpression: 'SET #status = :cancelled REMOVE GSI2PK, GSI2SK',
        ConditionExpression: '#status = :accepted AND cancelAdjustmentId = :adjustment',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':cancelled': 'cancelled', ':accepted': 'accepted', ':adjustment': adjustment.id },
      };
      return transactGuarded(table, [{ Update: cancel }, { Update: completeAdjustmentUpdate(adjustment) }], undefined);
    },

    async completeAdjustment(adjustment) {
      await conditional(() => table.update(completeAdjustmentUpdate(adjustment)));
    },

    async forgetLast(scope, meterId, customerId, minute, identifier) {
      await conditional(() =>
        table.update({
          TableName: name,
          Key: { PK: usageKeys.pk(scope, meterId, customerId), SK: usageKeys.sk(minute) },
          UpdateExpression: 'REMOVE lastValue, lastTimestamp, lastIdentifier',
          ConditionExpression: 'lastIdentifier = :identifier',
          ExpressionAttributeValues: { ':identifier': identifier },
        }),
      );
    },

    async usage(scope, meterId, customerId, from, to): Promise<MinuteUsage[]> {
      const items = await queryAll({
        TableName: name,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': usageKeys.pk(scope, meterId, customerId), ':from': usageKeys.sk(from), ':to': usageKeys.sk(to - 1) },
      });
      // A minute only leased (its events refused or not counted yet) holds no usage.
      return items
        .filter((item) => typeof item.events === 'number')
        .map((item) => ({
          minute: item.minuteStart as number,
          total: item.total as number,
          events: item.events as number,
          last: typeof item.lastTimestamp === 'number' ? { value: item.lastValue as number, timestamp: item.lastTimestamp } : null,
        }));
    },

    async recordErrors(errors, now, windowMillis) {
      const byMeter = new Map<string, MeterEventError[]>();
      for (const error of errors) {
        const pk = meterErrorWindow.pk(error.scope, error.meterId);
        byMeter.set(pk, [...(byMeter.get(pk) ?? []), error]);
      }
      await Promise.all(
        [...byMeter.entries()].map(async ([pk, group]) => {
          const first = group[0]!;
          const codes = new Map<string, MeterEventError[]>();
          for (const error of group) codes.set(error.code, [...(codes.get(error.code) ?? []), error]);
          const names: Record<string, string> = {};
          const values: Record<string, unknown> = {};
          const adds = [...codes.entries()].map(([code, list], index) => {
            names[`#c${index}`] = `count_${code}`;
            values[`:c${index}`] = list.length;
            return `#c${index} :c${index}`;
          });
          // A window already reported takes no more errors: they go to the next one.
          for (let start = Math.floor(now / windowMillis) * windowMillis; ; start += windowMillis) {
            const key = { PK: pk, SK: meterErrorWindow.sk(start) };
            const counted = await conditional(() =>
              table.update({
                TableName: name,
                Key: key,
                UpdateExpression: `SET entity = :entity, #scope = :scope, platformId = :platformId, meterId = :meterId, windowStart = :start, windowEnd = :end, GSI2PK = :gsi2pk, GSI2SK = :gsi2sk, expiresAt = :expiresAt ADD errorCount :count, ${adds.join(', ')}`,
                ConditionExpression: 'attribute_not_exists(reportedAt)',
                ExpressionAttributeNames: { '#scope': 'scope', ...names },
                ExpressionAttributeValues: {
                  ':entity': 'meter_error_window',
                  ':scope': first.scope,
                  ':platformId': first.platformId,
                  ':meterId': first.meterId,
                  ':start': start,
                  ':end': start + windowMillis,
                  ':gsi2pk': meterWorkDue.gsi2pk('report', dueShardOf(pk)),
                  ':gsi2sk': meterWorkDue.gsi2sk(start + windowMillis, `${pk}#${start}`),
                  ':expiresAt': epochSeconds(start + errorWindowRetentionMillis),
                  ':count': group.length,
                  ...values,
                },
              }),
            );
            if (!counted) continue;
            await Promise.all(
              [...codes.entries()].map(([code, list]) =>
                conditional(() =>
                  table.update({
                    TableName: name,
                    Key: key,
                    UpdateExpression: 'SET #samples = list_append(if_not_exists(#samples, :empty), :samples)',
                    ConditionExpression: 'attribute_not_exists(reportedAt) AND (attribute_not_exists(#samples) OR size(#samples) < :max)',
                    ExpressionAttributeNames: { '#samples': `samples_${code}` },
                    ExpressionAttributeValues: {
                      ':empty': [],
                      ':samples': list.slice(0, maxSamplesPerCode).map((error) => ({ message: error.message, identifier: error.identifier })),
                      ':max': maxSamplesPerCode,
                    },
                  }),
                ),
              ),
            );
            return;
          }
        }),
      );
    },

    async dueErrorWindows(endedBy, limit) {
      const shards = await Promise.all(
        Array.from({ length: dueShards }, (_, shard) =>
          table.query({
            TableName: name,
            IndexName: 'GSI2',
            KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :by',
            ExpressionAttributeValues: { ':pk': meterWorkDue.gsi2pk('report', shard), ':by': meterWorkDue.gsi2sk(endedBy, '~') },
            Limit: perShardLimit(limit),
          }),
        ),
      );
      return shards.flatMap((page) => page.items.map(errorWindowOf));
    },

    markReported(window: ErrorWindow, outbox: Outbox) {
      const update = {
        TableName: name,
        Key: { PK: meterErrorWindow.pk(window.scope, window.meterId), SK: meterErrorWindow.sk(window.start) },
        UpdateExpression: 'SET reportedAt = :now REMOVE GSI2PK, GSI2SK',
        // Errors counted since the window was read make it start over, so none is left out of the report.
        ConditionExpression: 'attribute_not_exists(reportedAt) AND errorCount = :seen',
        ExpressionAttributeValues: { ':now': table.clock(), ':seen': window.errorCount },
      };
      return transactGuarded(table, [{ Update: update }], outbox);
    },

    async claimOverdueWork(dueBy, retryAt, limit, maxSweeps) {
      const shards = await Promise.all(
        Array.from({ length: dueShards }, (_, shard) =>
          table.query({
            TableName: name,
            IndexName: 'GSI2',
            KeyConditionExpression: 'GSI2PK = :pk AND GSI2SK <= :by',
            ExpressionAttributeValues: { ':pk': meterWorkDue.gsi2pk('work', shard), ':by': meterWorkDue.gsi2sk(dueBy, '~') },
            Limit: perShardLimit(limit),
          }),
        ),
      );
      const parked: string[] = [];
      const claimed = await Promise.all(
        shards
          .flatMap((page) => page.items)
          .map(async (item): Promise<MeterWork | undefined> => {
            /** An update of the item if its due time is still the one this sweep read (no other sweep took it). */
            const ifStillDue = (UpdateExpression: string, values: Record<string, unknown>) =>
              conditional(() =>
                table.update({
                  TableName: name,
                  Key: { PK: item.PK, SK: item.SK },
                  UpdateExpression,
                  ConditionExpression: 'GSI2SK = :seen',
                  ExpressionAttributeValues: { ...values, ':seen': item.GSI2SK },
                }),
              );
            if (((item.sweeps as number | undefined) ?? 0) >= maxSweeps) {
              if (await ifStillDue('SET parkedAt = :now REMOVE GSI2PK, GSI2SK', { ':now': retryAt })) parked.push(`${item.PK as string} ${item.SK as string}`);
              return undefined;
            }
            const due = workDue(item.PK as string, retryAt);
            const moved = await ifStillDue('SET GSI2PK = :gsi2pk, GSI2SK = :gsi2sk ADD sweeps :one', {
              ':gsi2pk': due.GSI2PK,
              ':gsi2sk': due.GSI2SK,
              ':one': 1,
            });
            if (!moved) return undefined;
            if (item.entity === 'meter_event') return { kind: 'event', event: toEvent(item) };
            if (item.entity === 'meter_event_batch') return { kind: 'batch', batch: strip<MeterEventBatch>(item) };
            if (item.entity === 'meter_event_batch_due') {
              const batch = await table.get({ PK: item.PK as string, SK: batchKeys.sk() });
              if (batch) return { kind: 'batch', batch: strip<MeterEventBatch>(batch) };
              // Its batch was never stored (the request failed and was not acknowledged): nothing to do.
              await table.update({ TableName: name, Key: { PK: item.PK, SK: item.SK }, UpdateExpression: 'REMOVE GSI2PK, GSI2SK' });
              return undefined;
            }
            return { kind: 'cancel', adjustment: strip<MeterEventAdjustment>(item) };
          }),
      );
      return { claimed: claimed.filter((work): work is MeterWork => work !== undefined), parked };
    },
  };
}
