import { httpHandler, responds } from '#shared/http/handler.ts';
import { updateInvoiceItemParams } from '#shared/invoices/schemas.ts';
import { serializeInvoiceItem } from '#shared/invoices/serializer.ts';
import type { invoiceItemObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** POST /v1/invoiceitems/{id}: while pending or on a draft invoice. */
export const handler = httpHandler(
  {
    summary: 'Update an invoice item',
    description: 'While it is pending or on a draft invoice.',
    params: updateInvoiceItemParams,
    response: responds<typeof invoiceItemObject>(),
    idempotency: { answeredBy: 'invoiceitem.updated' },
  },
  async ({ origin, params, pathParameters }) => ({ body: serializeInvoiceItem(await service.updateItem(origin, pathParameters.id!, params)) }),
);
