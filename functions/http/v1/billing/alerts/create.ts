import { httpHandler, responds } from '#shared/http/handler.ts';
import { createAlertParams } from '#shared/billing-alerts/schemas.ts';
import { serializeAlert } from '#shared/billing-alerts/serializer.ts';
import type { alertObject } from '#shared/billing-alerts/objects.ts';
import { wireBillingAlertService } from '#shared/billing-alerts/wiring.ts';

const service = wireBillingAlertService();

/** POST /v1/billing/alerts: a usage threshold on a meter for one customer. */
export const handler = httpHandler(
  {
    summary: 'Create a billing alert',
    description:
      'A `usage_threshold` alert on an active meter for one customer (`filters[0]`): `billing.alert.triggered` is sent once when the customer’s usage on the meter reaches `gte`.',
    params: createAlertParams,
    response: responds<typeof alertObject>(),
  },
  async ({ origin, params }) => ({ body: serializeAlert(await service.create(origin, params)) }),
);
