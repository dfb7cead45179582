import { systemClock } from '#shared/core/clock.ts';
import type { Price, PriceRepository } from '#shared/catalogue/catalogue.ts';
import { wholeAmount } from '#shared/catalogue/service.ts';
import type { CustomerRepository } from '#shared/customers/customer.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventInput, EventOrigin } from '#shared/events/event.ts';
import { changeAndEmit } from '#shared/events/versioned-change.ts';
import { mergeMetadata } from '#shared/wire/metadata.ts';
import type { Page, PageRequest, TimeRange } from '#shared/wire/paging.ts';
import { newId } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { CancelSubscriptionParams, CreateSubscriptionParams, MigrateSubscriptionParams, UpdateSubscriptionParams } from './schemas.ts';
import { serializeSubscription } from './serializer.ts';
import type { Subscription, SubscriptionItem, SubscriptionRepository } from './subscription.ts';

export interface SubscriptionServicePorts {
  subscriptions: SubscriptionRepository;
  prices: PriceRepository;
  customers: Pick<CustomerRepository, 'get'>;
  events: EventEmitter;
  clock?: () => number;
}

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
export function subscriptionService({ subscriptions, prices, customers, events, clock = systemClock }: SubscriptionServicePorts) {
  const event = (type: string, subscription: Subscription, before?: Subscription): EventInput =>
    snapshotInput(
      type,
      serializeSubscription(subscription, clock()),
      `/v1/subscriptions/${subscription.id}`,
      before ? serializeSubscription(before, clock()) : undefined,
    );

  async function existing(scope: Scope, id: string): Promise<Subscription> {
    const found = await subscriptions.get(scope, id);
    if (!found) throw new NotFoundError('subscription', id);
    return found;
  }

  async function live(scope: Scope, id: string, action: string): Promise<Subscription> {
    const found = await existing(scope, id);
    if (found.status === 'canceled') throw new InvalidRequestError(`A canceled subscription cannot be ${action}: ${id}.`, 'subscription_canceled');
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
  const cancelNow = ({ origin }: SubscriptionRequest, load: () => Promise<Subscription>, params: CancelSubscriptionParams = {}) =>
    changeAndEmit(
      { repository: subscriptions, events },
      origin,
      load,
      (current): Subscription => {
        const now = clock();
        return {
          ...current,
          status: 'canceled',
          canceledAt: now,
          endedAt: now,
          cancellationDetails: {
            comment: params.cancellation_details?.comment ?? null,
            feedback: params.cancellation_details?.feedback ?? null,
            reason: 'cancellation_requested',
          },
        };
      },
      (next) => [event('customer.subscription.deleted', next)],
    );

  return {
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
      const now = clock();
      const items = await buildItems(origin, params, mode === 'flexible', now);
      const subscription: Subscription = {
        id: newId('sub', now),
        scope: origin.scope,
        version: 1,
        created: now,
        customer: params.customer,
        status: 'active',
        currency: items[0]!.price.currency,
        items,
        billingMode: {
          type: mode,
          prorationDiscounts: mode === 'flexible' ? (params.billing_mode?.flexible?.proration_discounts ?? 'included') : null,
          updatedAt: mode === 'flexible' ? now : null,
        },
        billingCycleAnchor: now,
        cancelAtPeriodEnd: params.cancel_at_period_end ?? false,
        canceledAt: null,
        endedAt: null,
        cancellationDetails: { comment: null, feedback: null, reason: null },
        collectionMethod,
        daysUntilDue: params.days_until_due ?? null,
        description: params.description ?? null,
        metadata: params.metadata ? mergeMetadata({}, params.metadata) : {},
      };
      const outbox = events.prepare(origin, [event('customer.subscription.created', subscription)]);
      // The write claims the customer too: deleted since it was read, it answers as if never found.
      if (!(await subscriptions.create(subscription, { outbox }))) throw invalid(`No such customer: '${params.customer}'`, 'customer', 'resource_missing');
      await events.dispatch(outbox);
      return subscription;
    },

    retrieve: existing,

    /** Newest first; by default every subscription that is not canceled (`status=all` for every one). */
    list(scope: Scope, page: PageRequest, filters: { customer?: string; status?: string; created?: TimeRange }): Promise<Page<Subscription>> {
      const where: Record<string, unknown> = {};
      if (filters.customer) where.customer = filters.customer;
      if (filters.status === undefined) where.status = 'active';
      else if (filters.status === 'ended') where.status = 'canceled';
      else if (filters.status !== 'all') where.status = filters.status;
      return subscriptions.list(scope, page, where, filters.created);
    },

    update({ origin }: SubscriptionRequest, id: string, params: UpdateSubscriptionParams): Promise<Subscription> {
      return changeAndEmit(
        { repository: subscriptions, events },
        origin,
        () => live(origin.scope, id, 'updated'),
        (current) => ({
          ...current,
          cancelAtPeriodEnd: params.cancel_at_period_end ?? current.cancelAtPeriodEnd,
          description: params.description === undefined ? current.description : params.description,
          metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
        }),
        (next, current) => [event('customer.subscription.updated', next, current)],
      );
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
        const page = await subscriptions.list(origin.scope, { limit: 100 }, { customer: customerId, status: 'active' });
        await Promise.all(
          page.items.map((found) => {
            // The listed copy is tried first; a write in between fails its version and the retry reads again.
            let listed: Subscription | undefined = found;
            const load = async () => {
              const current = listed ?? (await existing(origin.scope, found.id));
              listed = undefined;
              if (current.status === 'canceled') throw alreadyCanceled;
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
