import type { ChargeOutcome } from '#shared/billing/ports.ts';
import type { EventInput, EventOrigin } from '#shared/events/event.ts';
import type { Customer } from '#shared/customers/customer.ts';
import type { Invoice, InvoiceItem } from '#shared/invoices/invoice.ts';
import type { InvoicePlan } from './lifecycle.ts';
import type { Subscription } from './subscription.ts';

/**
 * How the invoice a step asks for is settled as it is written: `charge` finalizes it and charges the
 * customer at once (a creation collecting automatically), `finalize` finalizes it without a charge
 * (`default_incomplete`, or a `send_invoice` creation, which sends it), `advance` leaves the draft to be
 * finalized about an hour later (renewals), and the paused collection's behaviours keep, void or mark it.
 */
export type InvoiceSettlement = 'charge' | 'finalize' | 'advance' | 'keep_as_draft' | 'void' | 'mark_uncollectible';

/** What the invoice came to by the time it was written. */
export interface WrittenInvoice {
  id: string;
  status: 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';
  /** The charge that failed, when `charge` was tried and failed. */
  failure: Extract<ChargeOutcome, { status: 'failed' }> | null;
}

/** What the subscription's life needs of invoicing (adapted in wiring.ts to the invoices' service). */
export interface SubscriptionInvoicing {
  /**
   * Writes `subscription` (new when `creating`, else the next version of the stored one) together with
   * the invoice `plan` asks for (its items' lines and the customer's pending items for the subscription),
   * settled as `settlement` says, in one transaction, with the invoice's events and those `decide` returns.
   * `decide` sees what the invoice came to and returns the subscription to write, or an error to refuse the
   * whole change (nothing is written). Undefined when the subscription's write lost a race.
   */
  writeWithInvoice(input: {
    origin: EventOrigin;
    subscription: Subscription;
    /** The customer as the caller just read it, for the first try (a lost race reads it again). */
    customer?: Customer;
    creating: boolean;
    plan: InvoicePlan;
    settlement: InvoiceSettlement;
    now: number;
    decide: (invoice: WrittenInvoice) => { subscription: Subscription; events: EventInput[] } | Error;
  }): Promise<{ subscription: Subscription; invoice: WrittenInvoice } | undefined>;
  /**
   * Writes the next version of a stored subscription with `events`, and, when `voidInvoice` names an invoice
   * still open, its void in the same transaction (an expiring `incomplete` subscription's first invoice).
   * False when the subscription's write lost a race.
   */
  writeWithVoid(input: { origin: EventOrigin; subscription: Subscription; events: EventInput[]; voidInvoice: string | null; now: number }): Promise<boolean>;
  /** `invoice.upcoming`: the invoice the subscription's next renewal will make, as a preview, at `now`. */
  upcoming(subscription: Subscription, now: number): Promise<EventInput>;
  /**
   * Each metered item's usage since the last invoice that billed it, up to `at`, and its amount: the lines a
   * threshold invoice at `at` would hold (one usage read per metered item).
   */
  runningUsage(subscription: Subscription, at: number): Promise<Array<{ subscriptionItem: string; quantity: number; amount: number }>>;
  /** The invoice the subscription's next period (its renewal, or its trial's end) will make, never stored. */
  preview(subscription: Subscription, now: number): Promise<Invoice>;
  /**
   * A previewed change's invoice, never stored: `prorations` (the invoice items the change would make, at
   * `prorationDate`) with the subscription's pending items and, as `period` says, the changed subscription's
   * next period (`next`: its renewal or trial end), no period (`none`: a change invoiced at once, or a
   * subscription ending with its period), or a new subscription's first invoice (`first`, its plan; the
   * subscription is not stored, so its lines name none).
   */
  previewChange(
    subscription: Subscription,
    now: number,
    change: {
      prorations: readonly InvoiceItem[];
      prorationDate: number | null;
      period: { kind: 'next' } | { kind: 'none' } | { kind: 'first'; plan: InvoicePlan };
    },
  ): Promise<Invoice>;
}
