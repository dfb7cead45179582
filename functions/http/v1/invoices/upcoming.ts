import { httpHandler, responds } from '#shared/http/handler.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import type { invoiceObject } from '#shared/invoices/objects.ts';
import { inLegacyNames, previewParamsOfUpcoming, upcomingInvoiceParams } from '#shared/invoices/upcoming.ts';
import { wireInvoiceService } from '#shared/invoices/wiring.ts';
import { wireSubscriptionService } from '#shared/subscriptions/wiring.ts';

const service = wireInvoiceService();
const subscriptions = wireSubscriptionService();

/**
 * GET /v1/invoices/upcoming: the legacy form of `create_preview` (before 2025-03-31.basil; stripe-python 5's
 * `Invoice.upcoming`), its `subscription_*` parameters read as `subscription_details` (nothing is stored).
 */
export const handler = httpHandler(
  { summary: 'Retrieve an upcoming invoice (legacy)', params: upcomingInvoiceParams, response: responds<typeof invoiceObject>() },
  async ({ caller, params }) => {
    const preview = previewParamsOfUpcoming(params);
    const invoice =
      preview.subscription === undefined && preview.subscription_details === undefined
        ? service.preview(caller.scope, preview)
        : subscriptions.previewInvoice(caller.scope, preview);
    return {
      body: serializeInvoice(
        await invoice.catch((error: unknown) => {
          throw inLegacyNames(error);
        }),
      ),
    };
  },
);
