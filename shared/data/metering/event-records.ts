import { newId } from '#shared/core/ids.ts';
import { logger } from '#shared/core/logger.ts';
import type { MeterEventAdjustment, MeterEventBatch, MeterEventRecord, MeterEventRecordStore, MeterWork } from '#shared/meter-events/meter-event.ts';
import { epochSeconds, whenConditionHolds } from '../conditions.ts';
import { dueEntry, dueItems } from '../due-index.ts';
import { meterEventAdjustment as adjustmentKeys, meterEventBatch as batchKeys } from '../keys.ts';
import type { Table, TransactItem } from '../table.ts';
import { transactChecked, transactGuarded } from '../transactions.ts';
import { adjustmentKey, adjustmentRetentionMillis, batchRetentionMillis, eventKey, toAdjustment, toBatch, toEvent, unexpired } from './items.ts';
import { usagePlanner } from './usage-planner.ts';

/**
 * Whether a stream batch is stored with a separate due item: the due index projects whole items, so a
 * batch over 1 KB would be written twice (and rewritten when finished) for its place in the index.
 */
const isLargeBatch = (batch: MeterEventBatch) => JSON.stringify(batch.events).length > 700;

/** An item's place in the meter work queue of the due index. */
const workDue = (id: string, dueAt: number) => dueEntry('meter-work', id, dueAt);

type Update = NonNullable<TransactItem['Update']>;

/** Meter event records, adjustments and stream batches (TABLE_DESIGN.md 21, 23): the writes of each step, as pure builders. */
export const meterEventRecordEntity = {
  /** A cancellation requested (21): attached to its event if none is and the event counts (or will), and the adjustment stored, due. */
  requestCancel: (tableName: string, event: MeterEventRecord, adjustment: MeterEventAdjustment): TransactItem[] => [
    {
      Update: {
        TableName: tableName,
        Key: eventKey(event),
        UpdateExpression: 'SET cancelAdjustmentId = :adjustment',
        ConditionExpression: 'created = :created AND attribute_not_exists(cancelAdjustmentId) AND #status IN (:accepted, :processed)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':adjustment': adjustment.id, ':created': event.created, ':accepted': 'accepted', ':processed': 'processed' },
      },
    },
    {
      Put: {
        TableName: tableName,
        Item: {
          ...adjustmentKey(adjustment),
          ...workDue(adjustmentKeys.pk(adjustment.scope, adjustment.id), adjustment.created),
          entity: 'meter_event_adjustment',
          expiresAt: epochSeconds(adjustment.created + adjustmentRetentionMillis),
          ...adjustment,
        },
      },
    },
  ],
  /** A stream batch's items, due for processing (at `dueAt`): itself, or (over 1 KB) itself and a small due item beside it. */
  batchItems(batch: MeterEventBatch, dueAt = batch.created): Array<Record<string, unknown>> {
    const PK = batchKeys.pk(batch.id);
    const expiresAt = epochSeconds(batch.created + batchRetentionMillis);
    const item = { PK, SK: batchKeys.sk(), entity: 'meter_event_batch', expiresAt, ...batch };
    if (!isLargeBatch(batch)) return [{ ...item, ...workDue(PK, dueAt) }];
    return [item, { PK, SK: batchKeys.dueSk(), entity: 'meter_event_batch_due', expiresAt, ...workDue(PK, dueAt) }];
  },
  /** A batch item (or its due item) finished: out of the due index. */
  finishBatch: (tableName: string, batch: MeterEventBatch, sk: string, now: number): Update => ({
    TableName: tableName,
    Key: { PK: batchKeys.pk(batch.id), SK: sk },
    UpdateExpression: 'SET processedAt = :now REMOVE GSI2PK, GSI2SK',
    ConditionExpression: 'attribute_exists(PK)',
    ExpressionAttributeValues: { ':now': now },
  }),
  /**
   * Legacy (legacy-accepted-events): an API event an older version stored `accepted` and never counted,
   * converted by the sweep (23) so the stream path counts it: a one-event batch written (due at `dueAt`)
   * and the record deleted, in one transaction, if it is still uncounted and no cancellation names it.
   */
  legacyToBatch: (tableName: string, event: MeterEventRecord, batch: MeterEventBatch, dueAt: number): TransactItem[] => [
    ...meterEventRecordEntity
      .batchItems(batch, dueAt)
      .map((Item) => ({ Put: { TableName: tableName, Item, ConditionExpression: 'attribute_not_exists(PK)' } })),
    {
      Delete: {
        TableName: tableName,
        Key: eventKey(event),
        ConditionExpression: 'created = :created AND #status = :accepted AND attribute_not_exists(cancelAdjustmentId)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':created': event.created, ':accepted': 'accepted' },
      },
    },
  ],
  /** Legacy (legacy-accepted-events): such an event with a cancellation pending is cancelled uncounted (the adjustment completed beside it). */
  legacyCancelled: (tableName: string, event: MeterEventRecord & { cancelAdjustmentId: string }): Update => ({
    TableName: tableName,
    Key: eventKey(event),
    UpdateExpression: 'SET #status = :cancelled REMOVE GSI2PK, GSI2SK',
    ConditionExpression: 'created = :created AND #status = :accepted AND cancelAdjustmentId = :adjustment',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':cancelled': 'cancelled', ':accepted': 'accepted', ':created': event.created, ':adjustment': event.cancelAdjustmentId },
  }),
  /** The sweeper's claim of an overdue item (23): moved to `retryAt` with its sweep counted, if no other sweep moved it since it was read. */
  reschedule(tableName: string, item: Record<string, unknown>, retryAt: number): Update {
    const due = workDue(String(item.PK), retryAt);
    return {
      TableName: tableName,
      Key: { PK: item.PK, SK: item.SK },
      UpdateExpression: 'SET GSI2PK = :gsi2pk, GSI2SK = :gsi2sk ADD sweeps :one',
      ConditionExpression: 'GSI2SK = :seen',
      ExpressionAttributeValues: { ':gsi2pk': due.GSI2PK, ':gsi2sk': due.GSI2SK, ':one': 1, ':seen': item.GSI2SK },
    };
  },
  /** Out of the due index for good, kept (see docs/operations.md, *Parked work*), if no other sweep moved it since it was read. */
  park: (tableName: string, item: Record<string, unknown>, now: number): Update => ({
    TableName: tableName,
    Key: { PK: item.PK, SK: item.SK },
    UpdateExpression: 'SET parkedAt = :now REMOVE GSI2PK, GSI2SK',
    ConditionExpression: 'GSI2SK = :seen',
    ExpressionAttributeValues: { ':now': now, ':seen': item.GSI2SK },
  }),
};

/**
 * Meter event records (one partition per identifier), adjustments and stream batches, and the sweep of
 * the unfinished ones through the due index.
 */
export function dynamoMeterEventRecordStore(table: Table): MeterEventRecordStore {
  const { name } = table;
  const { completeAdjustmentUpdate } = usagePlanner(name);
  const records = meterEventRecordEntity;
  return {
    async getEvent(scope, identifier, consistent = false) {
      const key = eventKey({ scope, identifier });
      const item = unexpired(await (consistent ? table.getConsistent(key) : table.get(key)), table.clock());
      return item && item.entity === 'meter_event' ? toEvent(item) : undefined;
    },

    requestCancel: (event, adjustment) => transactGuarded(table, records.requestCancel(name, event, adjustment), undefined),

    async getAdjustment(scope, id) {
      const item = await table.get(adjustmentKey({ scope, id }));
      return item ? toAdjustment(item) : undefined;
    },

    async putBatch(batch) {
      // Acknowledged only once all are stored; a due item whose batch is missing is dropped by the sweeper.
      await Promise.all(records.batchItems(batch).map((Item) => table.put({ TableName: name, Item })));
    },

    async finishBatch(batch) {
      const finish = (sk: string) => whenConditionHolds(() => table.update(records.finishBatch(name, batch, sk, table.clock())));
      // A large batch stored before due items existed holds its own place in the due index.
      if (!isLargeBatch(batch) || !(await finish(batchKeys.dueSk()))) await finish(batchKeys.sk());
    },

    async completeAdjustment(adjustment) {
      await whenConditionHolds(() => table.update(completeAdjustmentUpdate(adjustment)));
    },

    async claimOverdueWork(dueBy, retryAt, limit, maxSweeps) {
      const parked: string[] = [];
      /**
       * Legacy (legacy-accepted-events): an event an older version left `accepted` becomes a one-event
       * stream batch (received when the event was), or is cancelled uncounted if a cancellation names it.
       * Nothing when it changed since it was read: its next sweep sees what it became.
       */
      async function convertLegacy(event: MeterEventRecord): Promise<MeterWork | undefined> {
        if (event.status !== 'accepted') {
          await whenConditionHolds(() =>
            table.update({ TableName: name, Key: eventKey(event), UpdateExpression: 'REMOVE GSI2PK, GSI2SK', ConditionExpression: 'attribute_exists(PK)' }),
          );
          return undefined;
        }
        const { cancelAdjustmentId } = event;
        if (cancelAdjustmentId !== null) {
          const adjustment = { scope: event.scope, id: cancelAdjustmentId };
          await transactChecked(
            table,
            [{ Update: records.legacyCancelled(name, { ...event, cancelAdjustmentId }) }, { Update: completeAdjustmentUpdate(adjustment) }],
            undefined,
          );
          return undefined;
        }
        const { eventName, identifier, payload, timestamp } = event;
        const batch: MeterEventBatch = {
          id: newId('mtrbatch', event.created),
          scope: event.scope,
          platformId: event.platformId,
          created: event.created,
          events: [{ eventName, identifier, payload, timestamp }],
        };
        return (await transactChecked(table, records.legacyToBatch(name, event, batch, retryAt), undefined)) ? { kind: 'batch', batch } : undefined;
      }
      /** What a claimed item asks the worker to do. */
      async function workOf(item: Record<string, unknown>): Promise<MeterWork | undefined> {
        // Legacy (legacy-accepted-events): only an older version put an event in the due index.
        if (item.entity === 'meter_event') return convertLegacy(toEvent(item));
        if (item.entity === 'meter_event_batch') return { kind: 'batch', batch: toBatch(item) };
        if (item.entity === 'meter_event_batch_due') {
          const batch = await table.get({ PK: item.PK as string, SK: batchKeys.sk() });
          if (batch) return { kind: 'batch', batch: toBatch(batch) };
          // Its batch was never stored (the request failed and was not acknowledged): nothing to do.
          await table.update({ TableName: name, Key: { PK: item.PK, SK: item.SK }, UpdateExpression: 'REMOVE GSI2PK, GSI2SK' });
          return undefined;
        }
        return { kind: 'cancel', adjustment: toAdjustment(item) };
      }
      const claimed = await Promise.all(
        (await dueItems(table, 'meter-work', dueBy, limit)).map(async (item): Promise<MeterWork | undefined> => {
          if (((item.sweeps as number | undefined) ?? 0) >= maxSweeps) {
            if (await whenConditionHolds(() => table.update(records.park(name, item, retryAt)))) parked.push(`${item.PK as string} ${item.SK as string}`);
            return undefined;
          }
          const moved = await whenConditionHolds(() => table.update(records.reschedule(name, item, retryAt)));
          if (!moved) return undefined;
          try {
            return await workOf(item);
          } catch (error) {
            // One unreadable item must not stop the sweep of the others: it stays claimed, and is parked at its tenth sweep.
            logger.error('Unreadable meter work item', { pk: item.PK, sk: item.SK, error: error as Error });
            return undefined;
          }
        }),
      );
      return { claimed: claimed.filter((work): work is MeterWork => work !== undefined), parked };
    },
  };
}
