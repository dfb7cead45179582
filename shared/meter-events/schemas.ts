import * as z from 'zod';
import { expandParam, idParam, unixTimeParam, v1ListParams, v2Time } from '#shared/wire/params.ts';

/** Payload values are strings; a JSON number is taken as its decimal text. */
const payload = z
  .record(z.string().min(1).max(100), z.union([z.string().max(1000), z.number().transform(String)]))
  .refine((map) => Object.keys(map).length <= 50, 'payload can have at most 50 keys')
  .describe(
    "The event's customer and value, under the keys the meter's `customer_mapping` and `value_settings` name (`service_customer_id` and `value` by default).",
  );

const meterEvent = {
  event_name: z.string().min(1).max(100).describe('The name of the meter event. Corresponds with the `event_name` field on a meter.'),
  payload,
  identifier: z.string().min(1).max(100).optional().describe('A unique identifier for the event. If not provided, one is generated.'),
  timestamp: v2Time().optional().describe('The time of the event. Measured in seconds since the Unix epoch.'),
};

export const createMeterEventParams = z.strictObject(meterEvent);

/** POST /v1/billing/meter_events: the same event, its time in Unix seconds (the service keeps milliseconds). */
export const createV1MeterEventParams = z.strictObject({
  ...meterEvent,
  timestamp: unixTimeParam()
    .transform((seconds) => seconds * 1000)
    .optional()
    .describe('The time of the event, in seconds since the Unix epoch: within the past 35 days or up to 5 minutes in the future. Defaults to now.'),
  expand: expandParam().optional(),
});

/** `cancel` is checked against `type` by the service, which answers `invalid_cancel_configuration`. */
const meterEventAdjustment = {
  event_name: z.string().min(1).max(100).describe('The name of the meter event. Corresponds with the `event_name` field on a meter.'),
  type: z.enum(['cancel']).describe('Specifies the type of cancellation. Currently supports canceling a single event.'),
  cancel: z
    .strictObject({ identifier: z.string().min(1).max(100).optional().describe('The identifier that was originally assigned to the meter event.') })
    .optional()
    .describe('Specifies which event to cancel.'),
};

export const createMeterEventAdjustmentParams = z.strictObject(meterEventAdjustment);

export const createV1MeterEventAdjustmentParams = z.strictObject({ ...meterEventAdjustment, expand: expandParam().optional() });

export const createMeterEventSessionParams = z.strictObject({});

export const meterEventStreamParams = z.strictObject({
  events: z
    .array(z.strictObject(meterEvent))
    .min(1)
    .max(100)
    .describe('List of meter events to include in the request. Supports up to 100 events per request.'),
});

export const retrieveMeterEventAdjustmentParams = z.strictObject({});

/** Summaries need minute-aligned bounds, as in the reference. */
const minuteAligned = unixTimeParam().refine((seconds) => seconds % 60 === 0, 'must be aligned to a minute');

export const listEventSummariesParams = z
  .strictObject({
    ...v1ListParams,
    customer: idParam().describe('The customer for which to fetch event summaries.'),
    start_time: minuteAligned.describe('The timestamp from when to start aggregating meter events (inclusive); must be aligned with minute boundaries.'),
    end_time: minuteAligned.describe('The timestamp from when to stop aggregating meter events (exclusive); must be aligned with minute boundaries.'),
    value_grouping_window: z
      .enum(['day', 'hour'])
      .optional()
      .describe(
        'Specifies what granularity to use when generating event summaries; if not specified, a single event summary is returned for the specified time range (`day` or `hour`).',
      ),
  })
  .refine((params) => params.end_time > params.start_time, { message: 'end_time must be after start_time', path: ['end_time'] });

export type CreateMeterEventParams = z.output<typeof createMeterEventParams>;
export type CreateMeterEventAdjustmentParams = z.output<typeof createMeterEventAdjustmentParams>;
