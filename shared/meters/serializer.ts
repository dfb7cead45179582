import * as z from 'zod';
import { unixTime } from '#shared/http/objects.ts';
import { unixSeconds } from '#shared/http/timestamps.ts';
import type { Meter } from './meter.ts';

export const meterObject = z
  .object({
    id: z.string(),
    object: z.literal('billing.meter'),
    created: unixTime,
    customer_mapping: z.object({ event_payload_key: z.string(), type: z.literal('by_id') }),
    default_aggregation: z.object({ formula: z.enum(['count', 'last', 'sum']) }),
    display_name: z.string(),
    event_name: z.string(),
    event_time_window: z.enum(['day', 'hour']).nullable(),
    livemode: z.boolean(),
    status: z.enum(['active', 'inactive']),
    status_transitions: z.object({ deactivated_at: unixTime.nullable() }),
    updated: unixTime,
    value_settings: z.object({ event_payload_key: z.string() }),
  })
  .meta({ id: 'BillingMeter' });

/** The v1 `billing.meter` object. */
export function serializeMeter(meter: Meter): z.input<typeof meterObject> {
  return {
    id: meter.id,
    object: 'billing.meter',
    created: unixSeconds(meter.created),
    customer_mapping: { event_payload_key: meter.customerPayloadKey, type: 'by_id' },
    default_aggregation: { formula: meter.formula },
    display_name: meter.displayName,
    event_name: meter.eventName,
    event_time_window: meter.eventTimeWindow,
    livemode: meter.scope.livemode,
    status: meter.status,
    status_transitions: { deactivated_at: meter.deactivatedAt === null ? null : unixSeconds(meter.deactivatedAt) },
    updated: unixSeconds(meter.updated),
    value_settings: { event_payload_key: meter.valuePayloadKey },
  };
}
