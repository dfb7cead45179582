import type { MeterEventAdjustment, RecordChange, UsageGroup } from '#shared/meter-events/meter-event.ts';
import { meterUsage as usageKeys } from '../keys.ts';
import { eventKey, adjustmentKey } from './items.ts';

/** DynamoDB's most actions in one transaction. */
export const maxTransactionItems = 100;

export interface PlannedGroup {
  group: UsageGroup;
  /** Set when the minute already holds a later `last` value: the group then leaves it alone. */
  keepLast: boolean;
}

/**
 * The usage transaction planner (TABLE_DESIGN.md, 19): pure functions from usage groups to the
 * transactions that count them, each record change in the same transaction as its minute's update.
 * Offline-tested in `test/unit/data/usage-planner.test.ts`.
 */
export function usagePlanner(name: string) {
  const completeAdjustmentUpdate = (adjustment: Pick<MeterEventAdjustment, 'scope' | 'id'>) => ({
    TableName: name,
    Key: adjustmentKey(adjustment),
    UpdateExpression: 'SET #status = :complete REMOVE GSI2PK, GSI2SK',
    ConditionExpression: '#status = :pending',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':complete': 'complete', ':pending': 'pending' },
  });

  /** The actions of one record change, in order. */
  function changeActions(change: RecordChange) {
    if (change.kind === 'insert') {
      throw new Error('A stream event is counted under its lease or with its batch mark (the counting plan), never in the usage transaction');
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

  return { completeAdjustmentUpdate, changeActions, usageAction, pack, bounded };
}
