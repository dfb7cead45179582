import { describe, expect, it } from 'vitest';
import type { Price } from '#shared/catalogue/catalogue.ts';
import type { Customer } from '#shared/customers/customer.ts';
import { InvalidRequestError } from '#shared/core/errors.ts';
import type { Scope } from '#shared/platform/types.ts';
import { cancelSubscriptionParams, createSubscriptionParams, migrateSubscriptionParams, updateSubscriptionParams } from '#shared/subscriptions/schemas.ts';
import { subscriptionService } from '#shared/subscriptions/service.ts';
import { fixedBillingTime, memorySubscriptionInvoicing } from '../../support/billing-fakes.ts';
import { memoryOwnedStore, originOf, recordingEmitter } from '../../support/fakes.ts';
import { memorySubscriptionRepository } from '../../support/subscription-fakes.ts';
import { recordingProrationInvoicing } from '../../support/proration-fakes.ts';

const scope: Scope = { accountId: 'acct_subscriptions', livemode: false };
const request = { origin: originOf(scope) };

const price = (id: string, interval: 'month' | 'year', overrides: Partial<Price> = {}): Price => ({
  id,
  scope,
  version: 1,
  created: 1,
  product: 'prod_1',
  active: true,
  currency: 'usd',
  unitAmount: 1000,
  unitAmountDecimal: '1000',
  billingScheme: 'per_unit',
  tiersMode: null,
  tiers: null,
  transformQuantity: null,
  recurring: { interval, intervalCount: 1, usageType: 'licensed', meter: null },
  type: 'recurring',
  nickname: null,
  lookupKey: null,
  taxBehavior: 'unspecified',
  metadata: {},
  currencyOptions: {},
  ...overrides,
});

function setup() {
  const subscriptions = memorySubscriptionRepository();
  const prices = memoryOwnedStore<Price>(
    price('price_month', 'month'),
    price('price_year', 'year'),
    price('price_once', 'month', { recurring: null, type: 'one_time' }),
  );
  const customers = memoryOwnedStore<Customer>({ id: 'cus_1', scope, version: 1 } as Customer, { id: 'cus_2', scope, version: 1 } as Customer);
  const recorded = recordingEmitter();
  let now = 1_700_000_000_000;
  const clock = () => now++;
  const invoicing = memorySubscriptionInvoicing(subscriptions, recorded.events);
  const service = subscriptionService({
    subscriptions,
    prices,
    customers,
    events: recorded.events,
    billingTime: fixedBillingTime(clock),
    invoicing,
    prorationInvoicing: recordingProrationInvoicing(),
    clock,
  });
  return { service, subscriptions, written: recorded.written, invoicing };
}

const create = (params: Record<string, unknown>) => createSubscriptionParams.parse({ customer: 'cus_1', ...params });

describe('subscriptions (service with the shared fakes)', () => {
  it('creates a classic subscription of recurring prices and emits customer.subscription.created', async () => {
    const { service, written } = setup();
    const subscription = await service.create(request, create({ items: [{ price: 'price_month', quantity: 2 }] }));
    expect(subscription).toMatchObject({ status: 'active', currency: 'usd', billingMode: { type: 'classic', updatedAt: null }, items: [{ quantity: 2 }] });
    expect(written[0]!.snapshotEvents[0]).toMatchObject({ type: 'customer.subscription.created', object: { id: subscription.id, object: 'subscription' } });
  });

  it('needs the flexible billing mode for items of different intervals, and refuses one-time prices and unknown customers', async () => {
    const { service } = setup();
    const mixed = { items: [{ price: 'price_month' }, { price: 'price_year' }] };
    await expect(service.create(request, create(mixed))).rejects.toMatchObject({ param: 'items[1]' });
    expect(await service.create(request, create({ ...mixed, billing_mode: { type: 'flexible' } }))).toMatchObject({
      billingMode: { type: 'flexible', prorationDiscounts: 'included' },
    });
    await expect(service.create(request, create({ items: [{ price: 'price_once' }] }))).rejects.toMatchObject({ param: 'items[0][price]' });
    await expect(service.create(request, create({ customer: 'cus_unknown', items: [{ price: 'price_month' }] }))).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'customer',
    });
  });

  it("cancels every subscription of a customer being deleted that is not canceled yet, each with its event, and no one else's", async () => {
    // Given two subscriptions of one customer (one canceled already) and one of another
    const { service, written } = setup();
    const first = await service.create(request, create({ items: [{ price: 'price_month' }] }));
    const second = await service.create(request, create({ items: [{ price: 'price_year' }] }));
    const others = await service.create(request, create({ customer: 'cus_2', items: [{ price: 'price_month' }] }));
    await service.cancel(request, second.id, cancelSubscriptionParams.parse({}));
    const before = written.length;

    // When the customer's subscriptions are canceled for its deletion
    await service.cancelAllOf(request.origin, 'cus_1');

    // Then only the one still active was canceled, with customer.subscription.deleted, and the other customer's is untouched
    expect(await service.retrieve(scope, first.id)).toMatchObject({ status: 'canceled', cancellationDetails: { reason: 'cancellation_requested' } });
    expect(written.slice(before).map((outbox) => outbox.snapshotEvents.map((event) => [event.type, (event.object as { id: string }).id]))).toEqual([
      [['customer.subscription.deleted', first.id]],
    ]);
    expect(await service.retrieve(scope, others.id)).toMatchObject({ status: 'active' });
  });

  it('migrates classic to flexible once, telling what changed', async () => {
    const { service, written } = setup();
    const subscription = await service.create(request, create({ items: [{ price: 'price_month' }] }));
    const migrated = await service.migrate(request, subscription.id, migrateSubscriptionParams.parse({ billing_mode: { type: 'flexible' } }));
    expect(migrated).toMatchObject({ billingMode: { type: 'flexible' }, version: 2 });
    expect(written.at(-1)!.snapshotEvents[0]!.previousAttributes).toMatchObject({ billing_mode: { type: 'classic' } });
    await expect(service.migrate(request, subscription.id, migrateSubscriptionParams.parse({ billing_mode: { type: 'flexible' } }))).rejects.toMatchObject({
      code: 'subscription_billing_mode_already_flexible',
    });
  });

  it('cancels once; a canceled subscription is listed only when asked for and cannot be changed', async () => {
    const { service } = setup();
    const subscription = await service.create(request, create({ items: [{ price: 'price_month' }] }));
    const canceled = await service.cancel(request, subscription.id, cancelSubscriptionParams.parse({ cancellation_details: { comment: 'bye' } }));
    expect(canceled).toMatchObject({ status: 'canceled', cancellationDetails: { comment: 'bye', reason: 'cancellation_requested' } });
    expect((await service.list(scope, { limit: 10 }, {})).items).toEqual([]);
    expect((await service.list(scope, { limit: 10 }, { status: 'canceled' })).items.map((item) => item.id)).toEqual([subscription.id]);
    await expect(service.update(request, subscription.id, updateSubscriptionParams.parse({ description: 'x' }))).rejects.toBeInstanceOf(InvalidRequestError);
  });
});
