import { priceAmount, termsOf } from '#shared/billing/pricing.ts';
import type { Price } from '#shared/catalogue/catalogue.ts';
import type { DueProcessor } from '#shared/billing/ports.ts';
import type { CustomerRepository } from '#shared/customers/customer.ts';
import {
  dynamoCatalogueRepository,
  dynamoPriceRepository,
  dynamoSubscriptionRepository,
  dynamoThresholdIndex,
  subscriptionEntity,
} from '#shared/data/billing-repositories.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { invoiceEntity } from '#shared/data/invoice-repository.ts';
import { registerUsageRoll } from '#shared/data/metering/rollups.ts';
import { type Table, type TransactItem, serviceTable } from '#shared/data/table.ts';
import { transactChecked } from '#shared/data/transactions.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import type { Period } from '#shared/invoices/invoice.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import type { invoiceService, PeriodLineInput } from '#shared/invoices/service.ts';
import { wireInvoiceService, wireMeteredUsage } from '#shared/invoices/wiring.ts';
import { isMetered, type MeteredUsage, usageLineAmount } from '#shared/invoices/usage.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import { wireBillingTime, wireTestClockRepository } from '#shared/test-clocks/wiring.ts';
import type { SubscriptionInvoicing } from './invoicing.ts';
import { applyStep, type InvoicePlan } from './lifecycle.ts';
import { currentPeriod } from './periods.ts';
import { productNamesOf } from './prorations.ts';
import { lifecycleOf, type SubscriptionServicePorts, subscriptionService } from './service.ts';
import type { Subscription } from './subscription.ts';
import { thresholdEvaluator } from './threshold-evaluator.ts';

type InvoiceService = ReturnType<typeof invoiceService>;

/**
 * The lines of a step's invoice: each planned licensed item's period at its price × quantity (zero inside a
 * trial); each metered item's usage in arrears, over the period that ends where the planned one starts (from
 * when the item, its price and any trial began), counted now and recounted when the invoice finalizes
 * (usage.ts); then the usage of each metered price that left the subscription (`retiredUsage`) up to `until`
 * (where the planned periods start), at that price. A metered item with no period behind it (a subscription's
 * first invoice, a trial's end) shows a zero line for the period ahead, as the reference does. `trialEnd`:
 * where usage starts counting (a preview prices the period after a trial as if it were over, but no usage of
 * the trial is billed).
 */
async function periodLines(
  usage: MeteredUsage,
  subscription: Subscription,
  plan: Pick<InvoicePlan, 'items'>,
  trialEnd = subscription.trialEnd,
  until = Math.min(...plan.items.map((item) => item.period.start)),
): Promise<PeriodLineInput[]> {
  // From where a threshold invoice stopped, if one billed this period's usage already: an event counts once.
  const billedFrom = Math.max(trialEnd ?? 0, subscription.usageBilledUntil ?? 0);
  /** The usage of `price` from `since` up to `end` this invoice bills: within the period of that price that `closing` ends. */
  const arrearsOf = (price: Price, since: number, end: number, closing = end): Period => ({
    start: Math.max(currentPeriod(subscription.billingCycleAnchor, price.recurring!, closing - 1).start, since, billedFrom),
    end,
  });
  const usageLine = async (price: Price, subscriptionItem: string, arrears: Period, period: Period): Promise<PeriodLineInput> => {
    const line = { kind: 'subscription' as const, price, proration: false, subscription: subscription.id, subscriptionItem };
    if (arrears.start >= arrears.end) return { ...line, amount: 0, quantity: 0, period, description: null };
    const quantity = await usage.quantity(subscription.scope, price, subscription.customer, arrears);
    return { ...line, amount: usageLineAmount(price, quantity), quantity, period: arrears, description: null };
  };
  const planned = plan.items.map(async ({ id, period }): Promise<PeriodLineInput> => {
    const item = subscription.items.find((found) => found.id === id)!;
    if (isMetered(item.price)) return usageLine(item.price, item.id, arrearsOf(item.price, item.usageSince ?? item.created, period.start), period);
    const trial = subscription.trialEnd !== null && period.end <= subscription.trialEnd;
    return {
      kind: 'subscription' as const,
      price: item.price,
      proration: false,
      subscription: subscription.id,
      subscriptionItem: item.id,
      amount: trial ? 0 : priceAmount(termsOf(item.price), item.quantity),
      quantity: item.quantity,
      period,
      description: trial ? `Trial period for ${item.price.nickname ?? item.price.product}` : null,
    };
  });
  // Each metered price that left during a period still billing: its usage up to `until` (none once billed).
  const retired = Number.isFinite(until)
    ? (subscription.retiredUsage ?? []).flatMap((left) => {
        // Only within the period this invoice closes: an earlier period's invoice billed what fell in it.
        const arrears = arrearsOf(left.price, left.since, Math.min(left.until, until), until);
        return arrears.start < arrears.end ? [usageLine(left.price, left.item, arrears, arrears)] : [];
      })
    : [];
  return Promise.all([...planned, ...retired]);
}

/**
 * The subscription's write with its invoice in one transaction: the invoice change (`invoiceEntity.commit`:
 * the draft or settled invoice, the pending items it takes, the customer numbered or checked unchanged) and
 * the subscription's create (with its item pointers) or versioned replace. A new subscription's claim on
 * its customer is the customer's own versioned write here (one transaction cannot touch an item twice).
 * While the subscription lives, each meter its metered items bill is registered for the daily usage roll
 * until a day past the period (`registerUsageRoll`), so its invoice reads hour rollups, not a month of minutes.
 */
function periodWrite(
  table: Pick<Table, 'name' | 'clock'>,
  subscription: Subscription,
  creating: boolean,
  change: Parameters<typeof invoiceEntity.commit>[1],
): TransactItem[] {
  const tableName = table.name;
  const invoiceActions = invoiceEntity.commit(tableName, change);
  const meters =
    subscription.endedAt === null ? [...new Set(subscription.items.filter((item) => isMetered(item.price)).map((item) => item.price.recurring!.meter!))] : [];
  const rolls = meters.map((meterId) =>
    registerUsageRoll(table, { scope: subscription.scope, meterId, customerId: subscription.customer }, subscription.currentPeriodEnd),
  );
  if (!creating) return [...subscriptionEntity.subscriptions.replace(tableName, subscription), ...invoiceActions, ...rolls];
  const made = subscriptionEntity.create(tableName, subscription);
  const claimsCustomer = change.customer !== undefined || change.customerRead !== undefined;
  return [...(claimsCustomer ? made.filter((action) => action !== made[0]) : made), ...invoiceActions, ...rolls];
}

/**
 * `SubscriptionInvoicing` over the invoices' period seam (`draftForPeriod`, `settlePeriodDraft`) and the
 * table: each step's subscription write and its invoice are one transaction, so a period's invoice exists
 * exactly when the subscription's step committed (two runners racing: one write fails its version).
 */
export function subscriptionInvoicing({
  table,
  invoices,
  customers,
  events,
  usage,
}: {
  table: Table;
  invoices: Pick<InvoiceService, 'draftForPeriod' | 'settlePeriodDraft' | 'preview' | 'voidChange'>;
  customers: Pick<CustomerRepository, 'get'>;
  events: EventEmitter;
  usage: MeteredUsage;
}): SubscriptionInvoicing {
  /** The next period's lines as `POST /v1/invoices/create_preview` shows them: the renewal's (or the trial end's). */
  const nextPeriodLines = async (subscription: Subscription) => {
    const trialing = subscription.status === 'trialing' && subscription.trialEnd !== null;
    const step = trialing ? { kind: 'end_trial' as const, at: subscription.trialEnd! } : { kind: 'renew' as const, at: subscription.currentPeriodEnd };
    const next = applyStep(lifecycleOf(subscription), step, { hasPaymentMethod: true });
    // Lines of the period after the trial are not trial lines: priced as the renewal will price them.
    const priced = { ...subscription, trialEnd: trialing ? null : subscription.trialEnd };
    return next.invoice ? periodLines(usage, priced, next.invoice, subscription.trialEnd) : [];
  };

  const previewChange: SubscriptionInvoicing['previewChange'] = async (subscription, now, { prorations, prorationDate, period }) => {
    const at = { now, testClock: subscription.testClock };
    const customer = { customer: subscription.customer, currency: subscription.currency, at };
    if (period.kind === 'first') {
      // Not stored: its lines name no subscription or item, and it takes the customer's pending items of no subscription.
      const lines = await periodLines(usage, subscription, period.plan);
      return invoices.preview(
        subscription.scope,
        customer,
        lines.map((line) => ({ ...line, subscription: null, subscriptionItem: null })),
      );
    }
    const lines = period.kind === 'next' ? await nextPeriodLines(subscription) : [];
    return invoices.preview(
      subscription.scope,
      { ...customer, subscription: subscription.id, ...(prorationDate === null ? {} : { prorationDate }) },
      lines,
      prorations,
    );
  };

  /** The next period's invoice as `POST /v1/invoices/create_preview` shows it: the renewal's lines (or the trial end's) and the pending items. */
  const preview = (subscription: Subscription, now: number) =>
    previewChange(subscription, now, { prorations: [], prorationDate: null, period: { kind: 'next' } });

  return {
    async writeWithInvoice({ origin, subscription, customer: read, creating, plan, settlement, now, decide }) {
      // A new subscription retries a lost race on its customer (numbered meanwhile); a step's lost race is its caller's to re-read.
      for (let round = 0; round < (creating ? 5 : 1); round++) {
        const customer = round === 0 && read ? read : await customers.get(origin.scope, subscription.customer);
        if (!customer) return undefined;
        const at = { now, testClock: subscription.testClock };
        const drafted = await invoices.draftForPeriod(origin, subscription, customer, at, await periodLines(usage, subscription, plan), plan.billingReason);
        const settled = await invoices.settlePeriodDraft(origin, drafted, customer, settlement, now);
        const written = { id: settled.invoice.id, status: settled.invoice.status, failure: settled.failure };
        const decided = decide(written);
        if (decided instanceof Error) throw decided;
        const outbox = events.prepare(origin, [...decided.events, ...settled.events]);
        if (await transactChecked(table, periodWrite(table, decided.subscription, creating, settled.change), outbox)) {
          await events.dispatch(outbox);
          return { subscription: decided.subscription, invoice: written };
        }
      }
      return undefined;
    },

    async writeWithVoid({ origin, subscription, events: eventInputs, voidInvoice, now }) {
      const voiding = voidInvoice === null ? undefined : await invoices.voidChange(origin.scope, voidInvoice, now);
      const outbox = events.prepare(origin, [...eventInputs, ...(voiding?.events ?? [])]);
      const actions = [
        ...subscriptionEntity.subscriptions.replace(table.name, subscription),
        ...(voiding ? invoiceEntity.commit(table.name, voiding.change) : []),
      ];
      if (!(await transactChecked(table, actions, outbox))) return false;
      await events.dispatch(outbox);
      return true;
    },

    async runningUsage(subscription, at) {
      const metered = subscription.items.filter((item) => isMetered(item.price));
      // As the threshold invoice's plan (thresholdStep): with no metered item left, nothing is counted.
      const lines = await periodLines(usage, subscription, { items: metered.map((item) => ({ id: item.id, period: { start: at, end: at } })) });
      return lines.map((line) => ({ subscriptionItem: line.subscriptionItem!, quantity: line.quantity, amount: line.amount }));
    },

    upcoming: async (subscription, now) => snapshotInput('invoice.upcoming', serializeInvoice(await preview(subscription, now)), '/v1/invoices/upcoming'),

    preview,

    previewChange,
  };
}

/** The service on its real adapters; handlers call this once at module scope (cold start). */
/** What prorations need of invoicing: the subscription's pending items, invoicing them at once, and product names for their lines. */
export function prorationInvoicing(
  table: Table,
  invoices: ReturnType<typeof invoiceService>,
  usage: MeteredUsage,
): SubscriptionServicePorts['prorationInvoicing'] {
  return {
    invoicePending: async (origin, subscription, billingReason, usageUntil) => {
      const metered = usageUntil === undefined ? [] : subscription.items.filter((item) => isMetered(item.price));
      const plan = { items: metered.map((item) => ({ id: item.id, period: { start: usageUntil!, end: usageUntil! } })) };
      const lines = usageUntil === undefined ? [] : await periodLines(usage, subscription, plan, subscription.trialEnd, usageUntil);
      await invoices.invoicePending(origin, subscription, billingReason, lines);
    },
    pendingProrations: (scope, subscription) => invoices.pendingProrations(scope, subscription),
    productNames: productNamesOf(dynamoCatalogueRepository(table)),
  };
}

export const wireSubscriptionService = () => {
  const table = serviceTable();
  const customers = dynamoCustomerRepository(table);
  const events = wireEventEmitter();
  const invoices = wireInvoiceService();
  const usage = wireMeteredUsage();
  return subscriptionService({
    subscriptions: dynamoSubscriptionRepository(table),
    prices: dynamoPriceRepository(table),
    customers,
    events,
    billingTime: wireBillingTime(),
    invoicing: subscriptionInvoicing({ table, invoices, customers, events, usage }),
    prorationInvoicing: prorationInvoicing(table, invoices, usage),
  });
};

/** The billing threshold evaluator on its real adapters: the scheduled run, and each test clock advance's. */
export function wireThresholdEvaluator() {
  const service = wireSubscriptionService();
  const clocks = wireTestClockRepository();
  return thresholdEvaluator({
    index: dynamoThresholdIndex(serviceTable()),
    evaluate: service.evaluateThresholds,
    frozenTime: async (scope, clockId) => {
      const clock = await clocks.get(scope, clockId);
      if (!clock) throw new Error(`The test clock ${clockId} is gone`);
      return clock.frozenTime;
    },
  });
}

/** The `subscription` due processor for the runner (shared/billing/due-processors.ts): renewals, trial ends, cancellations, expiry. */
export function wireSubscriptionDueProcessor(): DueProcessor {
  const service = wireSubscriptionService();
  return (scope, id, at) => service.processDue(scope, id, at);
}
