import * as z from 'zod';
import { expandParam, idParam, integerParam, v1ListParams, v2Time } from '#shared/http/params.ts';

/** Payload values are strings; a JSON number is taken as its decimal text. */
const payload = z
  .record(z.string().min(1).max(100), z.union([z.string().max(1000), z.number().transform(String)]))
  .refine((map) => Object.keys(map).length <= 50, 'payload can have at most 50 keys');

const meterEvent = {
  event_name: z.string().min(1).max(100),
  payload,
  identifier: z.string().min(1).max(100).optional(),
  timestamp: v2Time().optional(),
};

export const createMeterEventParams = z.strictObject(meterEvent);

/** POST /v1/billing/meter_events: the same event, its time in Unix seconds (the service keeps milliseconds). */
export const createV1MeterEventParams = z.strictObject({
  ...meterEvent,
  timestamp: integerParam(0, 253402300799)
    .transform((seconds) => seconds * 1000)
    .optional(),
  expand: expandParam().optional(),
});

/** `cancel` is checked against `type` by the service, which answers `invalid_cancel_configuration`. */
const meterEventAdjustment = {
  event_name: z.string().min(1).max(100),
  type: z.enum(['cancel']),
  cancel: z.strictObject({ identifier: z.string().min(1).max(100).optional() }).optional(),
};

export const createMeterEventAdjustmentParams = z.strictObject(meterEventAdjustment);

export const createV1MeterEventAdjustmentParams = z.strictObject({ ...meterEventAdjustment, expand: expandParam().optional() });

export const createMeterEventSessionParams = z.strictObject({});

export const meterEventStreamParams = z.strictObject({
  events: z.array(z.strictObject(meterEvent)).min(1).max(100),
});

export const retrieveMeterEventAdjustmentParams = z.strictObject({});

/** Summaries need minute-aligned bounds, as in the reference. */
const minuteAligned = integerParam(0, 253402300799).refine((seconds) => seconds % 60 === 0, 'must be aligned to a minute');

export const listEventSummariesParams = z
  .strictObject({
    ...v1ListParams,
    customer: idParam(),
    start_time: minuteAligned,
    end_time: minuteAligned,
    value_grouping_window: z.enum(['day', 'hour']).optional(),
  })
  .refine((params) => params.end_time > params.start_time, { message: 'end_time must be after start_time', path: ['end_time'] });

export type CreateMeterEventParams = z.output<typeof createMeterEventParams>;
export type CreateMeterEventAdjustmentParams = z.output<typeof createMeterEventAdjustmentParams>;
