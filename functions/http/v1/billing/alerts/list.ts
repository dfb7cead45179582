import { httpHandler, responds } from '#shared/http/handler.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';
import { listAlertsParams } from '#shared/billing-alerts/schemas.ts';
import { serializeAlert } from '#shared/billing-alerts/serializer.ts';
import type { alertObject } from '#shared/billing-alerts/objects.ts';
import { wireBillingAlertService } from '#shared/billing-alerts/wiring.ts';

const service = wireBillingAlertService();

/** GET /v1/billing/alerts: active and inactive alerts, newest first (archived ones are left out). */
export const handler = httpHandler(
  {
    summary: 'List billing alerts',
    description: 'Active and inactive alerts, newest first; archived alerts are left out.',
    params: listAlertsParams,
    response: responds<V1ListObject<typeof alertObject>>(),
  },
  async ({ caller, params }) => {
    // Every alert is a `usage_threshold` one: `alert_type` keeps them all.
    const page = await service.list(caller.scope, v1PageRequest(params), params.meter);
    return { body: v1List('/v1/billing/alerts', { ...page, items: page.items.map(serializeAlert) }, params) };
  },
);
