import { httpHandler, responds } from '#shared/http/handler.ts';
import { updateInvoiceParams } from '#shared/invoices/schemas.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import type { invoiceObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** POST /v1/invoices/{id}: any field of a draft; metadata, description and auto_advance of an open invoice. */
export const handler = httpHandler(
  { summary: 'Update an invoice', params: updateInvoiceParams, response: responds<typeof invoiceObject>(), idempotency: { answeredBy: 'invoice.updated' } },
  async ({ origin, params, pathParameters }) => ({ body: serializeInvoice(await service.update(origin, pathParameters.id!, params)) }),
);
