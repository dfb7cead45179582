import * as z from 'zod';
import type { MeterEventAdjustment, MeterEventBatch, MeterEventRecord, MeterEventSession } from '#shared/meter-events/meter-event.ts';
import { epochSeconds } from '../conditions.ts';
import { orNull, scopeItem } from '../item-schemas.ts';
import { meterEvent as eventKeys, meterEventAdjustment as adjustmentKeys } from '../keys.ts';

const hour = 60 * 60 * 1000;
export const day = 24 * hour;
/** Event records outlive the 24-hour window by a day, so "too old to cancel" can be told from "unknown". */
export const eventRetentionMillis = 2 * day;
export const adjustmentRetentionMillis = 30 * day;
export const batchRetentionMillis = 7 * day;
export const errorWindowRetentionMillis = 30 * day;

const eventInput = { eventName: z.string(), identifier: z.string(), payload: z.record(z.string(), z.string()), timestamp: z.number() };
const origin = { scope: scopeItem, platformId: z.string(), created: z.number() };

const eventSchema = z.object({
  ...eventInput,
  ...origin,
  source: z.enum(['api', 'stream']),
  batchId: orNull(z.string()),
  status: z.enum(['accepted', 'processed', 'invalid', 'cancelled']),
  meterId: orNull(z.string()),
  cancelAdjustmentId: orNull(z.string()),
  idempotency: z.object({ keyHash: z.string(), fingerprint: z.string(), requestId: z.string() }).optional(),
});
const adjustmentSchema = z.object({
  id: z.string(),
  ...origin,
  eventName: z.string(),
  type: z.literal('cancel'),
  cancelIdentifier: z.string(),
  status: z.enum(['pending', 'complete']),
});
const batchSchema = z.object({ id: z.string(), ...origin, events: z.array(z.object(eventInput)) });
/** A session's own expiry is `sessionExpiresAt`: `expiresAt` is the table's TTL attribute (seconds). */
const sessionSchema = z
  .object({ id: z.string(), ...origin, sessionExpiresAt: z.number(), keyHash: z.string().optional() })
  .transform(({ sessionExpiresAt, ...session }) => ({
    ...session,
    expiresAt: sessionExpiresAt,
  }));

/** What each metering item stores, parsed from what the table answers (keys, bookkeeping and lease claims dropped). */
export const toEvent = (item: Record<string, unknown>): MeterEventRecord => eventSchema.parse(item);
export const toAdjustment = (item: Record<string, unknown>): MeterEventAdjustment => adjustmentSchema.parse(item);
export const toBatch = (item: Record<string, unknown>): MeterEventBatch => batchSchema.parse(item);
export const toSession = (item: Record<string, unknown>): MeterEventSession => sessionSchema.parse(item);
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
