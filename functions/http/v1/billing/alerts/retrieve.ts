import { httpHandler, responds } from '#shared/http/handler.ts';
import { alertParams } from '#shared/billing-alerts/schemas.ts';
import { serializeAlert } from '#shared/billing-alerts/serializer.ts';
import type { alertObject } from '#shared/billing-alerts/objects.ts';
import { wireBillingAlertService } from '#shared/billing-alerts/wiring.ts';

const service = wireBillingAlertService();

/** GET /v1/billing/alerts/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve a billing alert', params: alertParams, response: responds<typeof alertObject>() },
  async ({ caller, pathParameters }) => ({
    body: serializeAlert(await service.retrieve(caller.scope, pathParameters.id!)),
  }),
);
