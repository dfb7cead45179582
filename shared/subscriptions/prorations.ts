import { priceAmount, termsOf } from '#shared/billing/pricing.ts';
import { type Debit, type Period, prorateChange, prorationDescription } from '#shared/billing/proration.ts';
import { newId } from '#shared/core/ids.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventInput, EventOrigin } from '#shared/events/event.ts';
import type { InvoiceItem } from '#shared/invoices/invoice.ts';
import type { Scope } from '#shared/platform/types.ts';
import { serializeInvoiceItem } from '#shared/invoices/serializer.ts';
import { currentPeriod } from './periods.ts';
import type { Subscription, SubscriptionItem } from './subscription.ts';

/**
 * A subscription change's prorations as the reference makes them: for each item whose price or quantity
 * changed, or that was added or removed, a pending invoice item crediting the unused time of what it billed
 * and one charging the remaining time of what replaces it, from the proration date to the end of the
 * item's period (`proration: true`, `period`, `subscription`, `subscription_item`), in the subscription's
 * currency. Pure: the caller writes them in the subscription's own transaction.
 */

export type ProrationBehavior = 'always_invoice' | 'create_prorations' | 'none';

/** What prorating needs of invoices and the catalogue (wired to the invoices' service and the products' store). */
export interface ProrationInvoicing {
  /**
   * Invoices the subscription's pending invoice items now (`always_invoice`: `subscription_update`; `cancel`
   * with `invoice_now`: `subscription_cycle`): a draft taking them, finalized (the customer's balance
   * applied; a negative total becomes a credit on it) and, collecting automatically, charged. Nothing when
   * none are pending (a racing request invoiced them first). `usageUntil` (a cancellation at once with
   * `invoice_now`): the invoice also bills the metered items' usage of their current period up to then.
   */
  invoicePending(
    origin: EventOrigin,
    subscription: Subscription,
    billingReason: 'subscription_update' | 'subscription_cycle',
    usageUntil?: number,
  ): Promise<void>;
  /** The subscription's pending proration items (read before a cancellation that removes them). */
  pendingProrations(scope: Scope, subscription: Subscription): Promise<InvoiceItem[]>;
  /** The names of products (by id; a product gone is left out), for the lines' descriptions. */
  productNames(scope: Scope, productIds: readonly string[]): Promise<ReadonlyMap<string, string>>;
}

/** `invoiceitem.created` for each proration made (`invoiceitem.deleted` for each removed), in the subscription write's outbox. */
export const prorationEvents = (items: readonly InvoiceItem[], removed: readonly InvoiceItem[] = []): EventInput[] => [
  ...items.map((item) => snapshotInput('invoiceitem.created', serializeInvoiceItem(item), `/v1/invoiceitems/${item.id}`)),
  ...removed.map((item) => snapshotInput('invoiceitem.deleted', serializeInvoiceItem(item), `/v1/invoiceitems/${item.id}`)),
];

/** The item's current period at `at`: counted from the anchor, the one that ends by the subscription's period end. */
function itemPeriodAt(subscription: Subscription, item: SubscriptionItem, at: number): Period {
  return currentPeriod(subscription.billingCycleAnchor, item.price.recurring!, Math.min(at, subscription.currentPeriodEnd - 1));
}

/**
 * What was debited for `item` in `period`: the debit a change recorded (`billed`) while it belongs to that
 * period, else the period's full amount (what its period's invoice billed).
 */
function debitOf(item: SubscriptionItem, period: Period): Debit {
  if (item.billed && item.billed.period.end === period.end && item.billed.period.start >= period.start) return item.billed;
  return { amount: priceAmount(termsOf(item.price), item.quantity), period };
}

/** What an item prorates as: a metered item bills its usage in arrears, so nothing of it is prorated. */
const prorated = (item: SubscriptionItem) => (item.price.recurring?.usageType === 'metered' ? null : { terms: termsOf(item.price), quantity: item.quantity });

/** Whether a subscription prorates at all now: not while trialing (nothing was billed for the trial), nor once ended. */
const prorates = (subscription: Subscription) => subscription.status !== 'trialing' && subscription.endedAt === null;

/**
 * The prorations of changing `before`'s items into `after` at `at` (billing time; `now` stamps the invoice
 * items' `created`, `realNow` their ids), and `after` with what each item's debit now is (the flexible mode
 * credits from it next time). `behavior: 'none'` makes no invoice items but still records, in the flexible
 * mode, that an added item was debited nothing and a changed one what it was before.
 */
export function prorationsOf(input: {
  before: Subscription;
  after: SubscriptionItem[];
  at: number;
  now: number;
  realNow: number;
  behavior: ProrationBehavior;
  /** Product names by id, for the descriptions (a product not named here is shown by its id). */
  names?: ReadonlyMap<string, string>;
}): { invoiceItems: InvoiceItem[]; items: SubscriptionItem[] } {
  const { before, after, at, now, realNow, behavior, names } = input;
  const flexible = before.billingMode.type === 'flexible';
  if (!prorates(before)) return { invoiceItems: [], items: after };
  const invoiceItems: InvoiceItem[] = [];
  const make = (item: SubscriptionItem, line: ReturnType<typeof prorateChange>[number]): InvoiceItem => ({
    id: newId('ii', realNow),
    scope: before.scope,
    version: 1,
    created: now,
    customer: before.customer,
    currency: before.currency,
    amount: line.amount,
    unitAmountDecimal: line.unitAmountDecimal,
    quantity: line.quantity,
    price: item.price,
    description: prorationDescription(line.kind, line.quantity, names?.get(item.price.product) ?? item.price.product, at),
    metadata: {},
    period: line.period,
    invoice: null,
    pending: true,
    subscription: before.id,
    subscriptionItem: item.id,
    proration: true,
    discountable: false,
    testClock: before.testClock,
  });
  const items = after.map((item) => ({ ...item }));
  const changedOrRemoved = before.items.filter((old) => {
    const now = after.find((item) => item.id === old.id);
    return !now || now.price.id !== old.price.id || now.quantity !== old.quantity;
  });
  for (const old of changedOrRemoved) {
    const period = itemPeriodAt(before, old, at);
    const next = items.find((item) => item.id === old.id);
    const debit = debitOf(old, period);
    if (behavior === 'none') {
      if (next && flexible) next.billed = debit;
      continue;
    }
    const lines = prorateChange({
      period,
      at,
      from: prorated(old),
      to: next ? prorated(next) : null,
      ...(flexible ? { debit } : {}),
    });
    for (const line of lines) invoiceItems.push(make(line.kind === 'unused' ? old : next!, line));
    if (next && flexible) next.billed = { amount: lines.find((line) => line.kind === 'remaining')?.amount ?? 0, period: { start: at, end: period.end } };
  }
  for (const added of items.filter((item) => !before.items.some((old) => old.id === item.id))) {
    const period = itemPeriodAt(before, added, at);
    if (behavior === 'none') {
      if (flexible) added.billed = { amount: 0, period: { start: at, end: period.end } };
      continue;
    }
    const lines = prorateChange({ period, at, from: null, to: prorated(added) });
    for (const line of lines) invoiceItems.push(make(added, line));
    if (flexible) added.billed = { amount: lines[0]?.amount ?? 0, period: { start: at, end: period.end } };
  }
  return { invoiceItems, items };
}

/**
 * `prorationsOf` with the lines described by their products' names, read (through `productNames`) only
 * when the change makes lines, once per product across retries (`names` is the caller's cache).
 */
export async function describedProrations(
  ports: Pick<ProrationInvoicing, 'productNames'>,
  input: Omit<Parameters<typeof prorationsOf>[0], 'names'>,
  names: Map<string, string>,
): Promise<ReturnType<typeof prorationsOf>> {
  const first = prorationsOf({ ...input, names });
  const missing = [...new Set(first.invoiceItems.map((item) => item.price!.product))].filter((id) => !names.has(id));
  if (missing.length === 0) return first;
  for (const [id, name] of await ports.productNames(input.before.scope, missing)) names.set(id, name);
  return prorationsOf({ ...input, names });
}

/** `productNames` over a store of products: one read per product, in parallel (only for a change that makes lines). */
export function productNamesOf(catalogue: {
  products: { get(scope: Scope, id: string): Promise<{ name: string } | undefined> };
}): ProrationInvoicing['productNames'] {
  return async (scope, productIds) => {
    const found = await Promise.all(productIds.map(async (id) => [id, (await catalogue.products.get(scope, id))?.name] as const));
    return new Map(found.filter((entry): entry is readonly [string, string] => entry[1] !== undefined));
  };
}
