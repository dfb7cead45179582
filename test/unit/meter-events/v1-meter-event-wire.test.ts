import { describe, expect, it } from 'vitest';
import { decodeParams } from '#shared/http/encoding.ts';
import { validateParams } from '#shared/http/validation.ts';
import type { MeterEventAdjustment, MeterEventRecord } from '#shared/meter-events/meter-event.ts';
import { createV1MeterEventAdjustmentParams, createV1MeterEventParams } from '#shared/meter-events/schemas.ts';
import { serializeV1MeterEvent, serializeV1MeterEventAdjustment } from '#shared/meter-events/serializer.ts';
import { v1MeterEventAdjustmentObject, v1MeterEventObject } from '#shared/meter-events/objects.ts';

/** A v1 form body as the pipeline decodes and validates it. */
const parsed = <S extends Parameters<typeof validateParams>[0]>(schema: S, body: string) =>
  validateParams(
    schema,
    decodeParams({
      api: 'v1',
      method: 'POST',
      contentType: 'application/x-www-form-urlencoded',
      query: '',
      body,
      isBase64Encoded: false,
      maxBodyBytes: 100_000,
    }),
    'v1',
  );
const refusal = (schema: Parameters<typeof validateParams>[0], body: string) => {
  try {
    parsed(schema, body);
  } catch (error) {
    return error;
  }
  throw new Error('accepted');
};

const scope = { accountId: 'acct_wire', livemode: false };

describe('the v1 meter event wire', () => {
  it('reads a form body into the v2 service’s parameters, the timestamp from Unix seconds into milliseconds', () => {
    // Given the form the SDK sends
    const body = 'event_name=api_calls&payload[service_customer_id]=cus_1&payload[value]=25&identifier=evt_1&timestamp=1767225600';

    // When it is decoded and validated
    const params = parsed(createV1MeterEventParams, body);

    // Then it is the event the service takes
    expect(params).toEqual({
      event_name: 'api_calls',
      payload: { service_customer_id: 'cus_1', value: '25' },
      identifier: 'evt_1',
      timestamp: 1_767_225_600_000,
    });
  });

  it.each([
    ['an RFC 3339 timestamp (v2’s form)', 'event_name=a&payload[k]=v&timestamp=2026-01-01T00:00:00Z', 'parameter_invalid', 'timestamp'],
    ['a fractional timestamp', 'event_name=a&payload[k]=v&timestamp=1767225600.5', 'parameter_invalid', 'timestamp'],
    ['a nested payload value', 'event_name=a&payload[k][x]=v', 'parameter_invalid', 'payload[k]'],
    ['a payload value over 1,000 characters', `event_name=a&payload[k]=${'v'.repeat(1001)}`, 'parameter_invalid', 'payload[k]'],
    ['a missing payload', 'event_name=a', 'parameter_missing', 'payload'],
    ['an expansion (the event has none)', 'event_name=a&payload[k]=v&expand[0]=payload', 'parameter_invalid', 'expand[0]'],
    ['an unknown parameter', 'event_name=a&payload[k]=v&customer=cus_1', 'parameter_unknown', 'customer'],
  ])('refuses %s, naming the parameter in bracket notation', (_, body, code, param) => {
    expect(refusal(createV1MeterEventParams, body)).toMatchObject({ code, param });
  });

  it('reads an adjustment form, and refuses a type other than cancel and an unknown cancel field', () => {
    expect(parsed(createV1MeterEventAdjustmentParams, 'event_name=api_calls&type=cancel&cancel[identifier]=evt_1')).toEqual({
      event_name: 'api_calls',
      type: 'cancel',
      cancel: { identifier: 'evt_1' },
    });
    expect(refusal(createV1MeterEventAdjustmentParams, 'event_name=api_calls&type=void&cancel[identifier]=evt_1')).toMatchObject({ param: 'type' });
    expect(refusal(createV1MeterEventAdjustmentParams, 'event_name=api_calls&type=cancel&cancel[id]=evt_1')).toMatchObject({
      code: 'parameter_unknown',
      param: 'cancel[id]',
    });
  });

  it('renders the stored event as billing.meter_event, its times in whole Unix seconds', () => {
    const event: MeterEventRecord = {
      eventName: 'api_calls',
      identifier: 'evt_1',
      payload: { service_customer_id: 'cus_1', value: '25' },
      timestamp: 1_767_225_600_999,
      scope,
      platformId: 'acct_wire',
      created: 1_767_225_660_500,
      source: 'api',
      batchId: null,
      status: 'processed',
      meterId: 'mtr_1',
      cancelAdjustmentId: null,
    };

    const rendered = serializeV1MeterEvent(event);

    expect(rendered).toEqual({
      object: 'billing.meter_event',
      created: 1_767_225_660,
      event_name: 'api_calls',
      identifier: 'evt_1',
      livemode: false,
      payload: { service_customer_id: 'cus_1', value: '25' },
      timestamp: 1_767_225_600,
    });
    expect(v1MeterEventObject.strict().parse(rendered)).toEqual(rendered);
  });

  it('renders an adjustment as billing.meter_event_adjustment, without the id and created v1 does not have', () => {
    const adjustment: MeterEventAdjustment = {
      id: 'mtradj_1',
      scope: { ...scope, livemode: true },
      platformId: 'acct_wire',
      created: 1_767_225_660_500,
      eventName: 'api_calls',
      type: 'cancel',
      cancelIdentifier: 'evt_1',
      status: 'pending',
    };

    const rendered = serializeV1MeterEventAdjustment(adjustment);

    expect(rendered).toEqual({
      object: 'billing.meter_event_adjustment',
      cancel: { identifier: 'evt_1' },
      event_name: 'api_calls',
      livemode: true,
      status: 'pending',
      type: 'cancel',
    });
    expect(v1MeterEventAdjustmentObject.strict().parse(rendered)).toEqual(rendered);
  });
});
