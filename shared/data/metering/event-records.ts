import { logger } from '#shared/logger.ts';
import type { MeterEventBatch, MeterEventRecordStore, MeterWork } from '#shared/meter-events/meter-event.ts';
import { epochSeconds, whenConditionHolds } from '../conditions.ts';
import { dueEntry, dueItems } from '../due-index.ts';
import { meterEventAdjustment as adjustmentKeys, meterEventBatch as batchKeys } from '../keys.ts';
import type { Table } from '../table.ts';
import { transactGuarded } from '../transactions.ts';
import { adjustmentKey, adjustmentRetentionMillis, batchRetentionMillis, eventKey, toAdjustment, toBatch, toEvent, unexpired } from './items.ts';
import { usagePlanner } from './usage-planner.ts';

/**
 * Whether a stream batch is stored with a separate due item: the due index projects whole items, so a
 * batch over 1 KB would be written twice (and rewritten when finished) for its place in the index.
 */
const isLargeBatch = (batch: MeterEventBatch) => JSON.stringify(batch.events).length > 700;

/** An item's place in the meter work queue of the due index. */
const workDue = (id: string, dueAt: number) => dueEntry('meter-work', id, dueAt);

/**
 * Meter event records (one partition per identifier), adjustments and stream batches, and the sweep of
 * the unfinished ones through the due index.
 */
export function dynamoMeterEventRecordStore(table: Table): MeterEventRecordStore {
  const { name } = table;
  const { completeAdjustmentUpdate } = usagePlanner(name);
  return {
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
      return item ? toAdjustment(item) : undefined;
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
        whenConditionHolds(() =>
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

    async markInvalid(events) {
      await Promise.all(
        events.map((event) =>
          whenConditionHolds(() =>
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
      await whenConditionHolds(() => table.update(completeAdjustmentUpdate(adjustment)));
    },

    async claimOverdueWork(dueBy, retryAt, limit, maxSweeps) {
      const parked: string[] = [];
      /** What a claimed item asks the worker to do. */
      async function workOf(item: Record<string, unknown>): Promise<MeterWork | undefined> {
        if (item.entity === 'meter_event') return { kind: 'event', event: toEvent(item) };
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
          /** An update of the item if its due time is still the one this sweep read (no other sweep took it). */
          const ifStillDue = (UpdateExpression: string, values: Record<string, unknown>) =>
            whenConditionHolds(() =>
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
