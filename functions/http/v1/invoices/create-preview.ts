import { httpHandler } from '#shared/http/handler.ts';
import { createPreviewParams } from '#shared/invoices/schemas.ts';
import { invoiceObject, serializeInvoice } from '#shared/invoices/serializer.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** POST /v1/invoices/create_preview: the invoice a customer's pending items would make now (nothing is stored). */
export const handler = httpHandler({ summary: 'Preview an invoice', params: createPreviewParams, response: invoiceObject }, async ({ caller, params }) => ({
  body: serializeInvoice(await service.preview(caller.scope, params)),
}));
