import { httpHandler, responds } from '#shared/http/handler.ts';
import { noParams } from '#shared/invoices/schemas.ts';
import type { deletedInvoiceItemObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** DELETE /v1/invoiceitems/{id}: while pending or on a draft invoice. */
export const handler = httpHandler(
  {
    summary: 'Delete an invoice item',
    description: 'While it is pending or on a draft invoice.',
    params: noParams,
    response: responds<typeof deletedInvoiceItemObject>(),
  },
  async ({ origin, pathParameters }) => {
    const deleted = await service.deleteItem(origin, pathParameters.id!);
    return { body: { id: deleted.id, object: 'invoiceitem' as const, deleted: true as const } };
  },
);
