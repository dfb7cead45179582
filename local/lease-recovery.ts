import { meterUsage } from '#shared/data/keys.ts';
import { entriesOf } from '#shared/data/metering/leases.ts';
import type { Item, Table } from '#shared/data/table.ts';
import type { MeterRepository } from '#shared/meters/meter.ts';
import type { MeterWork } from '#shared/meter-events/meter-event.ts';

/**
 * The settle messages of usage leases left with entries, found by scanning the table. On AWS an API meter
 * event's settle message is durable (SQS); the local emulator keeps messages in memory, so a local stack
 * killed between an event's lease take and release would lose it, and the event, claimed but not counted,
 * would wait for another event of its customer, meter and minute. The local stack queues these again when
 * it starts on kept data. Local only: the deployed functions have no Scan permission, and need none.
 */
export async function leftSettleWork(table: Table, meters: Pick<MeterRepository, 'get'>): Promise<MeterWork[]> {
  const work: MeterWork[] = [];
  let ExclusiveStartKey: Item | undefined;
  do {
    const page = await table.scan({
      TableName: table.name,
      FilterExpression: 'begins_with(PK, :prefix) AND attribute_exists(leaseOwner)',
      ExpressionAttributeValues: { ':prefix': meterUsage.prefix() },
      ExclusiveStartKey,
    });
    for (const item of page.items) {
      const keys = meterUsage.parse(item.PK as string, item.SK as string);
      const entries = entriesOf(item);
      if (!keys || entries.length === 0) continue;
      const meter = await meters.get(keys.scope, keys.meterId);
      const lease = {
        scope: keys.scope,
        meter: { id: keys.meterId, formula: meter?.formula ?? 'sum' },
        customerId: keys.customerId,
        minute: keys.minute,
        owner: item.leaseOwner as string,
      };
      for (const entry of entries) work.push({ kind: 'settle', lease, entry });
    }
    ExclusiveStartKey = page.lastKey;
  } while (ExclusiveStartKey);
  return work;
}
