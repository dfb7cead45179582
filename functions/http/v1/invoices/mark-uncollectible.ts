import { httpHandler, responds } from '#shared/http/handler.ts';
import { noParams } from '#shared/invoices/schemas.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import type { invoiceObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** POST /v1/invoices/{id}/mark_uncollectible: open invoices only. */
export const handler = httpHandler(
  { summary: 'Mark an invoice uncollectible', params: noParams, response: responds<typeof invoiceObject>() },
  async ({ origin, pathParameters }) => ({ body: serializeInvoice(await service.markUncollectible(origin, pathParameters.id!)) }),
);
