import { httpHandler, responds } from '#shared/http/handler.ts';
import { listInvoiceItemsParams } from '#shared/invoices/schemas.ts';
import { serializeInvoiceItem } from '#shared/invoices/serializer.ts';
import type { invoiceItemObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';

const service = wireInvoiceService();

/** GET /v1/invoiceitems: newest first; customer, invoice, pending and created filters. */
export const handler = httpHandler(
  { summary: 'List invoice items', params: listInvoiceItemsParams, response: responds<V1ListObject<typeof invoiceItemObject>>() },
  async ({ caller, params }) => {
    const page = await service.listItems(caller.scope, v1PageRequest(params), {
      customer: params.customer,
      invoice: params.invoice,
      pending: params.pending,
      created: params.created,
    });
    return { body: v1List('/v1/invoiceitems', { ...page, items: page.items.map(serializeInvoiceItem) }, params) };
  },
);
