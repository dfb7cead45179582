import { describe, expect, it } from 'vitest';
import type { MeterEventInput } from '#shared/meter-events/meter-event.ts';
import { hasTooManyDigits, minuteOf, problemOf, readingOf, usageValueOf } from '#shared/meter-events/rules.ts';
import type { Meter } from '#shared/meters/meter.ts';
import { meterFixture } from '../../support/fakes.ts';

const scope = { accountId: 'acct_1', livemode: false };
const now = 1_800_000_000_000;
const minute = 60 * 1000;
const day = 24 * 60 * minute;

const meter = (overrides: Partial<Meter> = {}): Meter => meterFixture({ scope, created: now, updated: now, ...overrides });

const event = (payload: Record<string, string> = { service_customer_id: 'cus_1', value: '3' }, timestamp = now): MeterEventInput => ({
  eventName: 'api_call',
  identifier: 'idem_1',
  payload,
  timestamp,
});

describe('problemOf', () => {
  it("reads only the payload's own keys, never inherited ones such as constructor", () => {
    const keyed = meter({ customerPayloadKey: 'constructor', valuePayloadKey: 'toString' });
    expect(problemOf(keyed, event({}), now)).toMatchObject({ sync: 'payload_no_customer_defined' });
    expect(problemOf(keyed, event({ constructor: 'cus_1' }), now)).toMatchObject({ sync: 'payload_no_value_defined' });
    expect(hasTooManyDigits(keyed, event({ constructor: 'cus_1' }))).toBe(false);
  });

  it('accepts a well-formed event for an active sum meter', () => {
    expect(problemOf(meter(), event(), now)).toBeUndefined();
  });

  it('refuses an event with no meter as no_meter on event_name', () => {
    const problem = problemOf(undefined, event(), now);
    expect(problem).toMatchObject({ sync: 'no_meter', async: 'no_meter', param: 'event_name' });
    expect(problem!.message).toContain("'api_call'");
  });

  it('refuses an event for an inactive meter as archived_meter', () => {
    const problem = problemOf(meter({ status: 'inactive', deactivatedAt: now - day }), event(), now);
    expect(problem).toMatchObject({ sync: 'archived_meter', async: 'archived_meter', param: 'event_name' });
    expect(problem!.message).toContain('mtr_1');
  });

  it('refuses an event without the customer key, naming the payload key in param', () => {
    expect(problemOf(meter(), event({ value: '3' }), now)).toMatchObject({
      sync: 'payload_no_customer_defined',
      async: 'meter_event_no_customer_defined',
      param: 'payload[service_customer_id]',
    });
  });

  it('treats an empty customer id as missing', () => {
    expect(problemOf(meter(), event({ service_customer_id: '', value: '3' }), now)?.sync).toBe('payload_no_customer_defined');
  });

  it('refuses a sum meter event without a value', () => {
    expect(problemOf(meter(), event({ service_customer_id: 'cus_1' }), now)).toMatchObject({
      sync: 'payload_no_value_defined',
      async: 'meter_event_invalid_value',
      param: 'payload[value]',
    });
  });

  it('refuses a last meter event without a value', () => {
    expect(problemOf(meter({ formula: 'last' }), event({ service_customer_id: 'cus_1' }), now)?.sync).toBe('payload_no_value_defined');
  });

  it('accepts a count meter event without a value', () => {
    expect(problemOf(meter({ formula: 'count' }), event({ service_customer_id: 'cus_1' }), now)).toBeUndefined();
  });

  it('ignores whatever value a count meter event carries', () => {
    expect(problemOf(meter({ formula: 'count' }), event({ service_customer_id: 'cus_1', value: 'abc' }), now)).toBeUndefined();
  });

  it.each(['0', '000', '-1', '2.5', 'abc', '', ' 1', '1e3'])('refuses the value %j as payload_invalid_value', (value) => {
    expect(problemOf(meter(), event({ service_customer_id: 'cus_1', value }), now)).toMatchObject({
      sync: 'payload_invalid_value',
      async: 'meter_event_invalid_value',
      param: 'payload[value]',
    });
  });

  it('accepts a positive integer with leading zeros', () => {
    expect(problemOf(meter(), event({ service_customer_id: 'cus_1', value: '007' }), now)).toBeUndefined();
  });

  it('refuses a timestamp more than 35 days before now', () => {
    expect(problemOf(meter(), event(undefined, now - 35 * day - 1), now)).toMatchObject({
      sync: 'timestamp_too_far_in_past',
      async: 'timestamp_too_far_in_past',
      param: 'timestamp',
    });
  });

  it('accepts a timestamp exactly 35 days before now', () => {
    expect(problemOf(meter(), event(undefined, now - 35 * day), now)).toBeUndefined();
  });

  it('refuses a timestamp more than 5 minutes after now', () => {
    expect(problemOf(meter(), event(undefined, now + 5 * minute + 1), now)).toMatchObject({
      sync: 'timestamp_in_future',
      async: 'timestamp_in_future',
      param: 'timestamp',
    });
  });

  it('accepts a timestamp exactly 5 minutes after now', () => {
    expect(problemOf(meter(), event(undefined, now + 5 * minute), now)).toBeUndefined();
  });

  it('reads the customer and value from the keys the meter names', () => {
    const custom = meter({ customerPayloadKey: 'account', valuePayloadKey: 'tokens' });

    expect(problemOf(custom, event({ account: 'cus_9', tokens: '12' }), now)).toBeUndefined();
    expect(problemOf(custom, event({ service_customer_id: 'cus_9', tokens: '12' }), now)).toMatchObject({
      sync: 'payload_no_customer_defined',
      param: 'payload[account]',
    });
    expect(problemOf(custom, event({ account: 'cus_9', value: '12' }), now)).toMatchObject({
      sync: 'payload_no_value_defined',
      param: 'payload[tokens]',
    });
    expect(problemOf(custom, event({ account: 'cus_9', tokens: 'x' }), now)).toMatchObject({
      sync: 'payload_invalid_value',
      param: 'payload[tokens]',
    });
  });

  it('reports the meter problem before the payload problems, and payload problems before timestamp ones', () => {
    const bad = event({}, now + day);

    expect(problemOf(meter({ status: 'inactive' }), bad, now)?.sync).toBe('archived_meter');
    expect(problemOf(meter(), bad, now)?.sync).toBe('payload_no_customer_defined');
    expect(problemOf(meter(), event({ service_customer_id: 'cus_1', value: '-1' }, now + day), now)?.sync).toBe('payload_invalid_value');
  });
});

describe('readingOf', () => {
  it('returns the customer id and value from the meter keys', () => {
    const custom = meter({ customerPayloadKey: 'account', valuePayloadKey: 'tokens' });
    expect(readingOf(custom, event({ account: 'cus_9', tokens: '12', value: '99' }))).toEqual({ customerId: 'cus_9', value: '12' });
  });

  it('returns a null value when the payload holds none', () => {
    expect(readingOf(meter(), event({ service_customer_id: 'cus_1' })).value).toBeNull();
  });
});

describe('usageValueOf', () => {
  it('is the payload value for sum and last meters', () => {
    expect(usageValueOf(meter(), event({ service_customer_id: 'cus_1', value: '42' }))).toBe(42);
    expect(usageValueOf(meter({ formula: 'last', valuePayloadKey: 'tokens' }), event({ service_customer_id: 'cus_1', tokens: '7' }))).toBe(7);
  });

  it('is 1 for a count meter whatever the payload holds', () => {
    expect(usageValueOf(meter({ formula: 'count' }), event({ service_customer_id: 'cus_1', value: '42' }))).toBe(1);
    expect(usageValueOf(meter({ formula: 'count' }), event({ service_customer_id: 'cus_1' }))).toBe(1);
  });
});

describe('hasTooManyDigits', () => {
  const withValue = (value: string) => event({ service_customer_id: 'cus_1', value });

  it('is false for a 15-digit value and true for a 16-digit one', () => {
    expect(hasTooManyDigits(meter(), withValue('9'.repeat(15)))).toBe(false);
    expect(hasTooManyDigits(meter(), withValue(`1${'0'.repeat(15)}`))).toBe(true);
  });

  it('does not count leading zeros', () => {
    expect(hasTooManyDigits(meter(), withValue(`0${'9'.repeat(15)}`))).toBe(false);
  });

  it('is false for a count meter, which reads no value', () => {
    expect(hasTooManyDigits(meter({ formula: 'count' }), withValue('1'.repeat(20)))).toBe(false);
  });

  it('reads the value from the meter key', () => {
    expect(hasTooManyDigits(meter({ valuePayloadKey: 'tokens' }), event({ service_customer_id: 'cus_1', value: '1'.repeat(20), tokens: '5' }))).toBe(false);
  });
});

describe('minuteOf', () => {
  it('rounds a timestamp down to the start of its minute', () => {
    const start = Date.UTC(2027, 0, 15, 10, 42);
    expect(minuteOf(start)).toBe(start);
    expect(minuteOf(start + 59_999)).toBe(start);
    expect(minuteOf(start + 60_000)).toBe(start + 60_000);
  });
});
