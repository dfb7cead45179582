import type { EventOrigin } from '#shared/events/event.ts';
import type { InvoiceItem } from '#shared/invoices/invoice.ts';
import type { ProrationInvoicing } from '#shared/subscriptions/prorations.ts';
import type { Subscription } from '#shared/subscriptions/subscription.ts';

/**
 * `ProrationInvoicing` that records each invoicing call (the invoices' side is tested through the local
 * stack), answers the pending prorations from `pending` (the memory repository's invoice items) and names
 * products from `products`.
 */
export function recordingProrationInvoicing(
  pending: () => readonly InvoiceItem[] = () => [],
  products: Record<string, string> = {},
): ProrationInvoicing & {
  calls: Array<{ origin: EventOrigin; subscription: Subscription; billingReason: string }>;
} {
  const calls: Array<{ origin: EventOrigin; subscription: Subscription; billingReason: string }> = [];
  return {
    calls,
    async invoicePending(origin, subscription, billingReason) {
      calls.push({ origin, subscription, billingReason });
    },
    async pendingProrations(_scope, subscription) {
      return pending().filter((item) => item.subscription === subscription.id && item.pending && item.proration);
    },
    async productNames(_scope, ids) {
      return new Map(ids.flatMap((id) => (products[id] === undefined ? [] : [[id, products[id]] as const])));
    },
  };
}
