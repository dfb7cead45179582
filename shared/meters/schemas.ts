import * as z from 'zod';
import { expandParam, v1ListParams } from '#shared/wire/params.ts';

const payloadKey = z.string().min(1).max(100);

export const createMeterParams = z.strictObject({
  default_aggregation: z
    .strictObject({ formula: z.enum(['count', 'last', 'sum']).describe('Specifies how events are aggregated.') })
    .describe("The default settings to aggregate a meter's events with."),
  display_name: z.string().min(1).max(250).describe("The meter's name. Not visible to the customer."),
  event_name: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_.:-]+$/, 'may contain letters, digits, _ . : and -')
    .describe('The name of the meter event to record usage for. Corresponds with the `event_name` field on meter events.'),
  customer_mapping: z
    .strictObject({
      event_payload_key: payloadKey.describe('The key in the meter event payload to use for mapping the event to a customer.'),
      type: z.enum(['by_id']).describe('The method for mapping a meter event to a customer.'),
    })
    .optional()
    .describe('Fields that specify how to map a meter event to a customer.'),
  event_time_window: z.enum(['day', 'hour']).optional().describe('The time window which meter events have been pre-aggregated for, if any.'),
  value_settings: z
    .strictObject({ event_payload_key: payloadKey.describe('The key in the usage event payload to use as the value for this meter.') })
    .optional()
    .describe("Fields that specify how to calculate a meter event's value."),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export const updateMeterParams = z.strictObject({
  display_name: z.string().min(1).max(250).optional().describe("The meter's name. Not visible to the customer."),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export const meterParams = z.strictObject({ expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.') });

export const listMetersParams = z.strictObject({
  ...v1ListParams,
  status: z.enum(['active', 'inactive']).optional().describe('Filter results to only include meters with the given status.'),
});

export type CreateMeterParams = z.output<typeof createMeterParams>;
