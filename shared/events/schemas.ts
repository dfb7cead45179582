import * as z from 'zod';
import { booleanParam, createdParam, expandParam, idParam, integerParam, v1ListParams, v2Time } from '#shared/http/params.ts';

export const listThinEventsParams = z.strictObject({
  limit: integerParam(1, 100).optional(),
  object_id: idParam().optional(),
  types: z.array(z.string().min(1)).max(20).optional(),
  created: z.strictObject({ gt: v2Time().optional(), gte: v2Time().optional(), lt: v2Time().optional(), lte: v2Time().optional() }).optional(),
});

export const retrieveThinEventParams = z.strictObject({});

export const listSnapshotEventsParams = z.strictObject({
  ...v1ListParams,
  created: createdParam().optional(),
  delivery_success: booleanParam().optional(),
  type: z.string().min(1).optional(),
  types: z.array(z.string().min(1)).max(20).optional(),
});

export const retrieveSnapshotEventParams = z.strictObject({ expand: expandParam().optional() });

export type ListSnapshotEventsParams = z.output<typeof listSnapshotEventsParams>;
