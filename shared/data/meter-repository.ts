import type { Meter, MeterRepository } from '#shared/meters/meter.ts';
import type { Table } from './client.ts';
import { meter as keys } from './keys.ts';
import { ownedResourceStore } from './owned-resources.ts';
import { transactGuarded } from './transactions.ts';

/**
 * DynamoDB adapter: meters live in their owner's partition next to one `METER_EVENT_NAME#<name>` item
 * each, written in the same transaction, which keeps event names unique and finds a meter by its name.
 */
export function dynamoMeterRepository(table: Table): MeterRepository {
  const store = ownedResourceStore<Meter>(table, { entity: 'meter', keys });
  return {
    ...store,
    create(meter, outbox) {
      const claim = {
        TableName: table.name,
        Item: { PK: keys.pk(meter.scope), SK: keys.eventNameSk(meter.eventName), entity: 'meter_event_name', meterId: meter.id },
        ConditionExpression: 'attribute_not_exists(PK)',
      };
      const put = { TableName: table.name, Item: { PK: keys.pk(meter.scope), SK: keys.sk(meter.id), entity: 'meter', ...meter } };
      return transactGuarded(table, [{ Put: claim }, { Put: put }], outbox);
    },
    async findByEventName(scope, eventName) {
      const claim = await table.get({ PK: keys.pk(scope), SK: keys.eventNameSk(eventName) });
      return claim ? store.get(scope, claim.meterId as string) : undefined;
    },
  };
}
