import * as z from 'zod';
import { expandParam, v1ListParams } from '#shared/http/params.ts';

const payloadKey = z.string().min(1).max(100);

export const createMeterParams = z.strictObject({
  default_aggregation: z.strictObject({ formula: z.enum(['count', 'last', 'sum']) }),
  display_name: z.string().min(1).max(250),
  event_name: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9_.:-]+$/, 'may contain letters, digits, _ . : and -'),
  customer_mapping: z.strictObject({ event_payload_key: payloadKey, type: z.enum(['by_id']) }).optional(),
  event_time_window: z.enum(['day', 'hour']).optional(),
  value_settings: z.strictObject({ event_payload_key: payloadKey }).optional(),
  expand: expandParam().optional(),
});

export const updateMeterParams = z.strictObject({ display_name: z.string().min(1).max(250).optional(), expand: expandParam().optional() });

export const meterParams = z.strictObject({ expand: expandParam().optional() });

export const listMetersParams = z.strictObject({ ...v1ListParams, status: z.enum(['active', 'inactive']).optional() });

export type CreateMeterParams = z.output<typeof createMeterParams>;
