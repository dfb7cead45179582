import { httpHandler, responds } from '#shared/http/handler.ts';
import { listInvoiceLinesParams } from '#shared/invoices/schemas.ts';
import { serializeInvoiceLine } from '#shared/invoices/serializer.ts';
import type { invoiceLineObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';
import { v1List, v1PageRequest, type V1ListObject } from '#shared/wire/pagination.ts';

const service = wireInvoiceService();

/** GET /v1/invoices/{id}/lines: the invoice's lines in their order. */
export const handler = httpHandler(
  { summary: "List an invoice's line items", params: listInvoiceLinesParams, response: responds<V1ListObject<typeof invoiceLineObject>>() },
  async ({ caller, params, pathParameters }) => {
    const { invoice, page } = await service.lines(caller.scope, pathParameters.id!, v1PageRequest(params));
    const items = page.items.map((line) => serializeInvoiceLine(invoice, line));
    return { body: v1List(`/v1/invoices/${invoice.id}/lines`, { ...page, items }, params) };
  },
);
