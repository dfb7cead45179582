import { httpHandler, responds } from '#shared/http/handler.ts';
import { noParams } from '#shared/invoices/schemas.ts';
import type { deletedInvoiceObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** DELETE /v1/invoices/{id}: drafts only; their items become pending again. */
export const handler = httpHandler(
  {
    summary: 'Delete a draft invoice',
    description: 'Drafts only; their items become pending again.',
    params: noParams,
    response: responds<typeof deletedInvoiceObject>(),
  },
  async ({ origin, pathParameters }) => {
    const deleted = await service.delete(origin, pathParameters.id!);
    return { body: { id: deleted.id, object: 'invoice' as const, deleted: true as const } };
  },
);
