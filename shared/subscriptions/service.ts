import { systemClock } from '#shared/core/clock.ts';
import type { Price, PriceRepository } from '#shared/catalogue/catalogue.ts';
import { wholeAmount } from '#shared/catalogue/service.ts';
import type { CustomerRepository } from '#shared/customers/customer.ts';
import type { BillingTime } from '#shared/billing/ports.ts';
import { CardError, InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventInput, EventOrigin } from '#shared/events/event.ts';
import { changeAndEmit } from '#shared/events/versioned-change.ts';
import { mergeMetadata } from '#shared/wire/metadata.ts';
import type { Page, PageRequest, TimeRange } from '#shared/wire/paging.ts';
import { newId } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import { defaultServiceVersion } from '#shared/wire/api-version.ts';
import type { InvoiceSettlement, SubscriptionInvoicing } from './invoicing.ts';
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
import type { CancelSubscriptionParams, CreateSubscriptionParams, MigrateSubscriptionParams, UpdateSubscriptionParams } from './schemas.ts';
import { serializeSubscription } from './serializer.ts';
import type { Subscription, SubscriptionItem, SubscriptionRepository } from './subscription.ts';

export interface SubscriptionServicePorts {
  subscriptions: SubscriptionRepository;
  prices: PriceRepository;
  customers: Pick<CustomerRepository, 'get'>;
  events: EventEmitter;
  /** Now for a customer's objects: its test clock's, or the stack's. */
  billingTime: BillingTime;
  invoicing: SubscriptionInvoicing;
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

/** How a step's invoice is settled: renewals advance on their own unless collection is paused (or the subscription unpaid). */
const settlementOf = (plan: InvoicePlan): InvoiceSettlement => (plan.collection === 'finalize' ? 'advance' : plan.collection);

/** The origin of a request: where its events happen and the request that caused them. */
export interface SubscriptionRequest {
  origin: EventOrigin;
}

type ItemParams = NonNullable<CreateSubscriptionParams['items']>[number];

const invalid = (message: string, param: string, code = 'parameter_invalid') => new InvalidRequestError(message, code, param);

/** A subscription another request canceled while a customer's were being canceled: nothing left to do. */
const alreadyCanceled = new Error('already canceled');

const intervalOf = (price: Price) => `${price.recurring!.intervalCount} ${price.recurring!.interval}`;

/** v1 subscriptions: create, read, update, cancel, and the one-way migration to the flexible billing mode. */
export function subscriptionService({ subscriptions, prices, customers, events, billingTime, invoicing, clock = systemClock }: SubscriptionServicePorts) {
  const event = (type: string, subscription: Subscription, before?: Subscription): EventInput =>
    snapshotInput(type, serializeSubscription(subscription), `/v1/subscriptions/${subscription.id}`, before ? serializeSubscription(before) : undefined);

  async function existing(scope: Scope, id: string): Promise<Subscription> {
    const found = await subscriptions.get(scope, id);
    if (!found) throw new NotFoundError('subscription', id);
    return found;
  }

  async function live(scope: Scope, id: string, action: string): Promise<Subscription> {
    const found = await existing(scope, id);
    if (found.endedAt !== null) throw new InvalidRequestError(`A canceled subscription cannot be ${action}: ${id}.`, 'subscription_canceled');
    return found;
  }

  /** The price of one item: an existing recurring price, or one made from `price_data` (stored, inactive, as the reference does). */
  async function itemPrice(origin: EventOrigin, item: ItemParams, index: number, now: number): Promise<Price> {
    const param = `items[${index}]`;
    if ((item.price === undefined) === (item.price_data === undefined))
      throw invalid(`Each item needs exactly one of price and price_data.`, `${param}[price]`, 'parameter_missing');
    if (item.price !== undefined) {
      const price = await prices.get(origin.scope, item.price);
      if (!price) throw invalid(`No such price: '${item.price}'`, `${param}[price]`, 'resource_missing');
      if (!price.recurring) throw invalid(`The price ${price.id} is a one-time price; a subscription item needs a recurring price.`, `${param}[price]`);
      if (!price.active) throw invalid(`The price ${price.id} is not active.`, `${param}[price]`);
      return price;
    }
    const data = item.price_data!;
    if ((data.unit_amount === undefined) === (data.unit_amount_decimal === undefined)) {
      throw invalid('price_data needs exactly one of unit_amount and unit_amount_decimal.', `${param}[price_data][unit_amount]`, 'parameter_missing');
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
      recurring: { interval: data.recurring.interval, intervalCount: data.recurring.interval_count ?? 1 },
      type: 'recurring',
      nickname: null,
      lookupKey: null,
      taxBehavior: data.tax_behavior ?? 'unspecified',
      metadata: {},
      currencyOptions: {},
    };
    // Counted on its product in the same write, which refuses a product that does not exist.
    if (!(await prices.create(price))) throw invalid(`No such product: '${data.product}'`, `${param}[price_data][product]`, 'resource_missing');
    return price;
  }

  async function buildItems(origin: EventOrigin, params: CreateSubscriptionParams, flexible: boolean, now: number): Promise<SubscriptionItem[]> {
    const given = params.items ?? [];
    if (given.length === 0) throw invalid('Missing required param: items.', 'items', 'parameter_missing');
    const items: SubscriptionItem[] = [];
    for (const [index, item] of given.entries()) {
      const price = await itemPrice(origin, item, index, now);
      if (items.some((other) => other.price.id === price.id)) throw invalid(`The price ${price.id} appears in more than one item.`, `items[${index}][price]`);
      if (items[0] && items[0].price.currency !== price.currency) throw invalid('Every item of a subscription must have the same currency.', `items[${index}]`);
      if (items[0] && !flexible && intervalOf(items[0].price) !== intervalOf(price)) {
        throw invalid('Items with different billing intervals need the flexible billing mode (billing_mode[type]=flexible).', `items[${index}]`);
      }
      items.push({ id: newId('si', now), created: now, price, quantity: item.quantity ?? 1, metadata: item.metadata ? mergeMetadata({}, item.metadata) : {} });
    }
    return items;
  }

  /** Cancels a subscription at once (`customer.subscription.deleted`), as asked for or for a deleted customer. */
  const cancelNow = ({ origin }: SubscriptionRequest, load: () => Promise<Subscription>, params: CancelSubscriptionParams = {}) => {
    let now = 0;
    return changeAndEmit(
      { repository: subscriptions, events },
      origin,
      async () => {
        const current = await load();
        now = (await billingTime.forCustomer(origin.scope, current.customer)).now;
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
      (next) => [event('customer.subscription.deleted', next)],
    );
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
        const outbox = events.prepare(origin, stepped);
        if (await subscriptions.replace(next, outbox)) await events.dispatch(outbox);
      }
    }
  }

  return {
    processDue,

    async create({ origin }: SubscriptionRequest, params: CreateSubscriptionParams): Promise<Subscription> {
      if (params.customer === undefined) throw invalid('Missing required param: customer.', 'customer', 'parameter_missing');
      if (!(await customers.get(origin.scope, params.customer))) throw invalid(`No such customer: '${params.customer}'`, 'customer', 'resource_missing');
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
      const { now, testClock } = await billingTime.forCustomer(origin.scope, params.customer);
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
      };
      // A trial's zero invoice is paid at once; a sent invoice and `default_incomplete` are finalized uncharged.
      const charges = trial.trialEnd === null && collectionMethod === 'charge_automatically' && params.payment_behavior !== 'default_incomplete';
      const written = await invoicing.writeWithInvoice({
        origin,
        subscription,
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

    async update({ origin }: SubscriptionRequest, id: string, params: UpdateSubscriptionParams): Promise<Subscription> {
      let now = 0;
      const updated = await changeAndEmit(
        { repository: subscriptions, events },
        origin,
        async () => {
          const current = await live(origin.scope, id, 'updated');
          now = (await billingTime.forCustomer(origin.scope, current.customer)).now;
          return current;
        },
        (current) => {
          const next: Subscription = {
            ...current,
            cancelAtPeriodEnd: params.cancel_at_period_end ?? current.cancelAtPeriodEnd,
            description: params.description === undefined ? current.description : params.description,
            metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
            trialEndBehavior: params.trial_settings?.end_behavior.missing_payment_method ?? current.trialEndBehavior,
          };
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
              throw invalid(
                'trial_end can only change while the subscription is trialing; a new trial on a running subscription is not supported.',
                'trial_end',
              );
            }
            // `now` ends the trial at once: its end step falls due now and runs below, after the write.
            const trialEnd = params.trial_end === 'now' ? now : params.trial_end * 1000;
            if (trialEnd < now) throw invalid('Invalid timestamp: must be an integer Unix timestamp in the future.', 'trial_end');
            Object.assign(next, { trialEnd, billingCycleAnchor: trialEnd, currentPeriodEnd: trialEnd });
          }
          return withDue(next);
        },
        (next, current) => [event('customer.subscription.updated', next, current)],
      );
      if (updated.due.at === null || updated.due.at > now) return updated;
      // A step due at once (a trial ended `now`) runs in the request, as the reference answers with it done.
      await processDue(origin.scope, id, now);
      return existing(origin.scope, id);
    },

    cancel({ origin }: SubscriptionRequest, id: string, params: CancelSubscriptionParams): Promise<Subscription> {
      return cancelNow({ origin }, () => live(origin.scope, id, 'canceled again'), params);
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
