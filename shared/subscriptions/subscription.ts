import type { Price } from '#shared/catalogue/catalogue.ts';
import type { Debit } from '#shared/billing/proration.ts';
import type { BillingDue } from '#shared/billing/ports.ts';
import type { Outbox } from '#shared/events/event.ts';
import type { InvoiceItem } from '#shared/invoices/invoice.ts';
import type { OwnedResource, OwnedResourceStore } from '#shared/platform/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { PauseCollection, SubscriptionStatus, TrialEndBehavior } from './lifecycle.ts';
import { currentPeriod } from './periods.ts';

export interface SubscriptionItem {
  id: string;
  created: number;
  /** The price as it was when the item was made. */
  price: Price;
  quantity: number;
  metadata: Record<string, string>;
  /**
   * What was last debited for it in its current period, when a change made that differ from its period's
   * full amount (a proration's remaining time, or an item added without proration: nothing). The flexible
   * billing mode credits from it; absent or from an earlier period, the period's full amount was debited.
   */
  billed?: Debit;
  /** `billing_thresholds[usage_gte]` (metered items only): the usage this period that invoices early; absent or null for none. */
  billingThresholds?: { usageGte: number } | null;
  /** When its price last changed: its metered usage counts from here at this price (absent: from `created`). */
  usageSince?: number;
}

/** How many metered prices may leave a subscription in one period (each is a line on the next invoice). */
export const maxRetiredUsage = 20;

/**
 * A metered price that left the subscription during a period (its item deleted, or given another price): the
 * usage its meter counted from `since` to `until` is billed at that price by the next invoice that bills usage
 * in arrears, so changing a metered item loses none of it and counts none of it twice.
 */
export interface RetiredUsage {
  item: string;
  price: Price;
  since: number;
  until: number;
}

/** `billing_thresholds` of a subscription: invoice early once this period's usage amount reaches `amountGte`. */
export interface SubscriptionThresholds {
  amountGte: number | null;
  resetBillingCycleAnchor: boolean;
}

export type ProrationDiscounts = 'included' | 'itemized';

export interface BillingMode {
  type: 'classic' | 'flexible';
  prorationDiscounts: ProrationDiscounts | null;
  /** When the current mode was adopted (creation in flexible mode, or the migration); null for classic. */
  updatedAt: number | null;
}

/**
 * A v1 subscription as this service keeps it. Its times are its customer's billing time (a test clock's, or
 * the stack's); the fields its life is decided by are those of `LifecycleState` (lifecycle.ts), by name.
 */
export interface Subscription extends OwnedResource {
  /** The platform whose destinations and endpoints the events of its steps (no request makes them) go to. */
  platformId: string;
  created: number;
  customer: string;
  status: SubscriptionStatus;
  currency: string;
  items: SubscriptionItem[];
  billingMode: BillingMode;
  billingCycleAnchor: number;
  /** The current period (the trial while trialing); its end is the next renewal. */
  currentPeriodStart: number;
  currentPeriodEnd: number;
  trialStart: number | null;
  trialEnd: number | null;
  trialEndBehavior: TrialEndBehavior;
  cancelAt: number | null;
  cancelAtPeriodEnd: boolean;
  canceledAt: number | null;
  endedAt: number | null;
  cancellationDetails: { comment: string | null; feedback: string | null; reason: string | null };
  pauseCollection: PauseCollection | null;
  collectionMethod: 'charge_automatically' | 'send_invoice';
  daysUntilDue: number | null;
  description: string | null;
  metadata: Record<string, string>;
  /** The test clock of its customer, or null for the stack's clock. */
  testClock: string | null;
  /** The newest invoice it made. */
  latestInvoice: string | null;
  /** The trial end and renewal whose notices went out (`trial_will_end`, `invoice.upcoming`). */
  notices: { trialWillEnd: number | null; upcoming: number | null };
  /** When its next step falls due (lifecycle.ts `dueAt`), on its clock. */
  due: BillingDue;
  /** `billing_thresholds`; absent (stored before thresholds) or null for none. */
  billingThresholds?: SubscriptionThresholds | null;
  /**
   * The time its metered usage was invoiced up to by a threshold invoice (`subscription_threshold`): the
   * next invoice bills usage from here, so an event counts on one invoice only. Only ever moves forward.
   */
  usageBilledUntil?: number | null;
  /** Metered prices that left during the current period, their usage still to bill (at most `maxRetiredUsage`). */
  retiredUsage?: RetiredUsage[];
}

/** The items a write of a subscription adds and removes (their ids), so their pointers change with it. */
export interface SubscriptionItemsChange {
  added: string[];
  removed: string[];
  /** Invoice items written in the same transaction (the change's prorations, pending): none lost or doubled. */
  invoiceItems?: InvoiceItem[];
  /** Pending invoice items deleted in the same transaction, on the versions read (a cancellation's pending prorations). */
  deletedInvoiceItems?: InvoiceItem[];
}

export interface SubscriptionRepository extends OwnedResourceStore<Subscription> {
  /** Writes `next` on the version before, with the pointers of the items added and removed; false when someone wrote first. */
  replaceItems(next: Subscription, change: SubscriptionItemsChange, outbox?: Outbox): Promise<boolean>;
  /** The subscription that holds the item `itemId`, if any (in `scope`). */
  findByItem(scope: Scope, itemId: string): Promise<Subscription | undefined>;
}

/**
 * A subscription as a version before subscriptions ran (2026-11-26) stored it, completed: its current period
 * counted from its anchor to `now`, no trial, cancellation date, pause or test clock. Its due time follows
 * from that, so its first write (any update) puts it in the due index and it renews from then on.
 */
export function completeStored(stored: Subscription, now: number): Subscription {
  if (stored.currentPeriodEnd !== undefined) return stored;
  const ends = stored.items.map((item) => currentPeriod(stored.billingCycleAnchor, item.price.recurring!, Math.min(now, stored.endedAt ?? now)));
  return {
    ...stored,
    platformId: stored.scope.accountId,
    currentPeriodStart: Math.max(...ends.map((period) => period.start)),
    currentPeriodEnd: Math.min(...ends.map((period) => period.end)),
    trialStart: null,
    trialEnd: null,
    trialEndBehavior: 'create_invoice',
    cancelAt: null,
    pauseCollection: null,
    testClock: null,
    latestInvoice: null,
    notices: { trialWillEnd: null, upcoming: null },
    due: { at: null, testClock: null },
  };
}
