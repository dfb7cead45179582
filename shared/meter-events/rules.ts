import type { Meter } from '#shared/meters/meter.ts';
import type { MeterEventInput } from './meter-event.ts';

const day = 24 * 60 * 60 * 1000;

/** How far back an event's timestamp may be (35 days) and how far ahead (5 minutes). */
export const timestampBounds = { pastMillis: 35 * day, futureMillis: 5 * 60 * 1000 };
/** Identifiers are unique, and events can be cancelled, for 24 hours after they were received. */
export const uniquenessWindowMillis = day;
/** Values are counted exactly in doubles up to this many digits; longer ones are refused when processed. */
export const maxValueDigits = 15;

/** A problem with one event. `sync` is the request's error code, `async` the error report's. */
export interface Problem {
  sync: string;
  async: string;
  message: string;
  /** In v1's bracket notation (`payload[value]`): only the v1 error body names the parameter. */
  param?: string;
}

const positiveInteger = /^\d+$/;

/** A payload value by key: own keys only, so a key such as `constructor` is never read off the prototype. */
const field = (payload: Record<string, string>, key: string): string | undefined => (Object.hasOwn(payload, key) ? payload[key] : undefined);

/** The customer id and value an event carries for its meter (value null when absent). */
export const readingOf = (meter: Meter, event: MeterEventInput) => ({
  customerId: field(event.payload, meter.customerPayloadKey),
  value: field(event.payload, meter.valuePayloadKey) ?? null,
});

/**
 * The checks an event must pass against its meter, at `now`. The API runs them before accepting an event
 * (answering with `sync`); processing runs them again for stream events and for meters that changed since
 * (reporting `async`), plus the checks only processing makes (value digits, customer existence).
 */
export function problemOf(meter: Meter | undefined, event: MeterEventInput, now: number): Problem | undefined {
  if (!meter) {
    return { sync: 'no_meter', async: 'no_meter', message: `No active meter was found with event_name '${event.eventName}'.`, param: 'event_name' };
  }
  if (meter.status !== 'active') {
    return {
      sync: 'archived_meter',
      async: 'archived_meter',
      message: `The meter ${meter.id} for event_name '${event.eventName}' is inactive; reactivate it to record usage.`,
      param: 'event_name',
    };
  }
  const { customerId, value } = readingOf(meter, event);
  if (!customerId) {
    return {
      sync: 'payload_no_customer_defined',
      async: 'meter_event_no_customer_defined',
      message: `The payload must name the customer in '${meter.customerPayloadKey}'.`,
      param: `payload[${meter.customerPayloadKey}]`,
    };
  }
  // A `count` meter counts events; it does not read a value.
  if (meter.formula !== 'count' && value === null) {
    return {
      sync: 'payload_no_value_defined',
      async: 'meter_event_invalid_value',
      message: `The payload must hold the value in '${meter.valuePayloadKey}'.`,
      param: `payload[${meter.valuePayloadKey}]`,
    };
  }
  if (meter.formula !== 'count' && value !== null && (!positiveInteger.test(value) || /^0+$/.test(value))) {
    return {
      sync: 'payload_invalid_value',
      async: 'meter_event_invalid_value',
      message: `The value in '${meter.valuePayloadKey}' must be a positive integer, got '${value}'.`,
      param: `payload[${meter.valuePayloadKey}]`,
    };
  }
  if (event.timestamp < now - timestampBounds.pastMillis) {
    return {
      sync: 'timestamp_too_far_in_past',
      async: 'timestamp_too_far_in_past',
      message: 'The timestamp must be within the past 35 days.',
      param: 'timestamp',
    };
  }
  if (event.timestamp > now + timestampBounds.futureMillis) {
    return {
      sync: 'timestamp_in_future',
      async: 'timestamp_in_future',
      message: 'The timestamp must be no more than 5 minutes in the future.',
      param: 'timestamp',
    };
  }
  return undefined;
}

/** The value an event adds to its meter's usage: 1 for `count` meters, the payload value otherwise. */
export function usageValueOf(meter: Pick<Meter, 'formula' | 'valuePayloadKey'>, event: MeterEventInput): number {
  if (meter.formula === 'count') return 1;
  return Number(field(event.payload, meter.valuePayloadKey));
}

/** Whether the value is too long to be counted exactly. */
export const hasTooManyDigits = (meter: Meter, event: MeterEventInput): boolean =>
  meter.formula !== 'count' && (field(event.payload, meter.valuePayloadKey) ?? '').replace(/^0+/, '').length > maxValueDigits;

export const minuteOf = (timestamp: number): number => Math.floor(timestamp / 60_000) * 60_000;

/**
 * Problems of an event that passed `problemOf`, which the reference reports asynchronously (in the meter's
 * error reports) instead of refusing the request: a value too long to count exactly, an unknown customer.
 */
export async function refusalOf(
  meter: Meter,
  event: MeterEventInput,
  customerExists: (id: string) => Promise<boolean>,
): Promise<{ code: string; message: string } | undefined> {
  if (hasTooManyDigits(meter, event)) {
    return { code: 'meter_event_value_too_many_digits', message: `The value in '${meter.valuePayloadKey}' has more than ${maxValueDigits} digits.` };
  }
  const { customerId } = readingOf(meter, event);
  if (!(await customerExists(customerId!))) {
    return { code: 'meter_event_customer_not_found', message: `No customer with id '${customerId}' was found for meter ${meter.id}.` };
  }
  return undefined;
}
