import { httpHandler, responds } from '#shared/http/handler.ts';
import { noParams } from '#shared/invoices/schemas.ts';
import { serializeInvoiceItem } from '#shared/invoices/serializer.ts';
import type { invoiceItemObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** GET /v1/invoiceitems/{id} */
export const handler = httpHandler(
  { summary: 'Retrieve an invoice item', params: noParams, response: responds<typeof invoiceItemObject>() },
  async ({ caller, pathParameters }) => ({ body: serializeInvoiceItem(await service.retrieveItem(caller.scope, pathParameters.id!)) }),
);
