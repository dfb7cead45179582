import * as z from 'zod';
import { isoTime, unixTime } from '#shared/wire/objects.ts';

export const meterEventObject = z
  .object({
    object: z
      .literal('v2.billing.meter_event')
      .describe("String representing the object's type. Objects of the same type share the same value of the object field."),
    created: isoTime.describe('The creation time of this meter event.'),
    event_name: z.string().describe('The name of the meter event. Corresponds with the `event_name` field on a meter.'),
    identifier: z.string().describe('A unique identifier for the event. If not provided, one will be generated.'),
    livemode: z.boolean().describe('Has the value `true` if the object exists in live mode or the value `false` if the object exists in test mode.'),
    payload: z
      .record(z.string(), z.string())
      .describe(
        "The payload of the event. This must contain the fields corresponding to a meter's `customer_mapping.event_payload_key` (default is `service_customer_id`) and `value_settings.event_payload_key` (default is `value`).",
      ),
    timestamp: isoTime.describe('The time of the event. Must be within the past 35 calendar days or up to 5 minutes in the future.'),
  })
  .meta({ id: 'V2BillingMeterEvent' });

export const meterEventAdjustmentObject = z
  .object({
    id: z.string().describe('The unique ID of this meter event adjustment.'),
    object: z
      .literal('v2.billing.meter_event_adjustment')
      .describe("String representing the object's type. Objects of the same type share the same value of the object field."),
    cancel: z
      .object({ identifier: z.string().describe('The identifier that was originally assigned to the meter event.') })
      .describe('Specifies which event to cancel.'),
    created: isoTime.describe('The time the adjustment was created.'),
    event_name: z.string().describe('The name of the meter event. Corresponds with the `event_name` field on a meter.'),
    livemode: z.boolean().describe('Has the value `true` if the object exists in live mode or the value `false` if the object exists in test mode.'),
    status: z.enum(['pending', 'complete']).describe("The meter event adjustment's status."),
    type: z.literal('cancel').describe('Specifies the type of cancellation. Currently supports canceling a single event.'),
  })
  .meta({ id: 'V2BillingMeterEventAdjustment' });

/** The v1 `billing.meter_event`: the same event as the v2 object, its times in Unix seconds. */
export const v1MeterEventObject = z
  .object({
    object: z.literal('billing.meter_event').describe("String representing the object's type. Objects of the same type share the same value."),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    event_name: z.string().describe('The name of the meter event. Corresponds with the `event_name` field on a meter.'),
    identifier: z.string().describe('A unique identifier for the event.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    payload: z.record(z.string(), z.string()).describe('The payload of the event: the customer and the value, under the keys the meter names.'),
    timestamp: unixTime.describe('The timestamp passed in when creating the event. Measured in seconds since the Unix epoch.'),
  })
  .meta({ id: 'BillingMeterEvent' });

/** The v1 `billing.meter_event_adjustment`: no id and no `created` (it cannot be retrieved on v1). */
export const v1MeterEventAdjustmentObject = z
  .object({
    object: z.literal('billing.meter_event_adjustment').describe("String representing the object's type. Objects of the same type share the same value."),
    cancel: z
      .object({ identifier: z.string().nullable().describe('Unique identifier for the event.') })
      .nullable()
      .describe('Specifies which event to cancel.'),
    event_name: z.string().describe('The name of the meter event. Corresponds with the `event_name` field on a meter.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    status: z.enum(['pending', 'complete']).describe("The meter event adjustment's status."),
    type: z.literal('cancel').describe('Specifies whether to cancel a single event or a range of events for a time period.'),
  })
  .meta({ id: 'BillingMeterEventAdjustment' });

export const meterEventSessionObject = z
  .object({
    id: z.string().describe('The unique ID of this auth session.'),
    object: z
      .literal('v2.billing.meter_event_session')
      .describe("String representing the object's type. Objects of the same type share the same value of the object field."),
    authentication_token: z.string().describe('The authentication token for this session. Use this token when calling the high-throughput meter event API.'),
    created: isoTime.describe('The creation time of this session.'),
    expires_at: isoTime.describe('The time at which this session expires.'),
    livemode: z.boolean().describe('Has the value `true` if the object exists in live mode or the value `false` if the object exists in test mode.'),
  })
  .meta({ id: 'V2BillingMeterEventSession' });

/** The meter event stream's answer: an empty object, 202 (the events are validated when processed). */
export const meterEventStreamAccepted = z.object({}).meta({ id: 'V2BillingMeterEventStreamAccepted' });
