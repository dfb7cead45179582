import { httpHandler, responds } from '#shared/http/handler.ts';
import { createInvoiceParams } from '#shared/invoices/schemas.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import type { invoiceObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** POST /v1/invoices: a draft; pending items join with `pending_invoice_items_behavior=include`. */
export const handler = httpHandler(
  { summary: 'Create an invoice', params: createInvoiceParams, response: responds<typeof invoiceObject>(), idempotency: { answeredBy: 'invoice.created' } },
  async ({ origin, params }) => ({
    body: serializeInvoice(await service.create(origin, params)),
  }),
);
