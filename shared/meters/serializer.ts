import type * as z from 'zod';
import { unixSeconds } from '#shared/wire/timestamps.ts';
import type { Meter } from './meter.ts';
import type { meterObject } from './objects.ts';

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
