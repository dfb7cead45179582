import * as z from 'zod';
import { unixTime } from '#shared/wire/objects.ts';

export const usageSummaryObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('billing.meter_event_summary').describe("String representing the object's type. Objects of the same type share the same value."),
    aggregated_value: z.number().describe('Aggregated value of all the events within `start_time` (inclusive) and `end_time` (inclusive).'),
    end_time: unixTime.describe('End timestamp for this event summary (exclusive). Must be aligned with minute boundaries.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    meter: z.string().describe('The meter associated with this event summary.'),
    start_time: unixTime.describe('Start timestamp for this event summary (inclusive).'),
  })
  .meta({ id: 'BillingMeterEventSummary' });
