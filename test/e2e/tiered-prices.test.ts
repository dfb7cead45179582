import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';

const day = 86_400;
const year = new Date().getUTCFullYear();

/** The reference's tiered-pricing guide's tiers (Typographic's fonts): 1-5 at 7.00, 6-10 at 6.50, 11+ at 6.00 USD. */
const fontTiers: Stripe.PriceCreateParams.Tier[] = [
  { up_to: 5, unit_amount: 700 },
  { up_to: 10, unit_amount: 650 },
  { up_to: 'inf', unit_amount: 600 },
];
const shownFontTiers = [
  { flat_amount: null, flat_amount_decimal: null, unit_amount: 700, unit_amount_decimal: '700', up_to: 5 },
  { flat_amount: null, flat_amount_decimal: null, unit_amount: 650, unit_amount_decimal: '650', up_to: 10 },
  { flat_amount: null, flat_amount_decimal: null, unit_amount: 600, unit_amount_decimal: '600', up_to: null },
];

describe('tiered prices and transform_quantity, through the official SDK', () => {
  let client: Stripe;
  let key: string;
  let product: Stripe.Product;
  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
    product = await client.products.create({ name: 'Fonts' });
  });

  /** The SDK turns decimal strings into Decimal objects: compare them as strings. */
  const plainTiers = (tiers: Stripe.Price.Tier[] | undefined) =>
    tiers?.map((tier) => ({
      ...tier,
      unit_amount_decimal: tier.unit_amount_decimal === null ? null : String(tier.unit_amount_decimal),
      flat_amount_decimal: tier.flat_amount_decimal === null ? null : String(tier.flat_amount_decimal),
    }));

  it('Given graduated and volume tiers, when prices are created, then they have no unit amount and show their tiers only with expand[]=tiers', async () => {
    const graduated = await client.prices.create({
      product: product.id,
      currency: 'usd',
      recurring: { interval: 'month' },
      billing_scheme: 'tiered',
      tiers_mode: 'graduated',
      tiers: fontTiers,
    });
    expect(graduated).toMatchObject({
      billing_scheme: 'tiered',
      tiers_mode: 'graduated',
      unit_amount: null,
      unit_amount_decimal: null,
      transform_quantity: null,
    });
    expect(graduated).not.toHaveProperty('tiers');
    const volume = await client.prices.create({
      product: product.id,
      currency: 'usd',
      billing_scheme: 'tiered',
      tiers_mode: 'volume',
      tiers: [
        { up_to: 10, unit_amount: 500, flat_amount: 1000 },
        { up_to: 'inf', unit_amount_decimal: '450.5' as unknown as Stripe.Decimal },
      ],
      expand: ['tiers'],
    });
    expect(plainTiers(volume.tiers)).toEqual([
      { flat_amount: 1000, flat_amount_decimal: '1000', unit_amount: 500, unit_amount_decimal: '500', up_to: 10 },
      { flat_amount: null, flat_amount_decimal: null, unit_amount: null, unit_amount_decimal: '450.5', up_to: null },
    ]);

    const retrieved = await client.prices.retrieve(graduated.id, { expand: ['tiers'] });
    expect(plainTiers(retrieved.tiers)).toEqual(shownFontTiers);
    expect(await client.prices.retrieve(graduated.id)).not.toHaveProperty('tiers');
    const listed = await client.prices.list({ product: product.id, expand: ['data.tiers'] });
    expect(plainTiers(listed.data.find((price) => price.id === graduated.id)!.tiers)).toEqual(shownFontTiers);
    // A per_unit price has no tiers to show.
    const plain = await client.prices.create({ product: product.id, currency: 'usd', unit_amount: 100 });
    expect(await client.prices.retrieve(plain.id, { expand: ['tiers'] })).toMatchObject({ billing_scheme: 'per_unit', tiers_mode: null, unit_amount: 100 });
    expect(await client.prices.retrieve(plain.id, { expand: ['tiers'] })).not.toHaveProperty('tiers');
  });

  it('Given transform_quantity, when a price is created and billed on an invoice item, then the quantity is divided and rounded before the unit amount applies', async () => {
    const customer = await client.customers.create({ name: 'Packages' });
    const perThousand = await client.prices.create({
      product: product.id,
      currency: 'usd',
      unit_amount: 1000,
      transform_quantity: { divide_by: 1000, round: 'up' },
    });
    expect(perThousand.transform_quantity).toEqual({ divide_by: 1000, round: 'up' });
    const item = await client.invoiceItems.create({ customer: customer.id, pricing: { price: perThousand.id }, quantity: 1500 });
    expect(item).toMatchObject({ amount: 2000, quantity: 1500, pricing: { unit_amount_decimal: null } });
  });

  it('Given a one-time volume price, when an invoice item takes it and its quantity changes, then the amount is the tier’s each time', async () => {
    const customer = await client.customers.create({ name: 'Volume' });
    const volume = await client.prices.create({ product: product.id, currency: 'usd', billing_scheme: 'tiered', tiers_mode: 'volume', tiers: fontTiers });
    const item = await client.invoiceItems.create({ customer: customer.id, pricing: { price: volume.id }, quantity: 6 });
    expect(item).toMatchObject({ amount: 3900, quantity: 6, pricing: { price_details: { price: volume.id }, unit_amount_decimal: null } });
    expect(await client.invoiceItems.update(item.id, { quantity: 20 })).toMatchObject({ amount: 12_000, quantity: 20 });
  });

  it('Given a tiered price in several currencies, when currency_options is expanded, then each currency shows its own tiers', async () => {
    const price = await client.prices.create({
      product: product.id,
      currency: 'usd',
      billing_scheme: 'tiered',
      tiers_mode: 'graduated',
      tiers: fontTiers,
      currency_options: {
        eur: {
          tiers: [
            { up_to: 5, unit_amount: 650 },
            { up_to: 'inf', unit_amount: 600 },
          ],
        },
      },
      expand: ['currency_options'],
    });
    expect(price.currency_options!.usd).toMatchObject({ unit_amount: null, unit_amount_decimal: null, tiers: [{ up_to: 5 }, { up_to: 10 }, { up_to: null }] });
    expect(price.currency_options!.eur).toMatchObject({
      unit_amount: null,
      tiers: [
        { up_to: 5, unit_amount: 650 },
        { up_to: null, unit_amount: 600 },
      ],
    });
    const updated = await client.prices.update(price.id, {
      currency_options: { gbp: { tiers: [{ up_to: 'inf', unit_amount: 550 }] } },
      expand: ['currency_options'],
    });
    expect(Object.keys(updated.currency_options!)).toEqual(['usd', 'gbp']);
    await expect(client.prices.update(price.id, { currency_options: { gbp: { unit_amount: 550 } } })).rejects.toMatchObject({
      statusCode: 400,
      param: 'currency_options[gbp][unit_amount]',
    });
  });

  it('Given form bodies a client writes by hand, when tiers are sent, then they are read from bracket syntax and every broken rule is a 400 naming the parameter', async () => {
    const made = await api('POST', '/v1/prices', {
      key,
      form: `product=${product.id}&currency=usd&billing_scheme=tiered&tiers_mode=volume&tiers[0][up_to]=3&tiers[0][flat_amount]=900&tiers[1][up_to]=inf&tiers[1][unit_amount]=250&expand[]=tiers`,
    });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({
      billing_scheme: 'tiered',
      tiers_mode: 'volume',
      unit_amount_decimal: null,
      tiers: [{ up_to: 3, flat_amount: 900 }, { up_to: null }],
    });
    const refused: Array<[string, string]> = [
      ['billing_scheme=tiered&tiers_mode=volume&tiers[0][up_to]=3&tiers[0][unit_amount]=1', 'tiers[0][up_to]'],
      ['billing_scheme=tiered&tiers_mode=volume&tiers[0][up_to]=inf&tiers[0][amount]=1', 'tiers[0]'],
      ['billing_scheme=tiered&tiers_mode=volume&tiers[0][up_to]=inf', 'tiers[0]'],
      ['billing_scheme=tiered&tiers_mode=volume&unit_amount=5&tiers[0][up_to]=inf&tiers[0][unit_amount]=1', 'unit_amount'],
      ['billing_scheme=tiered&tiers[0][up_to]=inf&tiers[0][unit_amount]=1', 'tiers_mode'],
      ['unit_amount=5&tiers[0][up_to]=inf&tiers[0][unit_amount]=1', 'tiers'],
      [
        'billing_scheme=tiered&tiers_mode=graduated&tiers[0][up_to]=inf&tiers[0][unit_amount]=1&transform_quantity[divide_by]=2&transform_quantity[round]=up',
        'transform_quantity',
      ],
      ['unit_amount=5&transform_quantity[divide_by]=0&transform_quantity[round]=up', 'transform_quantity[divide_by]'],
      ['unit_amount=5&transform_quantity[divide_by]=2', 'transform_quantity[round]'],
      [
        'billing_scheme=tiered&tiers_mode=volume&tiers[0][up_to]=5&tiers[0][unit_amount]=1&tiers[1][up_to]=4&tiers[1][unit_amount]=1&tiers[2][up_to]=inf&tiers[2][unit_amount]=1',
        'tiers[1][up_to]',
      ],
    ];
    for (const [form, param] of refused) {
      const answer = await api('POST', '/v1/prices', { key, form: `product=${product.id}&currency=usd&${form}` });
      expect(answer.status, form).toBe(400);
      expect(answer.body.error, form).toMatchObject({ type: 'invalid_request_error', param: expect.stringContaining(param) });
    }
  });
});

/**
 * A licensed graduated price on a subscription, on a test clock: 12 seats at the guide's tiers are
 * 5 × 7.00 + 5 × 6.50 + 2 × 6.00 = 79.50 USD. Started on 1 January (a 31-day period) and cut to 6 seats
 * (5 × 7.00 + 6.50 = 41.50) with 10 days left: the credit is 79.50 × 10/31 and the charge 41.50 × 10/31.
 */
describe('a subscription on a licensed graduated price, through the official SDK', () => {
  let client: Stripe;
  let clock: Stripe.TestHelpers.TestClock;
  let customer: Stripe.Customer;
  let price: Stripe.Price;
  let subscription: Stripe.Subscription;
  const start = Math.floor(Date.UTC(year + 1, 0, 1) / 1000);
  const renewal = Math.floor(Date.UTC(year + 1, 1, 1) / 1000);

  const advanceTo = async (frozenTime: number) => {
    await client.testHelpers.testClocks.advance(clock.id, { frozen_time: frozenTime });
    clock = await eventually(async () => {
      const current = await client.testHelpers.testClocks.retrieve(clock.id);
      return current.status === 'ready' ? current : undefined;
    }, 120_000);
  };

  beforeAll(async () => {
    client = sdk((await newPlatform()).secret_key);
    clock = await client.testHelpers.testClocks.create({ frozen_time: start, name: 'Seats' });
    customer = await client.customers.create({ name: 'Seats', test_clock: clock.id, source: 'tok_visa' });
    const product = await client.products.create({ name: 'Seats' });
    price = await client.prices.create({
      product: product.id,
      currency: 'usd',
      recurring: { interval: 'month' },
      billing_scheme: 'tiered',
      tiers_mode: 'graduated',
      tiers: fontTiers,
    });
  });

  it('Given 12 seats, when subscribed, then the first invoice is the graduated amount (79.50), on one line of quantity 12 with no unit amount, paid', async () => {
    subscription = await client.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id, quantity: 12 }],
      expand: ['latest_invoice', 'items.data.price.tiers', 'items.data.plan.tiers'],
    });
    const invoice = subscription.latest_invoice as Stripe.Invoice;
    expect(invoice).toMatchObject({ status: 'paid', amount_due: 7950, amount_paid: 7950, total: 7950, billing_reason: 'subscription_create' });
    expect(invoice.lines.data).toHaveLength(1);
    expect(invoice.lines.data[0]).toMatchObject({
      amount: 7950,
      quantity: 12,
      pricing: { price_details: { price: price.id }, unit_amount_decimal: null },
      period: { start, end: renewal },
    });
    const [item] = subscription.items.data;
    expect(item!.price).toMatchObject({ id: price.id, billing_scheme: 'tiered', tiers_mode: 'graduated', unit_amount: null });
    expect(item!.price.tiers).toHaveLength(3);
    expect(item!.plan).toMatchObject({ id: price.id, billing_scheme: 'tiered', tiers_mode: 'graduated', amount: null, amount_decimal: null });
    expect(item!.plan.tiers).toHaveLength(3);
    expect((await client.subscriptions.retrieve(subscription.id)).items.data[0]!.price).not.toHaveProperty('tiers');
  });

  it('Given 10 of 31 days left, when the seats go from 12 to 6, then the prorations are those fractions of the two tiered amounts, and the renewal bills 6 seats with them', async () => {
    const changeAt = start + 21 * day;
    await advanceTo(changeAt);
    await client.subscriptions.update(subscription.id, { items: [{ id: subscription.items.data[0]!.id, quantity: 6 }] });
    const pending = (await client.invoiceItems.list({ customer: customer.id, pending: true, limit: 10 })).data.reverse();
    // 7950 × 10/31 = 2564.52 → 2565 credited; 4150 × 10/31 = 1338.71 → 1339 charged.
    expect(pending.map((item) => [item.amount, item.quantity, item.pricing?.unit_amount_decimal ?? null])).toEqual([
      [-2565, 12, null],
      [1339, 6, null],
    ]);
    // The preview of the renewal prices the 6 seats through the same tiers.
    const preview = await client.invoices.createPreview({ subscription: subscription.id });
    expect(preview.total).toBe(4150 - 2565 + 1339);
    await advanceTo(renewal + 2 * 3600);
    const invoices = (await client.invoices.list({ subscription: subscription.id, limit: 10 })).data;
    const cycle = invoices.find((invoice) => invoice.billing_reason === 'subscription_cycle')!;
    expect(cycle).toMatchObject({ status: 'paid', total: 4150 - 2565 + 1339 });
    expect(cycle.lines.data.find((line) => !line.parent?.subscription_item_details?.proration)).toMatchObject({ amount: 4150, quantity: 6 });
  });

  it('Given a price whose amount for the quantity is beyond what a line can hold, when subscribed, then it is a 400 naming the item, never a failure later', async () => {
    const huge = await client.prices.create({
      product: price.product as string,
      currency: 'usd',
      recurring: { interval: 'month' },
      billing_scheme: 'tiered',
      tiers_mode: 'volume',
      tiers: [{ up_to: 'inf', unit_amount_decimal: '999999999999' as unknown as Stripe.Decimal }],
    });
    await expect(client.subscriptions.create({ customer: customer.id, items: [{ price: huge.id, quantity: 2 }] })).rejects.toMatchObject({
      statusCode: 400,
      param: 'items[0]',
    });
    await expect(
      client.subscriptions.create({
        customer: customer.id,
        items: [
          {
            price_data: {
              currency: 'usd',
              product: price.product as string,
              unit_amount_decimal: '999999999999' as unknown as Stripe.Decimal,
              recurring: { interval: 'month' },
            },
            quantity: 1_000_000,
          },
        ],
      }),
    ).rejects.toMatchObject({ statusCode: 400, param: 'items[0]' });
  });
});
