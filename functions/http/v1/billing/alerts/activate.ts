import { httpHandler, responds } from '#shared/http/handler.ts';
import { alertParams } from '#shared/billing-alerts/schemas.ts';
import { serializeAlert } from '#shared/billing-alerts/serializer.ts';
import type { alertObject } from '#shared/billing-alerts/objects.ts';
import { wireBillingAlertService } from '#shared/billing-alerts/wiring.ts';

const service = wireBillingAlertService();

/** POST /v1/billing/alerts/{id}/activate */
export const handler = httpHandler(
  {
    summary: 'Activate a billing alert',
    description: 'Reactivates an inactive alert, allowing it to trigger again.',
    params: alertParams,
    response: responds<typeof alertObject>(),
  },
  async ({ caller, pathParameters }) => ({ body: serializeAlert(await service.activate(caller.scope, pathParameters.id!)) }),
);
