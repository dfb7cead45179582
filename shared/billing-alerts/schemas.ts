import * as z from 'zod';
import { expandParam, idParam, integerParam, stringParam, v1ListParams } from '#shared/wire/params.ts';

const expand = expandParam().optional().describe('Specifies which fields in the response should be expanded.');

export const createAlertParams = z.strictObject({
  alert_type: z.enum(['usage_threshold']).describe('The type of alert to create.'),
  title: stringParam(256).min(1).describe('The title of the alert.'),
  usage_threshold: z
    .strictObject({
      filters: z
        .array(
          z.strictObject({
            type: z.enum(['customer']).describe('What type of filter is being applied to this usage alert.'),
            customer: idParam().optional().describe('Limit the scope to this usage alert only to this customer.'),
          }),
        )
        .max(1, 'You can only specify up to one filter at this time.')
        .optional()
        .describe('The filters allows limiting the scope of this usage alert. You can only specify up to one filter at this time.'),
      gte: integerParam(1, Number.MAX_SAFE_INTEGER).describe('Defines the threshold value that triggers the alert. The value must be greater than 0.'),
      meter: idParam().describe('The Billing Meter ID whose usage is monitored.'),
      recurrence: z.enum(['one_time']).describe('Defines how the alert will behave.'),
    })
    .describe('The configuration of the usage threshold.'),
  expand,
});

export const alertParams = z.strictObject({ expand });

export const listAlertsParams = z.strictObject({
  ...v1ListParams,
  alert_type: z.enum(['usage_threshold']).optional().describe('Filter results to only include this type of alert.'),
  meter: idParam().optional().describe('Filter results to only include alerts with the given meter.'),
});

export type CreateAlertParams = z.output<typeof createAlertParams>;
