import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { newPlatform, sdk } from '../support/stack.ts';
import { runPython } from '../support/python-sdk.ts';

/** Debian's stripe-python 5.0.0 on subscription items and the attach-time card declines. */
describe("stripe-python 5.0.0 (Debian's python3-stripe): subscription items and card declines", () => {
  let key: string;
  let client: Stripe;
  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
  });

  it('Given a subscription, when the old SDK adds, changes, lists and deletes an item, then each answers as the reference', async () => {
    const customer = await client.customers.create({});
    const price = await client.prices.create({ currency: 'usd', unit_amount: 900, recurring: { interval: 'month' }, product_data: { name: 'Py seats' } });
    const extra = await client.prices.create({ currency: 'usd', unit_amount: 100, recurring: { interval: 'month' }, product_data: { name: 'Py extra' } });
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
    const result = await runPython<Record<string, any>>(
      `
item = stripe.SubscriptionItem.create(subscription=args['subscription'], price=args['extra'], quantity=2, proration_behavior='none')
changed = stripe.SubscriptionItem.modify(item.id, quantity=3, proration_behavior='none')
listed = stripe.SubscriptionItem.list(subscription=args['subscription'])
deleted = stripe.SubscriptionItem.delete(item.id, proration_behavior='none')
return {'item': item, 'changed': changed, 'listed': [entry.id for entry in listed.auto_paging_iter()], 'deleted': deleted}
`,
      { subscription: subscription.id, extra: extra.id },
      { key },
    );
    expect(result.item).toMatchObject({ object: 'subscription_item', subscription: subscription.id, quantity: 2 });
    expect(result.changed).toMatchObject({ id: result.item.id, quantity: 3 });
    expect(result.listed).toEqual([result.item.id, subscription.items.data[0]!.id]);
    expect(result.deleted).toMatchObject({ id: result.item.id, deleted: true });
  });

  it('Given a declining test card, when the old SDK attaches it, then it raises its CardError with the decline code', async () => {
    const result = await runPython<Record<string, any>>(
      `
card = stripe.Token.create(card={'number': '4000000000009995', 'exp_month': 12, 'exp_year': 2040, 'cvc': '123'})
try:
    stripe.Customer.create(source=card.id)
except stripe.error.CardError as error:
    return {'class': type(error).__name__, 'status': error.http_status, 'code': error.code, 'decline_code': error.json_body['error']['decline_code']}
return {'class': None}
`,
      {},
      { key },
    );
    expect(result).toEqual({ class: 'CardError', status: 402, code: 'card_declined', decline_code: 'insufficient_funds' });
  });
});
