import { httpHandler, responds } from '#shared/http/handler.ts';
import { createInvoiceItemParams } from '#shared/invoices/schemas.ts';
import { serializeInvoiceItem } from '#shared/invoices/serializer.ts';
import type { invoiceItemObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** POST /v1/invoiceitems: pending until an invoice takes it, or added to the draft `invoice` names. */
export const handler = httpHandler(
  {
    summary: 'Create an invoice item',
    params: createInvoiceItemParams,
    response: responds<typeof invoiceItemObject>(),
    idempotency: { answeredBy: 'invoiceitem.created' },
  },
  async ({ origin, params }) => ({ body: serializeInvoiceItem(await service.createItem(origin, params)) }),
);
