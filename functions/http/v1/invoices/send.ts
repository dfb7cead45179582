import { httpHandler, responds } from '#shared/http/handler.ts';
import { noParams } from '#shared/invoices/schemas.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import type { invoiceObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** POST /v1/invoices/{id}/send: records the invoice as sent (`invoice.sent`); no email leaves this service. */
export const handler = httpHandler(
  { summary: 'Send an invoice', params: noParams, response: responds<typeof invoiceObject>() },
  async ({ origin, pathParameters }) => ({
    body: serializeInvoice(await service.send(origin, pathParameters.id!)),
  }),
);
