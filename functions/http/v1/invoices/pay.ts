import { httpHandler, responds } from '#shared/http/handler.ts';
import { payInvoiceParams } from '#shared/invoices/schemas.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import type { invoiceObject } from '#shared/invoices/objects.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';

const service = wireInvoiceService();

/** POST /v1/invoices/{id}/pay: charges the default source now, or records a payment made elsewhere (`paid_out_of_band`). */
export const handler = httpHandler(
  { summary: 'Pay an invoice', params: payInvoiceParams, response: responds<typeof invoiceObject>() },
  async ({ origin, params, pathParameters }) => ({ body: serializeInvoice(await service.pay(origin, pathParameters.id!, params)) }),
);
