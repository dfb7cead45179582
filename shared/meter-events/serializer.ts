import type * as z from 'zod';
import { isoTimestamp, unixSeconds } from '#shared/wire/timestamps.ts';
import type { MeterEventAdjustment, MeterEventRecord, MeterEventSession } from './meter-event.ts';
import type { meterEventObject, meterEventAdjustmentObject, v1MeterEventObject, v1MeterEventAdjustmentObject, meterEventSessionObject } from './objects.ts';

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
