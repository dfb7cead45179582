import * as z from 'zod';
import { unixTime } from '#shared/wire/objects.ts';

export const meterObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('billing.meter').describe("String representing the object's type. Objects of the same type share the same value."),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    customer_mapping: z
      .object({
        event_payload_key: z.string().describe('The key in the meter event payload to use for mapping the event to a customer.'),
        type: z.literal('by_id').describe('The method for mapping a meter event to a customer.'),
      })
      .describe('Fields that specify how to map a meter event to a customer.'),
    default_aggregation: z
      .object({ formula: z.enum(['count', 'last', 'sum']).describe('Specifies how events are aggregated.') })
      .describe("The default settings to aggregate a meter's events with."),
    display_name: z.string().describe("The meter's name."),
    event_name: z.string().describe('The name of the meter event to record usage for. Corresponds with the `event_name` field on meter events.'),
    event_time_window: z.enum(['day', 'hour']).nullable().describe('The time window which meter events have been pre-aggregated for, if any.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    status: z.enum(['active', 'inactive']).describe("The meter's status."),
    status_transitions: z
      .object({ deactivated_at: unixTime.nullable().describe('The time the meter was deactivated, if any. Measured in seconds since Unix epoch.') })
      .describe("The times at which the meter's status changed."),
    updated: unixTime.describe('Time at which the object was last updated. Measured in seconds since the Unix epoch.'),
    value_settings: z
      .object({ event_payload_key: z.string().describe('The key in the meter event payload to use as the value for this meter.') })
      .describe("Fields that specify how to calculate a meter event's value."),
  })
  .meta({ id: 'BillingMeter' });
