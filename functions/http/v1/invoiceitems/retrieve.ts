import { httpHandler } from '#shared/http/handler.ts';
import { noParams } from '#shared/invoices/schemas.ts';
import { invoiceItemObject, serializeInvoiceItem } from '#shared/invoices/serializer.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** GET /v1/invoiceitems/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve an invoice item', params: noParams, response: invoiceItemObject },
  async ({ caller, pathParameters }) => ({ body: serializeInvoiceItem(await service.retrieveItem(caller.scope, pathParameters.id!)) }),
);
