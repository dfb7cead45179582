import * as z from 'zod';
import { unixTime } from '#shared/wire/objects.ts';

export const alertObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('billing.alert').describe("String representing the object's type. Objects of the same type share the same value."),
    alert_type: z.literal('usage_threshold').describe('Defines the type of the alert.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    status: z.enum(['active', 'archived', 'inactive']).nullable().describe('Status of the alert. This can be active, inactive or archived.'),
    title: z.string().describe('Title of the alert.'),
    usage_threshold: z
      .object({
        filters: z
          .array(
            z.object({
              customer: z.string().nullable().describe('Limit the scope of the alert to this customer ID'),
              type: z.literal('customer'),
            }),
          )
          .nullable()
          .describe('The filters allow limiting the scope of this usage alert. You can only specify up to one filter at this time.'),
        gte: z.number().int().describe('The value at which this alert will trigger.'),
        meter: z.string().describe('The Billing Meter ID whose usage is monitored.'),
        recurrence: z.literal('one_time').describe('Defines how the alert will behave.'),
      })
      .nullable()
      .describe('Encapsulates configuration of the alert to monitor usage on a specific Billing Meter.'),
  })
  .meta({ id: 'BillingAlert' });

export const alertTriggeredObject = z
  .object({
    object: z.literal('billing.alert_triggered').describe("String representing the object's type. Objects of the same type share the same value."),
    alert: alertObject,
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    customer: z.string().describe('ID of customer for which the alert triggered'),
    external_customer_id: z.string().nullable().describe('External customer ID for the customer for which the alert triggered (customers here have none).'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    value: z.number().describe('The value triggering the alert'),
  })
  .meta({ id: 'BillingAlertTriggered' });
