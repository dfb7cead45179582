import { httpHandler, responds } from '#shared/http/handler.ts';
import { finalizeInvoiceParams } from '#shared/invoices/schemas.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import type { invoiceObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** POST /v1/invoices/{id}/finalize: numbers it, applies the customer balance, and charges when collected automatically. */
export const handler = httpHandler(
  { summary: 'Finalize an invoice', params: finalizeInvoiceParams, response: responds<typeof invoiceObject>() },
  async ({ origin, params, pathParameters }) => ({ body: serializeInvoice(await service.finalize(origin, pathParameters.id!, params)) }),
);
