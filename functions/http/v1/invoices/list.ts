import { httpHandler, responds } from '#shared/http/handler.ts';
import { listInvoicesParams } from '#shared/invoices/schemas.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import type { invoiceObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';

const service = wireInvoiceService();

/** GET /v1/invoices: newest first; customer, status, subscription, collection_method, created and due_date filters. */
export const handler = httpHandler(
  { summary: 'List invoices', params: listInvoicesParams, response: responds<V1ListObject<typeof invoiceObject>>() },
  async ({ caller, params }) => {
    const page = await service.list(caller.scope, v1PageRequest(params), {
      customer: params.customer,
      status: params.status,
      subscription: params.subscription,
      collection_method: params.collection_method,
      created: params.created,
      due_date: params.due_date === undefined ? undefined : params.due_date * 1000,
    });
    return { body: v1List('/v1/invoices', { ...page, items: page.items.map(serializeInvoice) }, params) };
  },
);
