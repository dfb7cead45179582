import type * as z from 'zod';
import { unixSeconds } from '#shared/wire/timestamps.ts';
import type { AlertTrigger, BillingAlert } from './alert.ts';
import type { alertObject, alertTriggeredObject } from './objects.ts';

/** The v1 `billing.alert` object. */
export function serializeAlert(alert: BillingAlert): z.input<typeof alertObject> {
  return {
    id: alert.id,
    object: 'billing.alert',
    alert_type: 'usage_threshold',
    livemode: alert.scope.livemode,
    status: alert.status,
    title: alert.title,
    usage_threshold: {
      filters: [{ customer: alert.usageThreshold.customerId, type: 'customer' }],
      gte: alert.usageThreshold.gte,
      meter: alert.usageThreshold.meterId,
      recurrence: alert.usageThreshold.recurrence,
    },
  };
}

/** The `billing.alert_triggered` object of a `billing.alert.triggered` event. */
export const serializeAlertTriggered = (alert: BillingAlert, trigger: AlertTrigger): z.input<typeof alertTriggeredObject> => ({
  object: 'billing.alert_triggered',
  alert: serializeAlert(alert),
  created: unixSeconds(trigger.at),
  customer: trigger.customerId,
  external_customer_id: null,
  livemode: alert.scope.livemode,
  value: trigger.value,
});
