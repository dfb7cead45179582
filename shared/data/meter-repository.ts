import * as z from 'zod';
import type { Meter, MeterRepository } from '#shared/meters/meter.ts';
import { orNull, ownedItem } from './item-schemas.ts';
import type { Table } from './table.ts';
import { meter as keys } from './keys.ts';
import { ownedEntity, ownedResourceStore } from './owned-resources.ts';
import { transactGuarded } from './transactions.ts';

const meterSchema = z.object({
  ...ownedItem,
  created: z.number(),
  updated: z.number(),
  displayName: z.string(),
  eventName: z.string(),
  customerPayloadKey: z.string(),
  valuePayloadKey: z.string(),
  formula: z.enum(['count', 'last', 'sum']),
  eventTimeWindow: orNull(z.enum(['day', 'hour'])),
  status: z.enum(['active', 'inactive']),
  deactivatedAt: orNull(z.number()),
});
const parseMeter = (item: Record<string, unknown>): Meter => meterSchema.parse(item);

/**
 * DynamoDB adapter: meters live in their owner's partition next to one `METER_EVENT_NAME#<name>` item
 * each, written in the same transaction, which keeps event names unique. The name item carries a copy of
 * the meter, rewritten with every change, so a meter event finds its meter in a single read.
 */
export function dynamoMeterRepository(table: Table): MeterRepository {
  const kind = { entity: 'meter', keys, parse: parseMeter };
  const store = ownedResourceStore<Meter>(table, kind);
  const meters = ownedEntity<Meter>(kind);
  const nameItem = (meter: Meter) => ({
    PK: keys.pk(meter.scope),
    SK: keys.eventNameSk(meter.eventName),
    entity: 'meter_event_name',
    meterId: meter.id,
    meter,
  });
  return {
    ...store,
    create(meter, outbox) {
      const claim = { TableName: table.name, Item: nameItem(meter), ConditionExpression: 'attribute_not_exists(PK)' };
      // The name's claim first: its failed condition is how a taken event name shows up.
      return transactGuarded(table, [{ Put: claim }, ...meters.create(table.name, meter)], outbox);
    },
    replace: (next, outbox) => transactGuarded(table, [...meters.replace(table.name, next), { Put: { TableName: table.name, Item: nameItem(next) } }], outbox),
    async findByEventName(scope, eventName) {
      const claim = await table.get({ PK: keys.pk(scope), SK: keys.eventNameSk(eventName) });
      if (!claim) return undefined;
      return claim.meter ? parseMeter(claim.meter as Record<string, unknown>) : store.get(scope, String(claim.meterId));
    },
  };
}
