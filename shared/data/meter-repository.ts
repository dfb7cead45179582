import type { Meter, MeterRepository } from '#shared/meters/meter.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Table } from './table.ts';
import { meter as keys } from './keys.ts';
import { ownedResourceStore } from './owned-resources.ts';
import { readRecent, recentKey, writeForgetting } from './recent-items.ts';
import { transactGuarded } from './transactions.ts';

export interface MeterRepositoryOptions {
  /**
   * How long `findByEventName` may answer from a meter this process found (see `recent-items.ts`) instead
   * of reading it again; 0 always reads. On AWS the meters handlers are other Lambdas, so a deactivation
   * can take this long to reach a warm meter-events one: an event accepted in that gap is refused when
   * processed (processing reads meters afresh) and reported as `archived_meter`, like one accepted just
   * before the deactivation.
   * @default 0
   */
  recentMillis?: number;
}

/**
 * DynamoDB adapter: meters live in their owner's partition next to one `METER_EVENT_NAME#<name>` item
 * each, written in the same transaction, which keeps event names unique. The name item carries a copy of
 * the meter, rewritten with every change, so a meter event finds its meter in a single read.
 */
export function dynamoMeterRepository(table: Table, { recentMillis = 0 }: MeterRepositoryOptions = {}): MeterRepository {
  const store = ownedResourceStore<Meter>(table, { entity: 'meter', keys });
  const meterItem = (meter: Meter) => ({ PK: keys.pk(meter.scope), SK: keys.sk(meter.id), entity: 'meter', ...meter });
  const nameItem = (meter: Meter) => ({
    PK: keys.pk(meter.scope),
    SK: keys.eventNameSk(meter.eventName),
    entity: 'meter_event_name',
    meterId: meter.id,
    meter,
  });
  const nameKeyOf = (scope: Scope, eventName: string) => recentKey(table.name, { PK: keys.pk(scope), SK: keys.eventNameSk(eventName) });
  return {
    ...store,
    create(meter, outbox) {
      const claim = { TableName: table.name, Item: nameItem(meter), ConditionExpression: 'attribute_not_exists(PK)' };
      return writeForgetting(nameKeyOf(meter.scope, meter.eventName), () =>
        transactGuarded(table, [{ Put: claim }, { Put: { TableName: table.name, Item: meterItem(meter) } }], outbox),
      );
    },
    replace(next, outbox) {
      const put = {
        TableName: table.name,
        Item: meterItem(next),
        ConditionExpression: 'attribute_exists(PK) AND version = :previous',
        ExpressionAttributeValues: { ':previous': next.version - 1 },
      };
      return writeForgetting(nameKeyOf(next.scope, next.eventName), () =>
        transactGuarded(table, [{ Put: put }, { Put: { TableName: table.name, Item: nameItem(next) } }], outbox),
      );
    },
    findByEventName: (scope, eventName) =>
      readRecent(nameKeyOf(scope, eventName), { maxAgeMillis: recentMillis }, async (): Promise<Meter | undefined> => {
        const claim = await table.get({ PK: keys.pk(scope), SK: keys.eventNameSk(eventName) });
        if (!claim) return undefined;
        return (claim.meter as Meter | undefined) ?? store.get(scope, claim.meterId as string);
      }),
  };
}
