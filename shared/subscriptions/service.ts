import { systemClock } from '#shared/core/clock.ts';
import type { Price, PriceRepository } from '#shared/catalogue/catalogue.ts';
import { wholeAmount } from '#shared/catalogue/service.ts';
import type { CustomerRepository } from '#shared/customers/customer.ts';
import type { BillingTime } from '#shared/billing/ports.ts';
import { priceAmount, termsOf } from '#shared/billing/pricing.ts';
import { CardError, InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventInput, EventOrigin } from '#shared/events/event.ts';
import { changeAndEmit } from '#shared/events/versioned-change.ts';
import { withOptimisticRetries } from '#shared/platform/owned-resource.ts';
import { mergeMetadata } from '#shared/wire/metadata.ts';
import { pageOf, type Page, type PageRequest, type TimeRange } from '#shared/wire/paging.ts';
import { newId } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import { defaultServiceVersion } from '#shared/wire/api-version.ts';
import type { InvoiceSettlement, SubscriptionInvoicing } from './invoicing.ts';
import { describedProrations, type ProrationBehavior, type ProrationInvoicing, prorationEvents } from './prorations.ts';
import {
  applyStep,
  dueAt,
  type InvoicePlan,
  type LifecycleState,
  type LifecycleStep,
  nextStep,
  type PaymentResult,
  start,
  statusAfterPayment,
  trialEndOf,
} from './lifecycle.ts';
import type {
  CancelSubscriptionParams,
  CreateSubscriptionItemParams,
  CreateSubscriptionParams,
  DeleteSubscriptionItemParams,
  MigrateSubscriptionParams,
  UpdateSubscriptionItemParams,
  UpdateSubscriptionParams,
} from './schemas.ts';
import { serializeSubscription } from './serializer.ts';
import {
  checkAmountThreshold,
  checkItemThresholds,
  itemThresholdsParam,
  thresholdReached,
  thresholdStep,
  thresholdsApply,
  thresholdTime,
  thresholdsParam,
} from './thresholds.ts';
import type { Invoice, InvoiceItem } from '#shared/invoices/invoice.ts';
import type { CreatePreviewParams } from '#shared/invoices/preview-schemas.ts';
import { isMetered } from '#shared/invoices/usage.ts';
import { maxRetiredUsage, type Subscription, type SubscriptionItem, type SubscriptionItemsChange, type SubscriptionRepository } from './subscription.ts';

export interface SubscriptionServicePorts {
  subscriptions: SubscriptionRepository;
  prices: PriceRepository;
  customers: Pick<CustomerRepository, 'get'>;
  events: EventEmitter;
  /** Now for a customer's objects: its test clock's, or the stack's. */
  billingTime: BillingTime;
  invoicing: SubscriptionInvoicing;
  /** What prorating needs of invoices and the catalogue: invoicing pending items at once, pending prorations, product names. */
  prorationInvoicing: ProrationInvoicing;
  clock?: () => number;
}

/** The part of a subscription its life is decided by (lifecycle.ts). */
export const lifecycleOf = (subscription: Subscription): LifecycleState => ({
  ...subscription,
  items: subscription.items.map((item) => ({ id: item.id, recurring: item.price.recurring! })),
});

/** A subscription with the state a lifecycle step left, and the due time that follows from it. */
function afterStep(current: Subscription, state: LifecycleState, step: LifecycleStep): Subscription {
  const next: Subscription = {
    ...current,
    status: state.status,
    currentPeriodEnd: state.currentPeriodEnd,
    trialEnd: state.trialEnd,
    cancelAt: state.cancelAt,
    pauseCollection: state.pauseCollection,
    notices: state.notices,
  };
  if (step.kind === 'renew' || (step.kind === 'end_trial' && state.status === 'active')) next.currentPeriodStart = step.at;
  if (state.status === 'canceled' || state.status === 'incomplete_expired') {
    next.endedAt = step.at;
    next.canceledAt = current.canceledAt ?? step.at;
    if (state.status === 'canceled')
      next.cancellationDetails = { ...current.cancellationDetails, reason: current.cancellationDetails.reason ?? 'cancellation_requested' };
  }
  return withDue(next);
}

const withDue = (subscription: Subscription): Subscription => ({
  ...subscription,
  due: { at: dueAt(lifecycleOf(subscription)), testClock: subscription.testClock },
});

/** What becomes of a subscription once its renewal's payment retries are all spent (the reference's default setting). */
export const exhaustedRetriesEnd = 'cancel' as const;

/**
 * A subscription after a payment result of one of its invoices, at `at` (the invoice's processor writes it
 * in the same transaction as the invoice), or undefined when nothing changes: only its latest invoice
 * moves its status, as the reference documents, so an older invoice's last failed retry leaves a
 * subscription whose newer invoice was paid alone.
 */
export function subscriptionAfterPayment(current: Subscription, invoiceId: string, result: PaymentResult, at: number): Subscription | undefined {
  if (current.latestInvoice !== invoiceId) return undefined;
  const status = statusAfterPayment(current.status, result);
  if (status === current.status) return undefined;
  const next: Subscription = { ...current, status, version: current.version + 1 };
  if (status === 'canceled') {
    Object.assign(next, { endedAt: at, canceledAt: at, cancellationDetails: { ...current.cancellationDetails, reason: 'payment_failed' } });
  }
  return withDue(next);
}

/**
 * What a payment result of one of a subscription's invoices does to the subscription, for the invoice's
 * writer to put in the invoice's own transaction: the subscription's next version (written on the version
 * read) and its event, or undefined when nothing changes.
 */
export function subscriptionPayments(subscriptions: Pick<SubscriptionRepository, 'get'>) {
  return {
    async after(
      scope: Scope,
      invoice: { id: string; subscription: string },
      result: PaymentResult,
      at: number,
    ): Promise<{ subscription: Subscription; events: EventInput[] } | undefined> {
      const current = await subscriptions.get(scope, invoice.subscription);
      const next = current && subscriptionAfterPayment(current, invoice.id, result, at);
      if (!current || !next) return undefined;
      const type = next.endedAt !== null ? 'customer.subscription.deleted' : 'customer.subscription.updated';
      const path = `/v1/subscriptions/${next.id}`;
      const before = next.endedAt === null ? serializeSubscription(current) : undefined;
      return { subscription: next, events: [snapshotInput(type, serializeSubscription(next), path, before)] };
    },
  };
}

/** How a step's invoice is settled: renewals advance on their own unless collection is paused (or the subscription unpaid). */
const settlementOf = (plan: InvoicePlan): InvoiceSettlement => (plan.collection === 'finalize' ? 'advance' : plan.collection);

/** The origin of a request: where its events happen and the request that caused them. */
export interface SubscriptionRequest {
  origin: EventOrigin;
}

type PriceParams = Pick<NonNullable<CreateSubscriptionParams['items']>[number], 'price' | 'price_data'>;

/** The largest amount one line may come to (12 digits, as an invoice item's). */
const maxLineAmount = 999_999_999_999;

/** Whether an item's period amount (its price's, tiers applied, for its quantity) is one an invoice line can hold. */
function billable(item: SubscriptionItem): boolean {
  try {
    return priceAmount(termsOf(item.price), item.quantity) <= maxLineAmount;
  } catch (error) {
    if (error instanceof RangeError) return false;
    throw error;
  }
}

/**
 * What a subscription's items must keep after any change: at least one, at most 20, each price once, one
 * currency, one billing interval unless the billing mode is flexible, and a period amount an invoice line can
 * hold. `param` names the entry that broke it.
 */
function checkItems(items: readonly SubscriptionItem[], flexible: boolean, param: string): void {
  if (items.length === 0) throw invalid('A subscription must have at least one item; cancel the subscription to end it.', param);
  if (items.length > maxItems) throw invalid(`A subscription can have at most ${maxItems} items.`, param);
  const [first] = items;
  for (const [index, item] of items.entries()) {
    if (items.findIndex((other) => other.price.id === item.price.id) !== index)
      throw invalid(`The price ${item.price.id} appears in more than one item.`, param);
    if (item.price.currency !== first!.price.currency) throw invalid('Every item of a subscription must have the same currency.', param);
    if (!flexible && intervalOf(item.price) !== intervalOf(first!.price)) {
      throw invalid('Items with different billing intervals need the flexible billing mode (billing_mode[type]=flexible).', param);
    }
    if (!billable(item)) throw invalid(`The amount of the price ${item.price.id} for a quantity of ${item.quantity} must be at most ${maxLineAmount}.`, param);
  }
}

const maxItems = 20;

/** The pending prorations a cancellation removes in its own write (one transaction holds 100 writes). */
const maxRemovedProrations = 45;

/**
 * When a change is prorated: `proration_date` (Unix seconds) if given, which must fall inside the current
 * period (the reference previews and applies a change as if made then), else now on the subscription's clock.
 */
function prorationDateIn(subscription: Subscription, date: number | undefined, now: number, param = 'proration_date'): number {
  if (date === undefined) return Math.min(Math.max(now, subscription.currentPeriodStart), subscription.currentPeriodEnd);
  const at = date * 1000;
  if (at < subscription.currentPeriodStart || at > subscription.currentPeriodEnd)
    throw invalid('proration_date must be within the current period of the subscription (current_period_start to current_period_end).', param);
  return at;
}

/** A prorated change of an item's billing interval would restart the billing cycle, which is not built: refused (with `proration_behavior=none` it is made). */
function refuseIntervalChange(current: Subscription, items: readonly SubscriptionItem[]): void {
  for (const item of items) {
    const before = current.items.find((found) => found.id === item.id);
    if (before && intervalOf(before.price) !== intervalOf(item.price))
      throw invalid(
        "Changing an item's billing interval resets the billing cycle, which is not supported here with prorations: pass proration_behavior=none.",
        'proration_behavior',
      );
  }
}

/** One change of a subscription's items: a new item, a change of one, or its removal. `param` names it in errors. */
type ItemFields = { quantity?: number; metadata?: Record<string, string> | null; billing_thresholds?: { usage_gte: number } | null };
type ItemChange =
  | ({ kind: 'add'; param: string } & PriceParams & ItemFields)
  | ({ kind: 'change'; param: string; id: string } & Partial<PriceParams> & ItemFields)
  | { kind: 'delete'; param: string; id: string };

const invalid = (message: string, param: string, code = 'parameter_invalid') => new InvalidRequestError(message, code, param);

/** A subscription that will not invoice again has no upcoming invoice, as the reference answers. */
const upcomingNone = (subscription: Subscription) =>
  new InvalidRequestError(`No upcoming invoices for the subscription ${subscription.id}: it will not be invoiced again.`, 'invoice_upcoming_none');

/**
 * An item's quantity: a metered price's usage comes from its meter, so it takes none (the reference's error)
 * and keeps 0; a licensed one takes the given quantity, else `fallback`.
 */
function quantityOf(price: Price, given: number | undefined, fallback: number, param: string): number {
  if (price.recurring?.usageType !== 'metered') return given ?? fallback;
  if (given !== undefined)
    throw invalid(
      `Quantity should not be specified where usage_type is \`metered\`. Remove quantity from \`${param || 'quantity'}\``,
      param ? `${param}[quantity]` : 'quantity',
    );
  return 0;
}

/** A subscription another request canceled while a customer's were being canceled: nothing left to do. */
const alreadyCanceled = new Error('already canceled');

const intervalOf = (price: Price) => `${price.recurring!.intervalCount} ${price.recurring!.interval}`;

/**
 * The entries of `items` on a subscription update as item changes: with `id` a change or (with `deleted`) a
 * removal, without one an addition. `within` names the parameter holding `items` (a preview's `subscription_details`).
 */
function itemChanges(entries: NonNullable<UpdateSubscriptionParams['items']>, within = ''): ItemChange[] {
  const seen = new Set<string>();
  return entries.map((entry, index): ItemChange => {
    const param = within === '' ? `items[${index}]` : `${within}[items][${index}]`;
    if (entry.id !== undefined) {
      if (seen.has(entry.id)) throw invalid(`The item ${entry.id} appears more than once in items.`, `${param}[id]`);
      seen.add(entry.id);
    }
    if (entry.deleted) {
      if (entry.id === undefined) throw invalid('An item to delete needs its id.', `${param}[id]`, 'parameter_missing');
      const extra = (['price', 'price_data', 'quantity', 'metadata', 'billing_thresholds'] as const).find((field) => entry[field] !== undefined);
      if (extra) throw invalid(`An item being deleted takes no ${extra}.`, `${param}[${extra}]`);
      return { kind: 'delete', param, id: entry.id };
    }
    const { price, price_data, quantity, metadata, billing_thresholds } = entry;
    if (entry.id !== undefined) {
      if (price !== undefined && price_data !== undefined) throw invalid('Each item needs exactly one of price and price_data.', `${param}[price_data]`);
      return { kind: 'change', param, id: entry.id, price, price_data, quantity, metadata, billing_thresholds };
    }
    return { kind: 'add', param, price, price_data, quantity, metadata, billing_thresholds };
  });
}

/** v1 subscriptions: create, read, update, cancel, and the one-way migration to the flexible billing mode. */
export function subscriptionService({
  subscriptions,
  prices,
  customers,
  events,
  billingTime,
  invoicing,
  prorationInvoicing,
  clock = systemClock,
}: SubscriptionServicePorts) {
  const event = (type: string, subscription: Subscription, before?: Subscription): EventInput =>
    snapshotInput(type, serializeSubscription(subscription), `/v1/subscriptions/${subscription.id}`, before ? serializeSubscription(before) : undefined);

  async function existing(scope: Scope, id: string): Promise<Subscription> {
    const found = await subscriptions.get(scope, id);
    if (!found) throw new NotFoundError('subscription', id);
    return found;
  }

  async function live(scope: Scope, id: string, action: string): Promise<Subscription> {
    return stillLive(await existing(scope, id), action);
  }

  /** The subscription, unless it has ended (canceled or expired). */
  function stillLive(found: Subscription, action: string): Subscription {
    if (found.endedAt !== null) throw new InvalidRequestError(`A canceled subscription cannot be ${action}: ${found.id}.`, 'subscription_canceled');
    return found;
  }

  /**
   * The price of one item: an existing recurring price, or one made from `price_data` (stored, inactive, as
   * the reference does; with `store` false, a preview's, made in memory only, its product read to exist).
   */
  async function itemPrice(origin: EventOrigin, item: PriceParams, prefix: string, now: number, store = true): Promise<Price> {
    const named = (field: string) => (prefix === '' ? field : `${prefix}[${field}]`);
    if ((item.price === undefined) === (item.price_data === undefined))
      throw invalid(`Each item needs exactly one of price and price_data.`, named('price'), 'parameter_missing');
    if (item.price !== undefined) {
      const price = await prices.get(origin.scope, item.price);
      if (!price) throw invalid(`No such price: '${item.price}'`, named('price'), 'resource_missing');
      if (!price.recurring) throw invalid(`The price ${price.id} is a one-time price; a subscription item needs a recurring price.`, named('price'));
      if (!price.active) throw invalid(`The price ${price.id} is not active.`, named('price'));
      return price;
    }
    const data = item.price_data!;
    if ((data.unit_amount === undefined) === (data.unit_amount_decimal === undefined)) {
      throw invalid('price_data needs exactly one of unit_amount and unit_amount_decimal.', `${named('price_data')}[unit_amount]`, 'parameter_missing');
    }
    const decimal = data.unit_amount_decimal ?? String(data.unit_amount);
    const price: Price = {
      id: newId('price', now),
      scope: origin.scope,
      version: 1,
      created: now,
      product: data.product,
      active: false,
      currency: data.currency,
      unitAmount: wholeAmount(decimal),
      unitAmountDecimal: decimal,
      billingScheme: 'per_unit',
      tiersMode: null,
      tiers: null,
      transformQuantity: null,
      recurring: { interval: data.recurring.interval, intervalCount: data.recurring.interval_count ?? 1, usageType: 'licensed', meter: null },
      type: 'recurring',
      nickname: null,
      lookupKey: null,
      taxBehavior: data.tax_behavior ?? 'unspecified',
      metadata: {},
      currencyOptions: {},
    };
    const missing = () => invalid(`No such product: '${data.product}'`, `${named('price_data')}[product]`, 'resource_missing');
    if (!store) {
      if (!(await prorationInvoicing.productNames(origin.scope, [data.product])).has(data.product)) throw missing();
      return price;
    }
    // Counted on its product in the same write, which refuses a product that does not exist.
    if (!(await prices.create(price))) throw missing();
    return price;
  }

  async function buildItems(origin: EventOrigin, params: CreateSubscriptionParams, flexible: boolean, now: number): Promise<SubscriptionItem[]> {
    const given = params.items ?? [];
    if (given.length === 0) throw invalid('Missing required param: items.', 'items', 'parameter_missing');
    const items: SubscriptionItem[] = [];
    for (const [index, item] of given.entries()) {
      const price = await itemPrice(origin, item, `items[${index}]`, now);
      items.push({
        id: newId('si', now),
        created: now,
        price,
        quantity: quantityOf(price, item.quantity, 1, `items[${index}]`),
        metadata: item.metadata ? mergeMetadata({}, item.metadata) : {},
        ...(item.billing_thresholds ? { billingThresholds: itemThresholdsParam(item.billing_thresholds) } : {}),
      });
      checkItems(items, flexible, `items[${index}]`);
    }
    checkItemThresholds(items, (index) => `items[${index}][billing_thresholds]`);
    return items;
  }

  /**
   * Cancels a subscription at once (`customer.subscription.deleted`), as asked for or for a deleted customer.
   * `prorate` credits the unused time of every item as pending proration items written with the
   * cancellation; `invoice_now` then invoices the subscription's pending items in a final invoice. A request
   * with neither removes the subscription's pending prorations in the cancellation's write (`removePending`),
   * as the reference documents for a cancellation at once.
   */
  const cancelNow = async (
    { origin }: SubscriptionRequest,
    load: () => Promise<Subscription>,
    params: CancelSubscriptionParams = {},
    removePending = false,
  ) => {
    let now = 0;
    let credits: InvoiceItem[] = [];
    let removed: InvoiceItem[] = [];
    const names = new Map<string, string>();
    const canceled = await changeAndEmit(
      {
        repository: {
          replace: (next, outbox) => subscriptions.replaceItems(next, { added: [], removed: [], invoiceItems: credits, deletedInvoiceItems: removed }, outbox),
        },
        events,
      },
      origin,
      async () => {
        const current = await load();
        now = (await billingTime.forCustomer(origin.scope, current.customer)).now;
        // At most 45 (a delete and its event each, within one transaction's 100 writes); any beyond stay pending.
        removed =
          removePending && !params.prorate && !params.invoice_now
            ? (await prorationInvoicing.pendingProrations(origin.scope, current)).slice(0, maxRemovedProrations)
            : [];
        const at = Math.min(Math.max(now, current.currentPeriodStart), current.currentPeriodEnd);
        credits = params.prorate
          ? (await describedProrations(prorationInvoicing, { before: current, after: [], at, now, realNow: clock(), behavior: 'create_prorations' }, names))
              .invoiceItems
          : [];
        return current;
      },
      (current): Subscription =>
        withDue({
          ...current,
          status: 'canceled',
          canceledAt: now,
          endedAt: now,
          cancellationDetails: {
            comment: params.cancellation_details?.comment ?? null,
            feedback: params.cancellation_details?.feedback ?? null,
            reason: 'cancellation_requested',
          },
        }),
      (next) => [event('customer.subscription.deleted', next), ...prorationEvents(credits, removed)],
    );
    if (params.invoice_now) await prorationInvoicing.invoicePending(origin, canceled, 'subscription_cycle', now);
    return canceled;
  };

  /** Events of a step besides the subscription's own change: notices, pauses and resumptions. */
  async function stepEvents(step: LifecycleStep, next: Subscription, current: Subscription, now: number): Promise<EventInput[]> {
    switch (step.kind) {
      case 'notify_trial_end':
        return [event('customer.subscription.trial_will_end', next)];
      case 'notify_upcoming':
        return [await invoicing.upcoming(next, now)];
      case 'cancel':
      case 'expire':
        return [event('customer.subscription.deleted', next)];
      default:
        if (next.status === 'paused' && current.status !== 'paused') return [event('customer.subscription.paused', next, current)];
        return [event('customer.subscription.updated', next, current)];
    }
  }

  /**
   * Brings one subscription up to `at` (its due processor): each step due by then, earliest first, as if
   * now were the step's time, each written with its invoice (if it makes one) and its events in one
   * versioned write. A step another run took first is not taken again: the write's version fails and the
   * next read finds it done.
   */
  async function processDue(scope: Scope, id: string, at: number): Promise<void> {
    for (;;) {
      const current = await subscriptions.get(scope, id);
      if (!current) return;
      const step = nextStep(lifecycleOf(current));
      if (step === null || step.at > at) return;
      const hasPaymentMethod = step.kind !== 'end_trial' || (await customers.get(scope, current.customer))?.defaultSource != null;
      const result = applyStep(lifecycleOf(current), step, { hasPaymentMethod });
      const next = { ...afterStep(current, result.state, step), version: current.version + 1 };
      const origin: EventOrigin = { scope, platformId: current.platformId, request: null, apiVersion: defaultServiceVersion };
      const stepped = await stepEvents(step, next, current, step.at);
      if (result.invoice) {
        await invoicing.writeWithInvoice({
          origin,
          subscription: next,
          creating: false,
          plan: result.invoice,
          settlement: settlementOf(result.invoice),
          now: step.at,
          decide: (invoice) => ({ subscription: { ...next, latestInvoice: invoice.id }, events: stepped }),
        });
      } else {
        // An expiring subscription's first invoice is voided with it, as the reference does.
        const voidInvoice = step.kind === 'expire' ? current.latestInvoice : null;
        await invoicing.writeWithVoid({ origin, subscription: next, events: stepped, voidInvoice, now: step.at });
      }
    }
  }

  /** The items after `changes`, with the ids added and removed; new prices (`price_data`) were made once beforehand (`prices`). */
  function applyChanges(current: Subscription, changes: readonly ItemChange[], made: ReadonlyMap<ItemChange, Price>, now: number) {
    let items = [...current.items];
    const itemsChange: SubscriptionItemsChange = { added: [], removed: [] };
    const paramOf = new Map<string, string>();
    // What earlier changes retired and an invoice has billed since is dropped; a metered price leaving now joins.
    const billedTo = Math.max(current.currentPeriodStart, current.usageBilledUntil ?? 0);
    const retiredUsage = (current.retiredUsage ?? []).filter((retired) => retired.until > billedTo);
    const retire = (item: SubscriptionItem) => {
      if (!isMetered(item.price)) return;
      const since = Math.max(item.usageSince ?? item.created, billedTo);
      if (since >= now) return;
      if (retiredUsage.length >= maxRetiredUsage)
        throw invalid(
          `A subscription can change or remove its metered items at most ${maxRetiredUsage} times a period; their usage is billed at the next invoice.`,
          changes.at(-1)?.param || 'price',
        );
      retiredUsage.push({ item: item.id, price: item.price, since, until: now });
    };
    for (const change of changes) {
      if (change.kind === 'add') {
        const item: SubscriptionItem = {
          id: newId('si', now),
          created: now,
          price: made.get(change)!,
          quantity: quantityOf(made.get(change)!, change.quantity, 1, change.param),
          metadata: change.metadata ? mergeMetadata({}, change.metadata) : {},
          ...(change.billing_thresholds ? { billingThresholds: itemThresholdsParam(change.billing_thresholds) } : {}),
        };
        paramOf.set(item.id, change.param);
        items.push(item);
        itemsChange.added.push(item.id);
        continue;
      }
      const index = items.findIndex((found) => found.id === change.id);
      if (index < 0)
        throw invalid(
          `No such subscription item: '${change.id}' on the subscription ${current.id}.`,
          change.param === '' ? 'id' : `${change.param}[id]`,
          'resource_missing',
        );
      if (change.kind === 'delete') {
        retire(items[index]!);
        itemsChange.removed.push(change.id);
        items = items.filter((found) => found.id !== change.id);
        continue;
      }
      const item = items[index]!;
      const price = made.get(change) ?? item.price;
      if (price.id !== item.price.id) retire(item);
      items[index] = {
        ...item,
        ...(price.id === item.price.id ? {} : { usageSince: now }),
        price,
        quantity: quantityOf(made.get(change) ?? item.price, change.quantity, item.quantity || 1, change.param),
        metadata: change.metadata === undefined ? item.metadata : mergeMetadata(item.metadata, change.metadata),
        billingThresholds: change.billing_thresholds === undefined ? (item.billingThresholds ?? null) : itemThresholdsParam(change.billing_thresholds),
      };
      paramOf.set(item.id, change.param);
    }
    checkItems(items, current.billingMode.type === 'flexible', changes.at(-1)?.param || 'price');
    checkItemThresholds(items, (index) => {
      const param = paramOf.get(items[index]!.id);
      return param === undefined ? 'items' : param === '' ? 'billing_thresholds' : `${param}[billing_thresholds]`;
    });
    if (items.length > 0 && items[0]!.price.currency !== current.currency)
      throw invalid('Every item of a subscription must have the same currency.', changes[0]!.param || 'price');
    return { items, itemsChange, retiredUsage };
  }

  /**
   * Changes a subscription's items (and, with `fields`, its other fields) in one versioned write with the
   * pointers of the items added and removed, its prorations as pending invoice items (`proration_behavior`,
   * prorations.ts) and one `customer.subscription.updated` (with an `invoiceitem.created` per proration).
   * Prices are resolved (and `price_data` prices made) once, before the write's retries; the prorations are
   * counted on the version written, so a retried or racing request never prorates a change twice.
   * `always_invoice` then invoices the subscription's pending items at once. `read` is the subscription as
   * the caller read it (the first try writes on it; a conflict reads again).
   */
  async function changeItems(
    origin: EventOrigin,
    read: Subscription,
    changes: readonly ItemChange[],
    proration: { behavior?: ProrationBehavior; date?: number },
    fields: (current: Subscription) => Subscription = (current) => current,
  ): Promise<Subscription> {
    const { id } = read;
    const first = stillLive(read, 'updated');
    const behavior = proration.behavior ?? 'create_prorations';
    const { now } = await billingTime.forCustomer(origin.scope, first.customer);
    const made = new Map<ItemChange, Price>();
    for (const change of changes) {
      if (change.kind === 'delete' || (change.price === undefined && change.price_data === undefined)) continue;
      made.set(change, await itemPrice(origin, change as PriceParams, change.param, now));
    }
    let unwritten: Subscription | undefined = first;
    let prorated = 0;
    const names = new Map<string, string>();
    const updated = await withOptimisticRetries(async () => {
      const current = unwritten ?? (await live(origin.scope, id, 'updated'));
      unwritten = undefined;
      const at = prorationDateIn(current, proration.date, now);
      const { items, itemsChange, retiredUsage } = applyChanges(current, changes, made, now);
      if (behavior !== 'none') refuseIntervalChange(current, items);
      const prorations = await describedProrations(prorationInvoicing, { before: current, after: items, at, now, realNow: clock(), behavior }, names);
      const next: Subscription = withDue({ ...fields(current), items: prorations.items, retiredUsage, version: current.version + 1 });
      const outbox = events.prepare(origin, [event('customer.subscription.updated', next, current), ...prorationEvents(prorations.invoiceItems)]);
      if (!(await subscriptions.replaceItems(next, { ...itemsChange, invoiceItems: prorations.invoiceItems }, outbox))) return undefined;
      await events.dispatch(outbox);
      prorated = prorations.invoiceItems.length;
      return next;
    });
    if (behavior === 'always_invoice' && prorated > 0) await prorationInvoicing.invoicePending(origin, updated, 'subscription_update');
    return updated;
  }

  /** The subscription an item id belongs to, with the item (404 `No such subscription_item` otherwise). */
  async function itemOf(scope: Scope, itemId: string): Promise<{ subscription: Subscription; item: SubscriptionItem }> {
    const subscription = await subscriptions.findByItem(scope, itemId);
    const item = subscription?.items.find((found) => found.id === itemId);
    if (!subscription || !item) throw new NotFoundError('subscription_item', itemId);
    return { subscription, item };
  }

  const itemAfter = (subscription: Subscription, itemId: string): { subscription: Subscription; item: SubscriptionItem } => ({
    subscription,
    item: subscription.items.find((found) => found.id === itemId)!,
  });

  /**
   * Evaluates a subscription's billing thresholds at `now` on its clock (the threshold evaluator's step): reads
   * each metered item's running usage (one usage read each) and, when a threshold is reached, writes the
   * `subscription_threshold` invoice of the usage so far with the subscription's next version (the usage
   * billed up to the threshold's minute; with `reset_billing_cycle_anchor` a new period from it) in one
   * transaction on the version read. Two evaluators, or one and the period's renewal, racing: one write
   * fails its version, so the same usage is never invoiced twice. `lost` when that happened here.
   */
  async function evaluateThresholds(subscription: Subscription, now: number): Promise<'skipped' | 'below' | 'invoiced' | 'lost'> {
    const at = thresholdTime(now);
    if (!thresholdsApply(subscription, at)) return 'skipped';
    const reached = thresholdReached(subscription, await invoicing.runningUsage(subscription, at));
    if (reached === null) return 'below';
    const { plan, next } = thresholdStep(subscription, at);
    const stepped = withDue({ ...next, version: subscription.version + 1 });
    const origin: EventOrigin = { scope: subscription.scope, platformId: subscription.platformId, request: null, apiVersion: defaultServiceVersion };
    const written = await invoicing.writeWithInvoice({
      origin,
      // The invoice's lines are counted on the subscription as read (from where the last invoice stopped, on the old anchor).
      subscription: { ...subscription, version: stepped.version },
      creating: false,
      plan,
      // As a renewal's: a draft finalized (its usage recounted, so late usage within the hour counts) and charged about an hour later.
      settlement: settlementOf(plan),
      now: at,
      decide: (invoice) => {
        const made = { ...stepped, latestInvoice: invoice.id };
        return { subscription: made, events: [event('customer.subscription.updated', made, subscription)] };
      },
    });
    return written ? 'invoiced' : 'lost';
  }

  /** A new subscription's first invoice (`create_preview` with `customer` and `subscription_details.items`), as `create` would make it; nothing is stored. */
  async function previewNew(scope: Scope, params: CreatePreviewParams): Promise<Invoice> {
    const details = params.subscription_details;
    if (params.customer === undefined) throw invalid('Missing required param: customer.', 'customer', 'parameter_missing');
    if (!details?.items?.length) throw invalid('Missing required param: subscription_details[items].', 'subscription_details[items]', 'parameter_missing');
    for (const param of ['proration_date', 'cancel_at'] as const) {
      if (details[param] !== undefined) throw invalid(`subscription_details[${param}] applies only with subscription.`, `subscription_details[${param}]`);
    }
    if (details.billing_cycle_anchor === 'unchanged')
      throw invalid('billing_cycle_anchor=unchanged applies only with subscription.', 'subscription_details[billing_cycle_anchor]');
    const customer = await customers.get(scope, params.customer);
    if (!customer) throw invalid(`No such customer: '${params.customer}'`, 'customer', 'resource_missing');
    const { now, testClock } = await billingTime.forCustomer(scope, customer.id);
    const trial = trialEndOf({ trial_end: details.trial_end === undefined || details.trial_end === 'now' ? details.trial_end : details.trial_end * 1000 }, now);
    if ('error' in trial) throw invalid(trial.error, `subscription_details[${trial.param}]`);
    const origin: EventOrigin = { scope, platformId: scope.accountId, request: null, apiVersion: defaultServiceVersion };
    const items: SubscriptionItem[] = [];
    for (const [index, entry] of details.items.entries()) {
      const param = `subscription_details[items][${index}]`;
      const extra = (['id', 'deleted'] as const).find((field) => entry[field] !== undefined);
      if (extra) throw invalid(`The items of a new subscription take no ${extra}.`, `${param}[${extra}]`);
      const price = await itemPrice(origin, entry, param, now, false);
      items.push({
        id: newId('si', now),
        created: now,
        price,
        quantity: quantityOf(price, entry.quantity, 1, param),
        metadata: entry.metadata ? mergeMetadata({}, entry.metadata) : {},
      });
      checkItems(items, false, param);
    }
    const cancelAtPeriodEnd = details.cancel_at_period_end ?? false;
    const begun = start(
      {
        created: now,
        trialEndBehavior: 'create_invoice',
        cancelAt: null,
        cancelAtPeriodEnd,
        pauseCollection: null,
        items: items.map((item) => ({ id: item.id, recurring: item.price.recurring! })),
      },
      now,
      trial.trialEnd,
    );
    // Only what the first invoice's lines read of a subscription: it is never stored.
    const unsaved = {
      id: '',
      scope,
      customer: customer.id,
      currency: items[0]!.price.currency,
      items,
      billingCycleAnchor: begun.state.billingCycleAnchor,
      trialEnd: trial.trialEnd,
      testClock,
    } as Subscription;
    return invoicing.previewChange(unsaved, now, { prorations: [], prorationDate: null, period: { kind: 'first', plan: begun.invoice } });
  }

  return {
    processDue,
    evaluateThresholds,

    /** Adds an item (`POST /v1/subscription_items`). */
    async createItem({ origin }: SubscriptionRequest, params: CreateSubscriptionItemParams): Promise<{ subscription: Subscription; item: SubscriptionItem }> {
      const subscription = await subscriptions.get(origin.scope, params.subscription);
      if (!subscription) throw invalid(`No such subscription: '${params.subscription}'`, 'subscription', 'resource_missing');
      const change: ItemChange = {
        kind: 'add',
        param: '',
        price: params.price,
        price_data: params.price_data,
        quantity: params.quantity,
        metadata: params.metadata,
        billing_thresholds: params.billing_thresholds,
      };
      const next = await changeItems(origin, subscription, [change], { behavior: params.proration_behavior, date: params.proration_date });
      return { subscription: next, item: next.items.at(-1)! };
    },

    retrieveItem: itemOf,

    /** Changes an item's price, quantity or metadata (`POST /v1/subscription_items/:id`); the item keeps its id. */
    async updateItem({ origin }: SubscriptionRequest, itemId: string, params: UpdateSubscriptionItemParams) {
      const { subscription } = await itemOf(origin.scope, itemId);
      const change: ItemChange = {
        kind: 'change',
        param: '',
        id: itemId,
        price: params.price,
        price_data: params.price_data,
        quantity: params.quantity,
        metadata: params.metadata,
        billing_thresholds: params.billing_thresholds,
      };
      if (params.price !== undefined && params.price_data !== undefined) throw invalid('Each item needs exactly one of price and price_data.', 'price_data');
      return itemAfter(await changeItems(origin, subscription, [change], { behavior: params.proration_behavior, date: params.proration_date }), itemId);
    },

    /** Removes an item (`DELETE /v1/subscription_items/:id`); the last item cannot be removed (cancel the subscription instead). */
    async deleteItem({ origin }: SubscriptionRequest, itemId: string, params: DeleteSubscriptionItemParams): Promise<Subscription> {
      const { subscription } = await itemOf(origin.scope, itemId);
      return changeItems(origin, subscription, [{ kind: 'delete', param: '', id: itemId }], {
        behavior: params.proration_behavior,
        date: params.proration_date,
      });
    },

    /** A subscription's items, newest first, paged in memory (a subscription has at most 20). */
    async listItems(scope: Scope, subscriptionId: string, page: PageRequest): Promise<{ subscription: Subscription; page: Page<SubscriptionItem> }> {
      const subscription = await subscriptions.get(scope, subscriptionId);
      if (!subscription) throw invalid(`No such subscription: '${subscriptionId}'`, 'subscription', 'resource_missing');
      return {
        subscription,
        page: pageOf(
          [...subscription.items].sort((a, b) => (a.id < b.id ? 1 : -1)),
          page,
        ),
      };
    },

    async create({ origin }: SubscriptionRequest, params: CreateSubscriptionParams): Promise<Subscription> {
      if (params.customer === undefined) throw invalid('Missing required param: customer.', 'customer', 'parameter_missing');
      const customer = await customers.get(origin.scope, params.customer);
      if (!customer) throw invalid(`No such customer: '${params.customer}'`, 'customer', 'resource_missing');
      const mode = params.billing_mode?.type ?? 'classic';
      if (params.billing_mode?.flexible && mode !== 'flexible')
        throw invalid('billing_mode[flexible] applies only with billing_mode[type]=flexible.', 'billing_mode[flexible]');
      const collectionMethod = params.collection_method ?? 'charge_automatically';
      if (collectionMethod === 'send_invoice' && params.days_until_due === undefined)
        throw invalid('days_until_due is required when collection_method is send_invoice.', 'days_until_due', 'parameter_missing');
      if (collectionMethod === 'charge_automatically' && params.days_until_due !== undefined)
        throw invalid('days_until_due applies only when collection_method is send_invoice.', 'days_until_due');
      if (params.payment_behavior === 'pending_if_incomplete')
        throw invalid('payment_behavior=pending_if_incomplete applies only to updates of a subscription.', 'payment_behavior');
      // A customer deleted since it was read answers as if never found.
      const { now, testClock } = await billingTime.forCustomer(origin.scope, params.customer).catch((error: unknown) => {
        throw error instanceof NotFoundError ? invalid(`No such customer: '${params.customer}'`, 'customer', 'resource_missing') : error;
      });
      const trial = trialEndOf(
        {
          trial_end: params.trial_end === undefined || params.trial_end === 'now' ? params.trial_end : params.trial_end * 1000,
          trial_period_days: params.trial_period_days,
        },
        now,
      );
      if ('error' in trial) throw invalid(trial.error, trial.param);
      const cancelAt = params.cancel_at === undefined ? null : params.cancel_at * 1000;
      if (cancelAt !== null && cancelAt <= now) throw invalid('cancel_at must be in the future.', 'cancel_at');
      const items = await buildItems(origin, params, mode === 'flexible', now);
      const billingThresholds = thresholdsParam(params.billing_thresholds) ?? null;
      checkAmountThreshold(billingThresholds, items[0]!.price.currency);
      const begun = start(
        {
          created: now,
          trialEndBehavior: params.trial_settings?.end_behavior.missing_payment_method ?? 'create_invoice',
          cancelAt,
          cancelAtPeriodEnd: params.cancel_at_period_end ?? false,
          pauseCollection: null,
          items: items.map((item) => ({ id: item.id, recurring: item.price.recurring! })),
        },
        now,
        trial.trialEnd,
      );
      const subscription: Subscription = {
        id: newId('sub', clock()),
        scope: origin.scope,
        platformId: origin.platformId,
        version: 1,
        created: now,
        customer: params.customer,
        status: begun.state.status,
        currency: items[0]!.price.currency,
        items,
        billingMode: {
          type: mode,
          prorationDiscounts: mode === 'flexible' ? (params.billing_mode?.flexible?.proration_discounts ?? 'included') : null,
          updatedAt: mode === 'flexible' ? now : null,
        },
        billingCycleAnchor: begun.state.billingCycleAnchor,
        currentPeriodStart: now,
        currentPeriodEnd: begun.state.currentPeriodEnd,
        trialStart: trial.trialEnd === null ? null : now,
        trialEnd: trial.trialEnd,
        trialEndBehavior: begun.state.trialEndBehavior,
        cancelAt,
        cancelAtPeriodEnd: begun.state.cancelAtPeriodEnd,
        canceledAt: null,
        endedAt: null,
        cancellationDetails: { comment: null, feedback: null, reason: null },
        pauseCollection: null,
        collectionMethod,
        daysUntilDue: params.days_until_due ?? null,
        description: params.description ?? null,
        metadata: params.metadata ? mergeMetadata({}, params.metadata) : {},
        testClock,
        latestInvoice: null,
        notices: begun.state.notices,
        due: { at: null, testClock },
        billingThresholds,
        usageBilledUntil: null,
      };
      // A trial's zero invoice is paid at once; a sent invoice and `default_incomplete` are finalized uncharged.
      const charges = trial.trialEnd === null && collectionMethod === 'charge_automatically' && params.payment_behavior !== 'default_incomplete';
      const written = await invoicing.writeWithInvoice({
        origin,
        subscription,
        customer,
        creating: true,
        plan: begun.invoice,
        settlement: charges || trial.trialEnd !== null ? 'charge' : 'finalize',
        now,
        decide: (invoice) => {
          if (invoice.failure && params.payment_behavior === 'error_if_incomplete') {
            return new CardError(invoice.failure.message, invoice.failure.code, undefined, invoice.failure.declineCode ?? undefined);
          }
          const status = trial.trialEnd !== null ? 'trialing' : invoice.status === 'paid' || collectionMethod === 'send_invoice' ? 'active' : 'incomplete';
          const made = withDue({ ...subscription, status, latestInvoice: invoice.id });
          return { subscription: made, events: [event('customer.subscription.created', made)] };
        },
      });
      // The write claims the customer too: deleted since it was read, it answers as if never found.
      if (!written) throw invalid(`No such customer: '${params.customer}'`, 'customer', 'resource_missing');
      return written.subscription;
    },

    retrieve: existing,

    /**
     * `POST /v1/invoices/create_preview` with a subscription (preview.md): its next invoice as it stands
     * (`subscription` alone), as a change in `subscription_details` would make it (`subscription` with details:
     * that change's prorations at `proration_date`, computed as `update` computes them, with the changed
     * subscription's next period, or alone with `always_invoice`), or a new subscription's first invoice
     * (`customer` with `subscription_details.items`), at the customer's billing time. Nothing is written:
     * `price_data` prices are made in memory only.
     */
    async previewInvoice(scope: Scope, params: CreatePreviewParams): Promise<Invoice> {
      if (params.subscription === undefined) return previewNew(scope, params);
      const subscription = await subscriptions.get(scope, params.subscription);
      if (!subscription || (params.customer !== undefined && params.customer !== subscription.customer))
        throw invalid(`No such subscription: '${params.subscription}'`, 'subscription', 'resource_missing');
      if (subscription.endedAt !== null) throw upcomingNone(subscription);
      const details = params.subscription_details ?? {};
      const behavior = details.proration_behavior ?? 'create_prorations';
      if (details.proration_date !== undefined && behavior === 'none')
        throw invalid('proration_date cannot be used with proration_behavior=none.', 'subscription_details[proration_date]');
      if (details.billing_cycle_anchor === 'now')
        throw invalid('Resetting the billing cycle (billing_cycle_anchor=now) is not supported here.', 'subscription_details[billing_cycle_anchor]');
      if (details.trial_end !== undefined)
        throw invalid('subscription_details[trial_end] applies here only to the preview of a new subscription.', 'subscription_details[trial_end]');
      const { now } = await billingTime.forCustomer(scope, subscription.customer);
      const changes = details.items === undefined ? [] : itemChanges(details.items, 'subscription_details');
      const origin: EventOrigin = { scope, platformId: subscription.platformId, request: null, apiVersion: defaultServiceVersion };
      const made = new Map<ItemChange, Price>();
      for (const change of changes) {
        if (change.kind === 'delete' || (change.price === undefined && change.price_data === undefined)) continue;
        made.set(change, await itemPrice(origin, change as PriceParams, change.param, now, false));
      }
      const at = prorationDateIn(subscription, details.proration_date, now, 'subscription_details[proration_date]');
      const { items, retiredUsage } =
        changes.length === 0 ? { items: subscription.items, retiredUsage: subscription.retiredUsage } : applyChanges(subscription, changes, made, now);
      if (behavior !== 'none') refuseIntervalChange(subscription, items);
      const { invoiceItems, items: after } =
        changes.length === 0
          ? { invoiceItems: [], items }
          : await describedProrations(prorationInvoicing, { before: subscription, after: items, at, now, realNow: clock(), behavior }, new Map());
      let cancelAt = subscription.cancelAt;
      if (details.cancel_at !== undefined) {
        cancelAt = details.cancel_at === null ? null : details.cancel_at * 1000;
        if (cancelAt !== null && cancelAt <= now) throw invalid('cancel_at must be in the future.', 'subscription_details[cancel_at]');
      }
      const next: Subscription = {
        ...subscription,
        items: after,
        retiredUsage,
        cancelAt,
        cancelAtPeriodEnd: details.cancel_at_period_end ?? subscription.cancelAtPeriodEnd,
      };
      // `always_invoice` invoices the prorations at once (update's invoicePending): that invoice is the one previewed.
      const atOnce = behavior === 'always_invoice' && invoiceItems.length > 0;
      const ending = next.cancelAtPeriodEnd || (next.cancelAt !== null && next.cancelAt <= next.currentPeriodEnd) || next.status === 'paused';
      if (ending && !atOnce && invoiceItems.length === 0) throw upcomingNone(next);
      return invoicing.previewChange(next, now, {
        prorations: invoiceItems,
        prorationDate: changes.length > 0 && behavior !== 'none' ? at : null,
        period: { kind: atOnce || ending ? 'none' : 'next' },
      });
    },

    /** Newest first; by default every subscription that is not canceled (`status=all` for every one). */
    list(scope: Scope, page: PageRequest, filters: { customer?: string; status?: string; created?: TimeRange }): Promise<Page<Subscription>> {
      const where: Record<string, unknown> = {};
      if (filters.customer) where.customer = filters.customer;
      // By default every subscription that has not ended (canceled or expired), whatever its status.
      if (filters.status === undefined) where.endedAt = null;
      else if (filters.status === 'ended') where.status = 'canceled';
      else if (filters.status !== 'all') where.status = filters.status;
      return subscriptions.list(scope, page, where, filters.created);
    },

    /** Fields, and with `items` the items (added, changed, removed), in one write and one event. */
    async update({ origin }: SubscriptionRequest, id: string, params: UpdateSubscriptionParams): Promise<Subscription> {
      let now = 0;
      const fields = (current: Subscription): Subscription => {
        const next: Subscription = {
          ...current,
          cancelAtPeriodEnd: params.cancel_at_period_end ?? current.cancelAtPeriodEnd,
          description: params.description === undefined ? current.description : params.description,
          metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
          trialEndBehavior: params.trial_settings?.end_behavior.missing_payment_method ?? current.trialEndBehavior,
        };
        const thresholds = thresholdsParam(params.billing_thresholds);
        if (thresholds !== undefined) {
          checkAmountThreshold(thresholds, current.currency);
          next.billingThresholds = thresholds;
        }
        if (params.cancel_at !== undefined) {
          const cancelAt = params.cancel_at === null ? null : params.cancel_at * 1000;
          if (cancelAt !== null && cancelAt <= now) throw invalid('cancel_at must be in the future.', 'cancel_at');
          next.cancelAt = cancelAt;
        }
        if (params.pause_collection !== undefined) {
          const pause = params.pause_collection;
          const resumesAt = pause?.resumes_at === undefined ? null : pause.resumes_at * 1000;
          if (resumesAt !== null && resumesAt <= now) throw invalid('pause_collection[resumes_at] must be in the future.', 'pause_collection[resumes_at]');
          next.pauseCollection = pause === null ? null : { behavior: pause.behavior, resumesAt };
        }
        if (params.trial_end !== undefined) {
          if (current.status !== 'trialing') {
            throw invalid('trial_end can only change while the subscription is trialing; a new trial on a running subscription is not supported.', 'trial_end');
          }
          // `now` ends the trial at once: its end step falls due now and runs below, after the write.
          const trialEnd = params.trial_end === 'now' ? now : params.trial_end * 1000;
          if (trialEnd < now) throw invalid('Invalid timestamp: must be an integer Unix timestamp in the future.', 'trial_end');
          Object.assign(next, { trialEnd, billingCycleAnchor: trialEnd, currentPeriodEnd: trialEnd });
        }
        return withDue(next);
      };
      let updated: Subscription;
      if (params.items !== undefined) {
        const changes = itemChanges(params.items);
        const read = await existing(origin.scope, id);
        now = (await billingTime.forCustomer(origin.scope, read.customer)).now;
        updated = await changeItems(origin, read, changes, { behavior: params.proration_behavior, date: params.proration_date }, fields);
      } else {
        updated = await changeAndEmit(
          { repository: subscriptions, events },
          origin,
          async () => {
            const current = await live(origin.scope, id, 'updated');
            now = (await billingTime.forCustomer(origin.scope, current.customer)).now;
            return current;
          },
          fields,
          (next, current) => [event('customer.subscription.updated', next, current)],
        );
      }
      if (updated.due.at === null || updated.due.at > now) return updated;
      // A step due at once (a trial ended `now`) runs in the request, as the reference answers with it done.
      await processDue(origin.scope, id, now);
      return existing(origin.scope, id);
    },

    cancel({ origin }: SubscriptionRequest, id: string, params: CancelSubscriptionParams): Promise<Subscription> {
      return cancelNow({ origin }, () => live(origin.scope, id, 'canceled again'), params, true);
    },

    /**
     * Cancels every subscription of a customer being deleted that is not canceled yet, at once, each with
     * its `customer.subscription.deleted`, as the reference does when a customer is deleted.
     */
    async cancelAllOf(origin: EventOrigin, customerId: string): Promise<void> {
      const request = { origin };
      for (;;) {
        // Each pass cancels what it found, so the next first page holds only what is left.
        const page = await subscriptions.list(origin.scope, { limit: 100 }, { customer: customerId, endedAt: null });
        await Promise.all(
          page.items.map((found) => {
            // The listed copy is tried first; a write in between fails its version and the retry reads again.
            let listed: Subscription | undefined = found;
            const load = async () => {
              const current = listed ?? (await existing(origin.scope, found.id));
              listed = undefined;
              if (current.endedAt !== null) throw alreadyCanceled;
              return current;
            };
            return cancelNow(request, load).catch((error: unknown) => {
              if (error !== alreadyCanceled) throw error;
            });
          }),
        );
        if (!page.hasMore) return;
      }
    },

    /** One way: classic → flexible. A flexible subscription cannot be migrated again. */
    migrate({ origin }: SubscriptionRequest, id: string, params: MigrateSubscriptionParams): Promise<Subscription> {
      return changeAndEmit(
        { repository: subscriptions, events },
        origin,
        () => live(origin.scope, id, 'migrated'),
        (current) => {
          if (current.billingMode.type === 'flexible') {
            throw new InvalidRequestError(
              `The subscription ${id} already uses the flexible billing mode; migration is one way and cannot be repeated.`,
              'subscription_billing_mode_already_flexible',
              'billing_mode[type]',
            );
          }
          return {
            ...current,
            billingMode: { type: 'flexible', prorationDiscounts: params.billing_mode.flexible?.proration_discounts ?? 'included', updatedAt: clock() },
          };
        },
        (next, current) => [event('customer.subscription.updated', next, current)],
      );
    },
  };
}
