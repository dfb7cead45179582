import type { BillingTime } from '#shared/billing/ports.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { Invoice } from '#shared/invoices/invoice.ts';
import type { InvoiceSettlement, SubscriptionInvoicing, WrittenInvoice } from '#shared/subscriptions/invoicing.ts';
import type { InvoicePlan } from '#shared/subscriptions/lifecycle.ts';
import type { Subscription, SubscriptionRepository } from '#shared/subscriptions/subscription.ts';

/** A billing time that is the given clock for every customer (or a test clock's, by customer id). */
export function fixedBillingTime(now: () => number, testClocks: Record<string, { clock: string; frozenTime: number }> = {}): BillingTime {
  return {
    forCustomer: async (_scope, customer) => {
      const clock = testClocks[customer];
      return clock ? { now: clock.frozenTime, testClock: clock.clock } : { now: now(), testClock: null };
    },
  };
}

/** An invoice as the in-memory invoicing wrote it, with the plan and settlement it was made from. */
export interface FakeInvoice extends WrittenInvoice {
  subscription: string;
  plan: InvoicePlan;
  settlement: InvoiceSettlement;
  at: number;
  events: string[];
}

/**
 * Invoicing on the shared in-memory stores: each invoice is a record of its plan, written only when the
 * subscription's own write (create, or versioned replace) goes through, with both's events, as the real
 * adapter writes them in one transaction. A charge comes out as `charge` says.
 */
/** One `previewChange` call of the fake: what the service asked to be previewed. */
export interface PreviewedChange {
  subscription: Subscription;
  now: number;
  change: Parameters<SubscriptionInvoicing['previewChange']>[2];
}

export function memorySubscriptionInvoicing(
  subscriptions: SubscriptionRepository,
  events: EventEmitter,
  charge: () => 'paid' | 'declined' = () => 'paid',
  /** Each metered item's running usage as `runningUsage` reports it (none: zero). */
  usage: Map<string, { quantity: number; amount: number }> = new Map(),
): SubscriptionInvoicing & { invoices: FakeInvoice[]; voided: string[]; previews: PreviewedChange[] } {
  const invoices: FakeInvoice[] = [];
  const previews: PreviewedChange[] = [];
  const voided: string[] = [];
  const statusOf = (settlement: InvoiceSettlement, charged: 'paid' | 'declined' | null): WrittenInvoice['status'] => {
    if (settlement === 'charge') return charged === 'paid' ? 'paid' : 'open';
    if (settlement === 'advance' || settlement === 'keep_as_draft') return 'draft';
    if (settlement === 'void') return 'void';
    return settlement === 'mark_uncollectible' ? 'uncollectible' : 'open';
  };
  return {
    invoices,
    async writeWithInvoice({ origin, subscription, creating, plan, settlement, now, decide }) {
      const charged = settlement === 'charge' ? charge() : null;
      const invoice: WrittenInvoice = {
        id: `in_${invoices.length + 1}`,
        status: statusOf(settlement, charged),
        failure:
          charged === 'declined'
            ? { status: 'failed', code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.', source: 'card_1' }
            : null,
      };
      const decided = decide(invoice);
      if (decided instanceof Error) throw decided;
      const outbox = events.prepare(origin, [
        ...decided.events,
        snapshotInput('invoice.created', { id: invoice.id, object: 'invoice' }, `/v1/invoices/${invoice.id}`),
      ]);
      const written = creating ? await subscriptions.create(decided.subscription, { outbox }) : await subscriptions.replace(decided.subscription, outbox);
      if (!written) return undefined;
      await events.dispatch(outbox);
      invoices.push({ ...invoice, subscription: subscription.id, plan, settlement, at: now, events: decided.events.map((event) => event.type) });
      return { subscription: decided.subscription, invoice };
    },
    voided,
    runningUsage: async (subscription: Subscription) =>
      subscription.items
        .filter((item) => item.price.recurring?.usageType === 'metered')
        .map((item) => ({ subscriptionItem: item.id, ...(usage.get(item.id) ?? { quantity: 0, amount: 0 }) })),
    async writeWithVoid({ origin, subscription, events: eventInputs, voidInvoice }) {
      const outbox = events.prepare(origin, eventInputs);
      if (!(await subscriptions.replace(subscription, outbox))) return false;
      await events.dispatch(outbox);
      if (voidInvoice) voided.push(voidInvoice);
      return true;
    },
    // Only what the service reads of a preview: whose it is and when.
    preview: async (subscription: Subscription, now: number) =>
      ({ id: `upcoming_in_${subscription.customer}`, customer: subscription.customer, subscription: subscription.id, created: now }) as Invoice,
    previews,
    // A previewed change as the service hands it over (the subscription as changed, its prorations, which period), kept in `previews`.
    previewChange: async (subscription, now, change) => {
      previews.push({ subscription, now, change });
      return { id: `upcoming_in_${subscription.customer}`, customer: subscription.customer, subscription: subscription.id || null, created: now } as Invoice;
    },
    upcoming: async (subscription: Subscription, now: number) =>
      snapshotInput(
        'invoice.upcoming',
        { id: `upcoming_${subscription.id}`, object: 'invoice', subscription: subscription.id, created: Math.floor(now / 1000) },
        '/v1/invoices/upcoming',
      ),
  };
}
