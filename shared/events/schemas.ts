import * as z from 'zod';
import { booleanParam, createdParam, expandParam, idParam, integerParam, v1ListParams, v2Time } from '#shared/wire/params.ts';

export const listThinEventsParams = z.strictObject({
  limit: integerParam(1, 100).optional().describe('The page size.'),
  object_id: idParam().optional().describe('Primary object ID used to retrieve related events.'),
  types: z.array(z.string().min(1)).max(20).optional().describe('An array of up to 20 strings containing specific event names.'),
  created: z
    .strictObject({
      gt: v2Time().optional().describe('Only events created after this time (RFC 3339).'),
      gte: v2Time().optional().describe('Only events created at or after this time (RFC 3339).'),
      lt: v2Time().optional().describe('Only events created before this time (RFC 3339).'),
      lte: v2Time().optional().describe('Only events created at or before this time (RFC 3339).'),
    })
    .optional()
    .describe('Only return events that were created during the given date interval.'),
});

export const retrieveThinEventParams = z.strictObject({});

export const listSnapshotEventsParams = z.strictObject({
  ...v1ListParams,
  created: createdParam().optional().describe('Only return events that were created during the given date interval.'),
  delivery_success: booleanParam().optional().describe('Filter events by whether all webhooks were successfully delivered.'),
  type: z.string().min(1).optional().describe('A string containing a specific event name, or group of events using * as a wildcard.'),
  types: z.array(z.string().min(1)).max(20).optional().describe('An array of up to 20 strings containing specific event names.'),
});

export const retrieveSnapshotEventParams = z.strictObject({
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export type ListSnapshotEventsParams = z.output<typeof listSnapshotEventsParams>;
