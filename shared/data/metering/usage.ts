import type { MinuteUsage, RecordChange, UsageGroup, UsageStore } from '#shared/meter-events/meter-event.ts';
import { uniquenessWindowMillis } from '#shared/meter-events/rules.ts';
import { backOff, cancellationCodes, epochSeconds, failedCondition, isConditionFailure, oldItemOf, whenConditionHolds } from '../conditions.ts';
import { meterEventBatch as batchKeys, meterUsage as usageKeys } from '../keys.ts';
import { queryAll, type Table } from '../table.ts';
import { batchRetentionMillis, claimable, eventItem } from './items.ts';
import { markLateHours } from './rollups.ts';
import { type PlannedGroup, usagePlanner } from './usage-planner.ts';

/**
 * Usage, one item per meter, customer and minute: each group moves its events' statuses and the minute's
 * totals in one transaction (or, for a batch's larger groups, claims each event and counts the group with
 * the batch's mark), which is what makes counting exactly once. Which groups go which way is the counting
 * plan's decision (shared/meter-events/counting-plan.ts), not this store's.
 */
export function dynamoUsageStore(table: Table): UsageStore {
  const { name } = table;
  const { changeActions, usageAction, pack, bounded } = usagePlanner(name);
  const minuteOf = ({ scope, meter, customerId, minute }: UsageGroup) => ({ scope, meterId: meter.id, customerId, minute });

  /** Runs one transaction of whole groups. Returns what failed its condition, or 'conflict' to retry as is. */
  async function applyTransaction(planned: PlannedGroup[]): Promise<{ failed: RecordChange[]; lastBlocked: PlannedGroup[] } | 'conflict' | 'ok'> {
    const actions: Record<string, unknown>[] = [];
    const owners: Array<{ planned: PlannedGroup; change?: RecordChange }> = [];
    for (const entry of planned) {
      actions.push(usageAction(entry));
      owners.push({ planned: entry });
      for (const change of entry.group.changes) {
        for (const action of changeActions(change)) {
          actions.push(action);
          owners.push({ planned: entry, change });
        }
      }
    }
    await markLateHours(
      table,
      planned.map((entry) => minuteOf(entry.group)),
    );
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

  /** Groups whose every change is an action of the usage transaction (cancellations, legacy API events). */
  async function applyInTransactions(groups: UsageGroup[]): Promise<RecordChange[]> {
    const failed: RecordChange[] = [];
    let pending = bounded(groups);
    for (let round = 0; pending.length > 0; round++) {
      if (round > 50) throw new Error('Usage could not be applied: transactions kept conflicting');
      const retry: PlannedGroup[] = [];
      let conflicted = false;
      await Promise.all(
        pack(pending).map(async (transaction) => {
          const outcome = await applyTransaction(transaction);
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
      // Its batch's own claim from an earlier try; never a lease's claim (`claimedBy`), which that lease counts.
      const held = oldItemOf(error);
      return change.event.batchId !== null && held?.batchId === change.event.batchId && held.claimedBy === undefined;
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
    await markLateHours(table, [minuteOf(group)]);
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

  return {
    applyUsage: (groups) => applyInTransactions(groups),

    countMarked: (groups, now) => applyClaimed(groups, now),

    async forgetLast(scope, meterId, customerId, minute, identifier) {
      await markLateHours(table, [{ scope, meterId, customerId, minute }]);
      await whenConditionHolds(() =>
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
      const items = await queryAll(table, {
        TableName: name,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': usageKeys.pk(scope, meterId, customerId), ':from': usageKeys.sk(from), ':to': usageKeys.sk(to - 1) },
        // A roll must see every change committed before it began, and an invoice every event counted before it.
        ConsistentRead: true,
      });
      // A minute only leased (its events refused or not counted yet) holds no usage.
      return items
        .filter((item) => typeof item.events === 'number')
        .map((item) => ({
          minute: item.minuteStart as number,
          total: Number(item.total),
          events: Number(item.events),
          last: typeof item.lastTimestamp === 'number' ? { value: Number(item.lastValue), timestamp: item.lastTimestamp } : null,
        }));
    },
  };
}
