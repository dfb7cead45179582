import { httpHandler, responds } from '#shared/http/handler.ts';
import { alertParams } from '#shared/billing-alerts/schemas.ts';
import { serializeAlert } from '#shared/billing-alerts/serializer.ts';
import type { alertObject } from '#shared/billing-alerts/objects.ts';
import { wireBillingAlertService } from '#shared/billing-alerts/wiring.ts';

const service = wireBillingAlertService();

/** POST /v1/billing/alerts/{id}/archive */
export const handler = httpHandler(
  {
    summary: 'Archive a billing alert',
    description: 'Archives the alert for good: it leaves the list and never triggers.',
    params: alertParams,
    response: responds<typeof alertObject>(),
  },
  async ({ caller, pathParameters }) => ({ body: serializeAlert(await service.archive(caller.scope, pathParameters.id!)) }),
);
