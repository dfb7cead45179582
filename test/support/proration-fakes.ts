import type { EventOrigin } from '#shared/events/event.ts';
import type { ProrationInvoicing } from '#shared/subscriptions/prorations.ts';
import type { Subscription } from '#shared/subscriptions/subscription.ts';

/** `ProrationInvoicing` that records each call (the invoices' side is tested through the local stack). */
export function recordingProrationInvoicing(): ProrationInvoicing & {
  calls: Array<{ origin: EventOrigin; subscription: Subscription; billingReason: string }>;
} {
  const calls: Array<{ origin: EventOrigin; subscription: Subscription; billingReason: string }> = [];
  return {
    calls,
    async invoicePending(origin, subscription, billingReason) {
      calls.push({ origin, subscription, billingReason });
    },
  };
}
