import { httpHandler, responds } from '#shared/http/handler.ts';
import { alertParams } from '#shared/billing-alerts/schemas.ts';
import { serializeAlert } from '#shared/billing-alerts/serializer.ts';
import type { alertObject } from '#shared/billing-alerts/objects.ts';
import { wireBillingAlertService } from '#shared/billing-alerts/wiring.ts';

const service = wireBillingAlertService();

/** POST /v1/billing/alerts/{id}/deactivate */
export const handler = httpHandler(
  {
    summary: 'Deactivate a billing alert',
    description: 'Deactivates an active alert, preventing it from triggering.',
    params: alertParams,
    response: responds<typeof alertObject>(),
  },
  async ({ caller, pathParameters }) => ({ body: serializeAlert(await service.deactivate(caller.scope, pathParameters.id!)) }),
);
