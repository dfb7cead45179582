import type { MeterEventAdjustment, MeterEventRecord } from '#shared/meter-events/meter-event.ts';
import { epochSeconds } from '../conditions.ts';
import { recordOf } from '../item-schemas.ts';
import { meterEvent as eventKeys, meterEventAdjustment as adjustmentKeys } from '../keys.ts';

const hour = 60 * 60 * 1000;
export const day = 24 * hour;
/** Event records outlive the 24-hour window by a day, so "too old to cancel" can be told from "unknown". */
export const eventRetentionMillis = 2 * day;
export const adjustmentRetentionMillis = 30 * day;
export const batchRetentionMillis = 7 * day;
export const errorWindowRetentionMillis = 30 * day;

/** An item without its keys, bookkeeping attributes, and the lease claim's owner. */
export const strip = <T>(item: Record<string, unknown>): T => recordOf<T>(item, ['claimedBy']);
/** TTL deletion is lazy: an item past its expiry is treated as gone. */
export const unexpired = (item: Record<string, unknown> | undefined, now: number) =>
  item && (typeof item.expiresAt !== 'number' || item.expiresAt * 1000 > now) ? item : undefined;

export const eventKey = (event: Pick<MeterEventRecord, 'scope' | 'identifier'>) => ({ PK: eventKeys.pk(event.scope, event.identifier), SK: eventKeys.sk() });
export const adjustmentKey = (adjustment: Pick<MeterEventAdjustment, 'scope' | 'id'>) => ({
  PK: adjustmentKeys.pk(adjustment.scope, adjustment.id),
  SK: adjustmentKeys.sk(),
});

/** The condition under which an identifier can be claimed: free, or its last claim out of the 24-hour window. */
export const claimable = 'attribute_not_exists(PK) OR created < :cutoff';

export function eventItem(event: MeterEventRecord) {
  const { cancelAdjustmentId, ...rest } = event;
  return {
    ...eventKey(event),
    entity: 'meter_event',
    expiresAt: epochSeconds(event.created + eventRetentionMillis),
    ...rest,
    ...(cancelAdjustmentId ? { cancelAdjustmentId } : {}),
  };
}

export const toEvent = (item: Record<string, unknown>): MeterEventRecord => {
  const event = strip<MeterEventRecord>(item);
  return { ...event, cancelAdjustmentId: event.cancelAdjustmentId ?? null };
};
