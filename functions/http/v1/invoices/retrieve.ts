import { httpHandler, responds } from '#shared/http/handler.ts';
import { noParams } from '#shared/invoices/schemas.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import type { invoiceObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** GET /v1/invoices/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve an invoice', params: noParams, response: responds<typeof invoiceObject>() },
  async ({ caller, pathParameters }) => ({
    body: serializeInvoice(await service.retrieve(caller.scope, pathParameters.id!)),
  }),
);
