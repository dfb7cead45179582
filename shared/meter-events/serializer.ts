import * as z from 'zod';
import { isoTimestamp } from '#shared/http/timestamps.ts';
import type { MeterEventAdjustment, MeterEventRecord, MeterEventSession } from './meter-event.ts';

/** The v2 `v2.billing.meter_event` object (it has no id: the identifier is its key). */
export const serializeMeterEvent = (event: MeterEventRecord) => ({
  object: 'v2.billing.meter_event' as const,
  created: isoTimestamp(event.created),
  event_name: event.eventName,
  identifier: event.identifier,
  livemode: event.scope.livemode,
  payload: event.payload,
  timestamp: isoTimestamp(event.timestamp),
});

export const serializeMeterEventAdjustment = (adjustment: MeterEventAdjustment) => ({
  id: adjustment.id,
  object: 'v2.billing.meter_event_adjustment' as const,
  cancel: { identifier: adjustment.cancelIdentifier },
  created: isoTimestamp(adjustment.created),
  event_name: adjustment.eventName,
  livemode: adjustment.scope.livemode,
  status: adjustment.status,
  type: adjustment.type,
});

export const serializeMeterEventSession = (session: MeterEventSession, token: string) => ({
  id: session.id,
  object: 'v2.billing.meter_event_session' as const,
  authentication_token: token,
  created: isoTimestamp(session.created),
  expires_at: isoTimestamp(session.expiresAt),
  livemode: session.scope.livemode,
});

/** The meter event stream's answer: an empty object, 202 (the events are validated when processed). */
export const meterEventStreamAccepted = z.strictObject({});
