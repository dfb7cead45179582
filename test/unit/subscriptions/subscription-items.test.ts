import { describe, expect, it } from 'vitest';
import type { Price } from '#shared/catalogue/catalogue.ts';
import type { Customer } from '#shared/customers/customer.ts';
import { NotFoundError } from '#shared/core/errors.ts';
import type { Scope } from '#shared/platform/types.ts';
import {
  createSubscriptionItemParams,
  createSubscriptionParams,
  deleteSubscriptionItemParams,
  updateSubscriptionItemParams,
  updateSubscriptionParams,
} from '#shared/subscriptions/schemas.ts';
import { subscriptionService } from '#shared/subscriptions/service.ts';
import { memoryOwnedStore, originOf, recordingEmitter } from '../../support/fakes.ts';
import { fixedBillingTime, memorySubscriptionInvoicing } from '../../support/billing-fakes.ts';
import { memorySubscriptionRepository } from '../../support/subscription-fakes.ts';
import { recordingProrationInvoicing } from '../../support/proration-fakes.ts';

const scope: Scope = { accountId: 'acct_items', livemode: false };
const other: Scope = { accountId: 'acct_items', livemode: true };
const request = { origin: originOf(scope) };

const price = (id: string, overrides: Partial<Price> = {}): Price => ({
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
  recurring: { interval: 'month', intervalCount: 1, usageType: 'licensed', meter: null },
  type: 'recurring',
  nickname: null,
  lookupKey: null,
  taxBehavior: 'unspecified',
  metadata: {},
  currencyOptions: {},
  ...overrides,
});

async function setup() {
  const subscriptions = memorySubscriptionRepository();
  const prices = memoryOwnedStore<Price>(
    price('price_a'),
    price('price_b', { unitAmount: 2000, unitAmountDecimal: '2000' }),
    price('price_eur', { currency: 'eur' }),
    price('price_year', { recurring: { interval: 'year', intervalCount: 1, usageType: 'licensed', meter: null } }),
  );
  const customers = memoryOwnedStore<Customer>({ id: 'cus_1', scope, version: 1 } as Customer);
  const recorded = recordingEmitter();
  let now = 1_700_000_000_000;
  const service = subscriptionService({
    subscriptions,
    prices,
    customers,
    events: recorded.events,
    billingTime: fixedBillingTime(() => now),
    invoicing: memorySubscriptionInvoicing(subscriptions, recorded.events),
    prorationInvoicing: recordingProrationInvoicing(),
    clock: () => now++,
  });
  const subscription = await service.create(request, createSubscriptionParams.parse({ customer: 'cus_1', items: [{ price: 'price_a', quantity: 2 }] }));
  // The subscription's own events (its first invoice's are the invoicing fake's).
  const types = () => recorded.written.flatMap((outbox) => outbox.snapshotEvents.map((event) => event.type)).filter((type) => type.startsWith('customer.'));
  return { service, subscriptions, subscription, written: recorded.written, types };
}

const none = { proration_behavior: 'none' };

describe('subscription items (service with the shared fakes)', () => {
  it('Given a subscription, when an item is added, retrieved, changed and deleted, then the subscription holds it throughout and each change is one customer.subscription.updated', async () => {
    const { service, subscription, types } = await setup();
    const added = await service.createItem(
      request,
      createSubscriptionItemParams.parse({ subscription: subscription.id, price: 'price_b', quantity: '3', ...none }),
    );
    expect(added.item).toMatchObject({ quantity: 3, price: { id: 'price_b' } });
    expect(added.subscription.items.map((item) => item.id)).toEqual([subscription.items[0]!.id, added.item.id]);
    expect((await service.retrieveItem(scope, added.item.id)).item).toEqual(added.item);

    const changed = await service.updateItem(request, added.item.id, updateSubscriptionItemParams.parse({ quantity: '5', metadata: { seat: 'x' }, ...none }));
    expect(changed.item).toMatchObject({ id: added.item.id, quantity: 5, metadata: { seat: 'x' } });
    expect(changed.subscription.version).toBe(3);

    const left = await service.deleteItem(request, added.item.id, deleteSubscriptionItemParams.parse(none));
    expect(left.items.map((item) => item.id)).toEqual([subscription.items[0]!.id]);
    await expect(service.retrieveItem(scope, added.item.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(types()).toEqual([
      'customer.subscription.created',
      'customer.subscription.updated',
      'customer.subscription.updated',
      'customer.subscription.updated',
    ]);
  });

  it('Given a change that prorates nothing (metadata, the same quantity), when proration_behavior is absent, then it is made', async () => {
    const { service, subscription } = await setup();
    const itemId = subscription.items[0]!.id;
    const changed = await service.updateItem(
      request,
      itemId,
      updateSubscriptionItemParams.parse({ quantity: '2', metadata: { a: '1' }, payment_behavior: 'error_if_incomplete' }),
    );
    expect(changed.item).toMatchObject({ quantity: 2, metadata: { a: '1' } });
  });

  it('Given the rules a subscription keeps, when items break them, then each is refused: the last item, a price twice, another currency, another interval in classic mode', async () => {
    const { service, subscription } = await setup();
    const itemId = subscription.items[0]!.id;
    await expect(service.deleteItem(request, itemId, deleteSubscriptionItemParams.parse(none))).rejects.toMatchObject({
      message: expect.stringContaining('at least one item'),
    });
    for (const price of ['price_a', 'price_eur', 'price_year']) {
      await expect(service.createItem(request, createSubscriptionItemParams.parse({ subscription: subscription.id, price, ...none }))).rejects.toMatchObject({
        code: 'parameter_invalid',
        param: 'price',
      });
    }
    await expect(
      service.createItem(request, createSubscriptionItemParams.parse({ subscription: 'sub_missing', price: 'price_b', ...none })),
    ).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'subscription',
    });
  });

  it('Given a canceled subscription, when its items are changed, then it is refused with subscription_canceled', async () => {
    const { service, subscription } = await setup();
    await service.cancel(request, subscription.id, {});
    await expect(
      service.createItem(request, createSubscriptionItemParams.parse({ subscription: subscription.id, price: 'price_b', ...none })),
    ).rejects.toMatchObject({
      code: 'subscription_canceled',
    });
    await expect(service.updateItem(request, subscription.items[0]!.id, updateSubscriptionItemParams.parse({ metadata: { a: '1' } }))).rejects.toMatchObject({
      code: 'subscription_canceled',
    });
  });

  it("Given another mode's caller, when it reads or lists an item, then it is not found there", async () => {
    const { service, subscription } = await setup();
    await expect(service.retrieveItem(other, subscription.items[0]!.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.listItems(other, subscription.id, { limit: 10 })).rejects.toMatchObject({ code: 'resource_missing', param: 'subscription' });
  });

  it('Given three items, when listed two at a time, then the pages go newest first and the cursor continues', async () => {
    const { service, subscription } = await setup();
    const b = await service.createItem(request, createSubscriptionItemParams.parse({ subscription: subscription.id, price: 'price_b', ...none }));
    await service.updateItem(request, b.item.id, updateSubscriptionItemParams.parse({ metadata: { k: 'v' } }));
    const all = (await service.retrieve(scope, subscription.id)).items;
    const first = await service.listItems(scope, subscription.id, { limit: 1 });
    expect(first.page).toMatchObject({ items: [{ id: all[1]!.id }], hasMore: true });
    const second = await service.listItems(scope, subscription.id, { limit: 1, startingAfter: all[1]!.id });
    expect(second.page).toMatchObject({ items: [{ id: all[0]!.id }], hasMore: false });
  });

  it('Given a subscription update with items, when it adds one, changes one and deletes one, then all happen in one write and one event, the pointers following', async () => {
    const { service, subscriptions, subscription, types } = await setup();
    const b = await service.createItem(request, createSubscriptionItemParams.parse({ subscription: subscription.id, price: 'price_b', ...none }));
    const [a] = subscription.items;
    const updated = await service.update(
      request,
      subscription.id,
      updateSubscriptionParams.parse({
        items: [
          { id: a!.id, quantity: '7' },
          { id: b.item.id, deleted: 'true' },
          { price_data: { currency: 'usd', product: 'prod_1', recurring: { interval: 'month' }, unit_amount: '150' } },
        ],
        metadata: { changed: 'yes' },
        ...none,
      }),
    );
    expect(updated.items).toHaveLength(2);
    expect(updated.items[0]).toMatchObject({ id: a!.id, quantity: 7 });
    expect(updated.items[1]).toMatchObject({ quantity: 1, price: { unitAmount: 150, active: false } });
    expect(updated.metadata).toEqual({ changed: 'yes' });
    expect([...subscriptions.pointers.values()].filter((id) => id === subscription.id)).toHaveLength(2);
    expect(types().slice(-1)).toEqual(['customer.subscription.updated']);
    expect(types()).toHaveLength(3);
  });

  it('Given items on a subscription update, when an entry names an unknown item, deletes without id, or repeats an id, then it is refused naming the entry', async () => {
    const { service, subscription } = await setup();
    const [a] = subscription.items;
    const update = (items: unknown[]) => service.update(request, subscription.id, updateSubscriptionParams.parse({ items, ...none }));
    await expect(update([{ id: 'si_nope', quantity: '2' }])).rejects.toMatchObject({ code: 'resource_missing', param: 'items[0][id]' });
    await expect(update([{ deleted: 'true' }])).rejects.toMatchObject({ code: 'parameter_missing', param: 'items[0][id]' });
    await expect(
      update([
        { id: a!.id, quantity: '2' },
        { id: a!.id, quantity: '3' },
      ]),
    ).rejects.toMatchObject({ param: 'items[1][id]' });
  });
});

describe('metered items changed mid-period (service with the shared fakes)', () => {
  it('Given a metered item, when its price changes and it is deleted, then each old price’s usage is kept to bill (from where it began to the change); the 21st change in a period is refused', async () => {
    const metered = (id: string) => price(id, { recurring: { interval: 'month', intervalCount: 1, usageType: 'metered', meter: 'mtr_1' } });
    const subscriptions = memorySubscriptionRepository();
    let now = 1_700_000_000_000;
    const service = subscriptionService({
      subscriptions,
      prices: memoryOwnedStore<Price>(metered('price_m1'), metered('price_m2'), price('price_a')),
      customers: memoryOwnedStore<Customer>({ id: 'cus_1', scope, version: 1 } as Customer),
      events: recordingEmitter().events,
      billingTime: fixedBillingTime(() => now),
      invoicing: memorySubscriptionInvoicing(subscriptions, recordingEmitter().events),
      prorationInvoicing: recordingProrationInvoicing(),
      clock: () => now,
    });
    const made = await service.create(request, createSubscriptionParams.parse({ customer: 'cus_1', items: [{ price: 'price_m1' }, { price: 'price_a' }] }));
    const itemId = made.items[0]!.id;
    const started = now;

    now += 60_000;
    const first = await service.updateItem(request, itemId, updateSubscriptionItemParams.parse({ price: 'price_m2', ...none }));
    expect(first.subscription.retiredUsage).toEqual([{ item: itemId, price: expect.objectContaining({ id: 'price_m1' }), since: started, until: now }]);
    expect(first.item.usageSince).toBe(now);

    for (let change = 2; change <= 20; change++) {
      now += 60_000;
      const { subscription } = await service.updateItem(
        request,
        itemId,
        updateSubscriptionItemParams.parse({ price: change % 2 ? 'price_m2' : 'price_m1', ...none }),
      );
      expect(subscription.retiredUsage).toHaveLength(change);
      expect(subscription.retiredUsage!.at(-1)).toMatchObject({ since: now - 60_000, until: now });
    }
    now += 60_000;
    await expect(service.deleteItem(request, itemId, deleteSubscriptionItemParams.parse(none))).rejects.toMatchObject({
      code: 'parameter_invalid',
      message: expect.stringContaining('at most 20 times a period'),
    });
  });
});
