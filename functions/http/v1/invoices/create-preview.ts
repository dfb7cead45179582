import { httpHandler, responds } from '#shared/http/handler.ts';
import { createPreviewParams } from '#shared/invoices/preview-schemas.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import type { invoiceObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';

const service = wireInvoiceService();
const subscriptions = wireSubscriptionService();

/**
 * POST /v1/invoices/create_preview: the invoice a customer's pending items would make now, or with
 * `subscription` / `subscription_details` the one a subscription (as it stands, changed, or new) will make
 * (nothing is stored).
 */
export const handler = httpHandler(
  { summary: 'Preview an invoice', params: createPreviewParams, response: responds<typeof invoiceObject>() },
  async ({ caller, params }) => ({
    body: serializeInvoice(
      params.subscription === undefined && params.subscription_details === undefined
        ? await service.preview(caller.scope, params)
        : await subscriptions.previewInvoice(caller.scope, params),
    ),
  }),
);
