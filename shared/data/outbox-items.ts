import { eventRetentionMillis, type Delivery, type FanOut, type Outbox, type SnapshotEvent, type ThinEvent } from '#shared/events/event.ts';
import { epochSeconds } from './conditions.ts';
import { dueEntry } from './due-index.ts';
import { storedBytes } from './item-schemas.ts';
import { idempotencyEntity } from './idempotency-store.ts';
import type { TransactItem } from './table.ts';
import { delivery as deliveryKeys, fanOut as fanOutKeys, snapshotEvent as snapshotKeys, thinEvent as thinKeys } from './keys.ts';

/** An event's deliveries, as the string set `deliveryIds` the table keeps them in (DynamoDB has no empty set). */
const linkedDeliveries = (ids: string[]) => (ids.length > 0 ? { deliveryIds: new Set(ids) } : {});

/** A thin event's item; `deliveryIds` are the deliveries written with it (a ping's). */
export const thinEventItem = ({ deliveryIds = [], ...event }: ThinEvent) => ({
  PK: thinKeys.pk(event.scope),
  SK: thinKeys.sk(event.id),
  ...(event.relatedObject ? { GSI1PK: thinKeys.gsi1pk(event.scope, event.relatedObject.id), GSI1SK: thinKeys.gsi1sk(event.id) } : {}),
  entity: 'thin_event',
  expiresAt: epochSeconds(event.created + eventRetentionMillis),
  ...event,
  ...linkedDeliveries(deliveryIds),
});

/** A snapshot event's item: its object (and previous attributes) as deflated JSON, in the order the API renders them. */
export const snapshotEventItem = ({ deliveryIds = [], ...event }: SnapshotEvent) => ({
  PK: snapshotKeys.pk(event.scope),
  SK: snapshotKeys.sk(event.id),
  entity: 'snapshot_event',
  expiresAt: epochSeconds(event.created + eventRetentionMillis),
  ...event,
  object: storedBytes(event.object),
  previousAttributes: event.previousAttributes === null ? null : storedBytes(event.previousAttributes),
  ...linkedDeliveries(deliveryIds),
});

/** A delivery's place in its destination's list (GSI1), which moves with its status. */
export const deliveryListEntry = (delivery: Pick<Delivery, 'id' | 'destination' | 'created'>, status: Delivery['status']) => ({
  GSI1PK: deliveryKeys.gsi1pk(delivery.destination.scope, delivery.destination.id),
  GSI1SK: deliveryKeys.gsi1sk(status, delivery.created, delivery.id),
});

export const deliveryItem = (delivery: Delivery) => ({
  PK: deliveryKeys.pk(delivery.id),
  SK: deliveryKeys.sk(),
  ...(delivery.status === 'pending' && delivery.nextAttemptAt !== null ? dueEntry('deliveries', delivery.id, delivery.nextAttemptAt) : {}),
  ...deliveryListEntry(delivery, delivery.status),
  entity: 'delivery',
  expiresAt: epochSeconds(delivery.created + eventRetentionMillis),
  ...delivery,
});

/** A fan-out record, due (for the sweeper) from when it is written until the fan-out removes it. */
export const fanOutItem = (fanOut: FanOut) => ({
  PK: fanOutKeys.pk(fanOut.id),
  SK: fanOutKeys.sk(),
  ...dueEntry('fan-outs', fanOut.id, fanOut.created),
  entity: 'fan_out',
  expiresAt: epochSeconds(fanOut.created + eventRetentionMillis),
  sweeps: 0,
  ...fanOut,
});

/** DynamoDB allows 100 actions per transaction; a fan-out is bounded well below by the destination caps. */
export const maxTransactionItems = 100;

/** The puts that write an outbox, to go into the same transaction as the change it belongs to. */
export function outboxItems(tableName: string, outbox: Outbox | undefined, alongside: TransactItem[] = []): TransactItem[] {
  if (!outbox) return alongside;
  // An explicit delivery (a ping) is linked to its event as the event is written.
  const linked = (event: ThinEvent): ThinEvent => {
    const ids = outbox.deliveries.filter((delivery) => delivery.event.id === event.id).map((delivery) => delivery.id);
    return ids.length > 0 ? { ...event, deliveryIds: ids } : event;
  };
  const puts = [
    ...outbox.thinEvents.map((event) => thinEventItem(linked(event))),
    ...outbox.snapshotEvents.map(snapshotEventItem),
    ...outbox.deliveries.map(deliveryItem),
    ...(outbox.fanOut ? [fanOutItem(outbox.fanOut)] : []),
  ].map((Item): TransactItem => ({ Put: { TableName: tableName, Item } }));
  // Last, so that the change's own actions keep the places their cancellation reasons are read at.
  const items = [...alongside, ...puts, ...(outbox.receipt ? [idempotencyEntity.receipt(tableName, outbox.receipt)] : [])];
  if (items.length > maxTransactionItems) {
    throw new Error(`A change with its events needs ${items.length} writes, more than one transaction holds (${maxTransactionItems}).`);
  }
  return items;
}
