import * as z from 'zod';
import { isoTime, unixTime } from '#shared/http/objects.ts';
import { isoTimestamp, unixSeconds } from '#shared/http/timestamps.ts';
import type { MeterEventAdjustment, MeterEventRecord, MeterEventSession } from './meter-event.ts';

export const meterEventObject = z
  .object({
    object: z.literal('v2.billing.meter_event'),
    created: isoTime,
    event_name: z.string(),
    identifier: z.string(),
    livemode: z.boolean(),
    payload: z.record(z.string(), z.string()),
    timestamp: isoTime,
  })
  .meta({ id: 'V2BillingMeterEvent' });

export const meterEventAdjustmentObject = z
  .object({
    id: z.string(),
    object: z.literal('v2.billing.meter_event_adjustment'),
    cancel: z.object({ identifier: z.string() }),
    created: isoTime,
    event_name: z.string(),
    livemode: z.boolean(),
    status: z.enum(['pending', 'complete']),
    type: z.literal('cancel'),
  })
  .meta({ id: 'V2BillingMeterEventAdjustment' });

/** The v1 `billing.meter_event`: the same event as the v2 object, its times in Unix seconds. */
export const v1MeterEventObject = z
  .object({
    object: z.literal('billing.meter_event'),
    created: unixTime,
    event_name: z.string(),
    identifier: z.string(),
    livemode: z.boolean(),
    payload: z.record(z.string(), z.string()),
    timestamp: unixTime,
  })
  .meta({ id: 'BillingMeterEvent' });

/** The v1 `billing.meter_event_adjustment`: no id and no `created` (it cannot be retrieved on v1). */
export const v1MeterEventAdjustmentObject = z
  .object({
    object: z.literal('billing.meter_event_adjustment'),
    cancel: z.object({ identifier: z.string().nullable() }).nullable(),
    event_name: z.string(),
    livemode: z.boolean(),
    status: z.enum(['pending', 'complete']),
    type: z.literal('cancel'),
  })
  .meta({ id: 'BillingMeterEventAdjustment' });

export const meterEventSessionObject = z
  .object({
    id: z.string(),
    object: z.literal('v2.billing.meter_event_session'),
    authentication_token: z.string(),
    created: isoTime,
    expires_at: isoTime,
    livemode: z.boolean(),
  })
  .meta({ id: 'V2BillingMeterEventSession' });

/** The v2 `v2.billing.meter_event` object (it has no id: the identifier is its key). */
export const serializeMeterEvent = (event: MeterEventRecord): z.input<typeof meterEventObject> => ({
  object: 'v2.billing.meter_event',
  created: isoTimestamp(event.created),
  event_name: event.eventName,
  identifier: event.identifier,
  livemode: event.scope.livemode,
  payload: event.payload,
  timestamp: isoTimestamp(event.timestamp),
});

export const serializeMeterEventAdjustment = (adjustment: MeterEventAdjustment): z.input<typeof meterEventAdjustmentObject> => ({
  id: adjustment.id,
  object: 'v2.billing.meter_event_adjustment',
  cancel: { identifier: adjustment.cancelIdentifier },
  created: isoTimestamp(adjustment.created),
  event_name: adjustment.eventName,
  livemode: adjustment.scope.livemode,
  status: adjustment.status,
  type: adjustment.type,
});

export const serializeV1MeterEvent = (event: MeterEventRecord): z.input<typeof v1MeterEventObject> => ({
  object: 'billing.meter_event',
  created: unixSeconds(event.created),
  event_name: event.eventName,
  identifier: event.identifier,
  livemode: event.scope.livemode,
  payload: event.payload,
  timestamp: unixSeconds(event.timestamp),
});

export const serializeV1MeterEventAdjustment = (adjustment: MeterEventAdjustment): z.input<typeof v1MeterEventAdjustmentObject> => ({
  object: 'billing.meter_event_adjustment',
  cancel: { identifier: adjustment.cancelIdentifier },
  event_name: adjustment.eventName,
  livemode: adjustment.scope.livemode,
  status: adjustment.status,
  type: adjustment.type,
});

export const serializeMeterEventSession = (session: MeterEventSession, token: string): z.input<typeof meterEventSessionObject> => ({
  id: session.id,
  object: 'v2.billing.meter_event_session',
  authentication_token: token,
  created: isoTimestamp(session.created),
  expires_at: isoTimestamp(session.expiresAt),
  livemode: session.scope.livemode,
});

/** The meter event stream's answer: an empty object, 202 (the events are validated when processed). */
export const meterEventStreamAccepted = z.object({}).meta({ id: 'V2BillingMeterEventStreamAccepted' });
