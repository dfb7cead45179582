import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';
import { runPython } from '../support/python-sdk.ts';

const day = 86_400;
const year = new Date().getUTCFullYear();
const nowSeconds = () => Math.floor(Date.now() / 1000);
const sdkError = (promise: Promise<unknown>) => promise.then(() => undefined).catch((error: unknown) => error as Stripe.errors.StripeError);

/** What a request cost, from the local stack's `x-local-aws-calls` answer (asked with `measure`). */
function costOf(answer: { headers: Headers }) {
  const header = answer.headers.get('x-local-aws-calls') ?? '';
  const number = (name: string) => Number(new RegExp(`${name}=([\\d.]+)`).exec(header)?.[1] ?? Number.NaN);
  const operations = (/ops=(.*)$/.exec(header)?.[1] ?? '').split(',').map((op) => op.replace(/\(.*$/, ''));
  return { calls: number('calls'), read: number('read'), write: number('write'), operations };
}

/** A form body from flat `[key, value]` pairs (the wire form the SDK sends). */
const form = (pairs: Array<[string, string | number]>) =>
  pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`).join('&');

/** A preview's lines as [amount, proration] pairs, in order. */
const linesOf = (invoice: Stripe.Invoice) => invoice.lines.data.map((line) => [line.amount, line.parent?.subscription_item_details?.proration ?? false]);
const prorationAmounts = (invoice: Stripe.Invoice) =>
  invoice.lines.data.filter((line) => line.parent?.subscription_item_details?.proration).map((line) => line.amount);

/**
 * Previewing a subscription change (`subscription_details`) through the official SDK, on a test clock: monthly
 * subscriptions started on 1 January (a 31-day period) and changed 21 days in, with 10 of 31 days left, so
 * every proration is a whole amount (31.00 × 10/31 = 10.00 per seat). Each preview is then applied with
 * `subscriptions.update` and the same `proration_date`, the reference's "preview, then apply" workflow.
 */
describe('previewing a subscription change, through the official SDK', () => {
  let client: Stripe;
  let key: string;
  let clock: Stripe.TestHelpers.TestClock;
  let customer: Stripe.Customer;
  let seat: Stripe.Price;
  let proSeat: Stripe.Price;
  let support: Stripe.Price;
  let product: Stripe.Product;
  const start = Math.floor(Date.UTC(year + 1, 0, 1) / 1000);
  const changeAt = start + 21 * day;
  const periodEnd = Math.floor(Date.UTC(year + 1, 1, 1) / 1000);
  const nextEnd = Math.floor(Date.UTC(year + 1, 2, 1) / 1000);
  const subs: Record<'upgrade' | 'removal' | 'quantity' | 'errors', Stripe.Subscription> = {} as never;

  const pendingOf = async (subscriptionId: string) =>
    (await client.invoiceItems.list({ customer: customer.id, pending: true, limit: 100 })).data.filter(
      (item) => item.parent?.subscription_details?.subscription === subscriptionId,
    );
  const invoiceIds = async () => (await client.invoices.list({ customer: customer.id, limit: 100 })).data.map((invoice) => invoice.id).sort();

  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
    clock = await client.testHelpers.testClocks.create({ frozen_time: start, name: 'Previews' });
    customer = await client.customers.create({ name: 'Previewing', test_clock: clock.id, source: 'tok_visa' });
    product = await client.products.create({ name: 'Seats' });
    const supportProduct = await client.products.create({ name: 'Support' });
    seat = await client.prices.create({ product: product.id, unit_amount: 3100, currency: 'usd', recurring: { interval: 'month' } });
    proSeat = await client.prices.create({ product: product.id, unit_amount: 6200, currency: 'usd', recurring: { interval: 'month' } });
    support = await client.prices.create({ product: supportProduct.id, unit_amount: 3100, currency: 'usd', recurring: { interval: 'month' } });
    for (const name of ['upgrade', 'quantity', 'errors'] as const) {
      subs[name] = await client.subscriptions.create({ customer: customer.id, items: [{ price: seat.id, quantity: 2 }] });
    }
    subs.removal = await client.subscriptions.create({
      customer: customer.id,
      items: [
        { price: seat.id, quantity: 2 },
        { price: support.id, quantity: 1 },
      ],
    });
    await client.testHelpers.testClocks.advance(clock.id, { frozen_time: changeAt });
    clock = await eventually(async () => {
      const current = await client.testHelpers.testClocks.retrieve(clock.id);
      return current.status === 'ready' ? current : undefined;
    }, 60_000);
  }, 120_000);

  it('Given 10 of 31 days left, when an upgrade from 2 seats to 2 pro seats is previewed at a proration_date, then the preview credits the unused seats, charges the pro seats’ remaining time and shows the next period, and nothing is written', async () => {
    const sub = subs.upgrade;
    const itemId = sub.items.data[0]!.id;
    const before = await client.subscriptions.retrieve(sub.id);
    const invoicesBefore = await invoiceIds();

    const preview = await client.invoices.createPreview({
      subscription: sub.id,
      subscription_details: { items: [{ id: itemId, price: proSeat.id }], proration_date: changeAt },
    });

    expect(preview).toMatchObject({
      id: `upcoming_in_${customer.id}`,
      billing_reason: 'upcoming',
      customer: customer.id,
      parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, subscription_proration_date: changeAt } },
      subtotal: -2000 + 4000 + 12_400,
      total: 14_400,
      amount_due: 14_400,
    });
    expect(linesOf(preview)).toEqual([
      [12_400, false],
      [-2000, true],
      [4000, true],
    ]);
    expect(preview.lines.data[0]).toMatchObject({ period: { start: periodEnd, end: nextEnd }, quantity: 2, pricing: { price_details: { price: proSeat.id } } });
    expect(preview.lines.data[1]).toMatchObject({
      period: { start: changeAt, end: periodEnd },
      quantity: 2,
      description: `Unused time on 2 × Seats after ${new Date(changeAt * 1000).toUTCString().slice(5, 16)}`,
      parent: { subscription_item_details: { subscription_item: itemId, invoice_item: null, proration: true } },
    });
    // Nothing was written: the subscription, its pending items and the customer's invoices are as they were.
    expect(await client.subscriptions.retrieve(sub.id)).toEqual(before);
    expect(await pendingOf(sub.id)).toEqual([]);
    expect(await invoiceIds()).toEqual(invoicesBefore);

    // When the change is applied with the same proration_date, its prorations are the previewed ones.
    await client.subscriptions.update(sub.id, { items: [{ id: itemId, price: proSeat.id }], proration_date: changeAt });
    const made = (await pendingOf(sub.id)).map((item) => item.amount).sort((a, b) => a - b);
    expect(made).toEqual(prorationAmounts(preview).sort((a, b) => a - b));
    // And the next invoice previewed as it now stands is the previewed one.
    const after = await client.invoices.createPreview({ subscription: sub.id });
    expect(after.total).toBe(preview.total);
  });

  it('Given a subscription with seats and support, when the support item’s removal is previewed, then the preview credits its unused time and the next period shows the seats alone; applied, the credit is the same', async () => {
    const sub = subs.removal;
    const supportItem = sub.items.data.find((item) => item.price.id === support.id)!.id;
    const details = { items: [{ id: supportItem, deleted: true }], proration_date: changeAt };

    const preview = await client.invoices.createPreview({ subscription: sub.id, subscription_details: details });

    expect(linesOf(preview)).toEqual([
      [6200, false],
      [-1000, true],
    ]);
    expect(preview.lines.data[1]!.description).toContain('Unused time on Support');
    expect((await client.subscriptions.retrieve(sub.id)).items.data).toHaveLength(2);

    await client.subscriptions.update(sub.id, details);
    expect((await pendingOf(sub.id)).map((item) => item.amount)).toEqual(prorationAmounts(preview));
  });

  it('Given always_invoice, when a quantity change from 2 to 3 is previewed, then the preview is the invoice made at once: the prorations only; applied, that invoice has the same lines', async () => {
    const sub = subs.quantity;
    const itemId = sub.items.data[0]!.id;
    const details = { items: [{ id: itemId, quantity: 3 }], proration_behavior: 'always_invoice' as const, proration_date: changeAt };

    const preview = await client.invoices.createPreview({ subscription: sub.id, subscription_details: details });

    expect(linesOf(preview)).toEqual([
      [-2000, true],
      [3000, true],
    ]);
    expect(preview).toMatchObject({ total: 1000, amount_due: 1000 });

    await client.subscriptions.update(sub.id, details);
    const invoice = (await client.invoices.list({ subscription: sub.id, limit: 10 })).data.find((found) => found.billing_reason === 'subscription_update')!;
    expect(invoice.lines.data.map((line) => line.amount).sort((a, b) => a - b)).toEqual(prorationAmounts(preview).sort((a, b) => a - b));
    expect(invoice.total).toBe(preview.total);
  });

  it('Given a customer and no subscription, when a new subscription is previewed, then its first invoice shows each item’s first period and nothing is made (no subscription, no price from price_data)', async () => {
    const pricesBefore = (await client.prices.list({ limit: 100 })).data.length;
    const subscriptionsBefore = (await client.subscriptions.list({ customer: customer.id, limit: 100 })).data.length;

    const preview = await client.invoices.createPreview({
      customer: customer.id,
      subscription_details: {
        items: [{ price: seat.id, quantity: 3 }, { price_data: { currency: 'usd', product: product.id, unit_amount: 500, recurring: { interval: 'month' } } }],
      },
    });

    expect(preview).toMatchObject({ billing_reason: 'upcoming', parent: null, subtotal: 9300 + 500, total: 9800, customer: customer.id });
    const nextMonth = Math.floor(Date.UTC(year + 1, 1, 22) / 1000);
    expect(preview.lines.data.map((line) => [line.amount, line.quantity, line.period])).toEqual([
      [9300, 3, { start: changeAt, end: nextMonth }],
      [500, 1, { start: changeAt, end: nextMonth }],
    ]);
    expect(preview.lines.data[0]!.parent?.subscription_item_details).toMatchObject({ subscription: null, subscription_item: null, proration: false });
    expect((await client.prices.list({ limit: 100 })).data).toHaveLength(pricesBefore);
    expect((await client.subscriptions.list({ customer: customer.id, limit: 100 })).data).toHaveLength(subscriptionsBefore);

    const trial = await client.invoices.createPreview({
      customer: customer.id,
      subscription_details: { items: [{ price: seat.id }], trial_end: changeAt + 7 * day },
    });
    // Named as a real trial's first invoice names it.
    expect(trial.lines.data.map((line) => [line.amount, line.description])).toEqual([[0, `Trial period for ${product.id}`]]);
  });

  it('Given a preview of a change, when it is sent raw with the cost asked for, then it reads a handful of items and writes nothing', async () => {
    const sub = subs.errors;
    const answer = await api('POST', '/v1/invoices/create_preview', {
      key,
      headers: { 'x-local-aws-calls': 'measure' },
      form: form([
        ['subscription', sub.id],
        ['subscription_details[items][0][id]', sub.items.data[0]!.id],
        ['subscription_details[items][0][price]', proSeat.id],
        ['subscription_details[proration_date]', changeAt],
      ]),
    });
    expect(answer.status).toBe(200);
    expect(answer.body.lines.data.map((line: Stripe.InvoiceLineItem) => line.amount)).toEqual([12_400, -2000, 4000]);
    const cost = costOf(answer);
    // The one write a request may make is the key's rate counter (shared/http/rate-limit.ts), counted before
    // the handler runs: the preview itself writes nothing.
    const writes = cost.operations.filter((op) => /Put|Update|Delete|Transact|BatchWrite/.test(op));
    expect(writes).toEqual(writes.length === 0 ? [] : ['UpdateItem']);
    expect(cost.write).toBe(writes.length);
    // The key, the subscription, the customer (its clock), the clock, the new price, the product's name, the
    // pending items (a Query), the customer again for the balance: 8 calls measured, read by GetItem.
    expect(cost.calls).toBeLessThanOrEqual(writes.length + 8);
    console.info(`create_preview of a change: ${cost.calls} DynamoDB calls, ${cost.read} read units (${cost.operations.join(', ')})`);
  });

  it('Given wrong previews, when sent raw, then each is a 400 in the reference’s shape naming the parameter, and nothing changes', async () => {
    const sub = subs.errors;
    const itemId = sub.items.data[0]!.id;
    const send = (pairs: Array<[string, string | number]>, as = key) => api('POST', '/v1/invoices/create_preview', { key: as, form: form(pairs) });
    const error = (answer: { status: number; body: { error: Record<string, unknown> } }) => [answer.status, answer.body.error.code, answer.body.error.param];

    const unknownItem = await send([
      ['subscription', sub.id],
      ['subscription_details[items][0][id]', 'si_missing'],
      ['subscription_details[items][0][quantity]', 3],
    ]);
    expect(error(unknownItem)).toEqual([400, 'resource_missing', 'subscription_details[items][0][id]']);
    expect(unknownItem.body.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining('si_missing') });

    const other = await client.customers.create({ name: 'Someone else' });
    const notTheirs = await send([
      ['customer', other.id],
      ['subscription', sub.id],
    ]);
    expect(error(notTheirs)).toEqual([400, 'resource_missing', 'subscription']);

    const outside = await send([
      ['subscription', sub.id],
      ['subscription_details[items][0][id]', itemId],
      ['subscription_details[items][0][quantity]', 3],
      ['subscription_details[proration_date]', periodEnd + day],
    ]);
    expect(error(outside)).toEqual([400, 'parameter_invalid', 'subscription_details[proration_date]']);

    const withNone = await send([
      ['subscription', sub.id],
      ['subscription_details[items][0][id]', itemId],
      ['subscription_details[items][0][quantity]', 3],
      ['subscription_details[proration_behavior]', 'none'],
      ['subscription_details[proration_date]', changeAt],
    ]);
    expect(error(withNone)).toEqual([400, 'parameter_invalid', 'subscription_details[proration_date]']);

    const taxRates = await send([
      ['subscription', sub.id],
      ['subscription_details[items][0][id]', itemId],
      ['subscription_details[items][0][tax_rates][0]', 'txr_1'],
    ]);
    expect(taxRates.status).toBe(400);
    expect(taxRates.body.error).toMatchObject({ type: 'invalid_request_error', param: 'subscription_details[items][0][tax_rates]' });

    const anchorNow = await send([
      ['subscription', sub.id],
      ['subscription_details[billing_cycle_anchor]', 'now'],
    ]);
    expect(error(anchorNow)).toEqual([400, 'parameter_invalid', 'subscription_details[billing_cycle_anchor]']);

    const noItems = await send([
      ['customer', customer.id],
      ['subscription_details[cancel_at_period_end]', 'true'],
    ]);
    expect(error(noItems)).toEqual([400, 'parameter_missing', 'subscription_details[items]']);

    const stranger = (await newPlatform()).secret_key;
    const foreign = await send([['subscription', sub.id]], stranger);
    expect(error(foreign)).toEqual([400, 'resource_missing', 'subscription']);
    expect(foreign.body.error.message).toBe(`No such subscription: '${sub.id}'`);

    const tooLong = await send([['subscription', `sub_${'x'.repeat(3000)}`]]);
    expect(tooLong.status).toBe(400);

    expect(await pendingOf(sub.id)).toEqual([]);
    expect((await client.subscriptions.retrieve(sub.id)).items.data[0]!.quantity).toBe(2);
  });

  it('Given a subscription set to cancel at its period end in the preview, when nothing is prorated, then there is no upcoming invoice, as the reference answers', async () => {
    const answer = await sdkError(client.invoices.createPreview({ subscription: subs.errors.id, subscription_details: { cancel_at_period_end: true } }));
    expect(answer).toMatchObject({ type: 'StripeInvalidRequestError', code: 'invoice_upcoming_none' });
    expect((await client.subscriptions.retrieve(subs.errors.id)).cancel_at_period_end).toBe(false);
  });
});

/**
 * A metered item's running usage in a previewed change: the clock starts just before now, as meter event
 * timestamps are checked against the stack's clock and must fall in the subscription's period.
 */
describe('a previewed change of a subscription with a metered item, through the official SDK', () => {
  let client: Stripe;
  let customer: Stripe.Customer;
  let subscription: Stripe.Subscription;
  let meter: Stripe.Billing.Meter;
  let metered: Stripe.Price;
  let seat: Stripe.Price;
  let bigSeat: Stripe.Price;
  const start = nowSeconds() - 120;

  beforeAll(async () => {
    client = sdk((await newPlatform()).secret_key);
    meter = await client.billing.meters.create({ display_name: 'Calls', event_name: 'preview_calls', default_aggregation: { formula: 'sum' } });
    const product = await client.products.create({ name: 'Platform' });
    metered = await client.prices.create({
      product: product.id,
      currency: 'usd',
      unit_amount: 50,
      recurring: { interval: 'month', usage_type: 'metered', meter: meter.id },
    });
    seat = await client.prices.create({ product: product.id, currency: 'usd', unit_amount: 1000, recurring: { interval: 'month' } });
    bigSeat = await client.prices.create({ product: product.id, currency: 'usd', unit_amount: 3000, recurring: { interval: 'month' } });
    const clock = await client.testHelpers.testClocks.create({ frozen_time: start, name: 'Metered previews' });
    customer = await client.customers.create({ name: 'Metered preview', test_clock: clock.id, source: 'tok_visa' });
    subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: seat.id }, { price: metered.id }] });
    for (const [value, identifier] of [
      [3, 'preview-usage-1'],
      [4, 'preview-usage-2'],
    ] as const) {
      await client.billing.meterEvents.create({
        event_name: 'preview_calls',
        payload: { service_customer_id: customer.id, value: String(value) },
        identifier,
        timestamp: nowSeconds() - 10,
      });
    }
    await eventually(async () => {
      const summaries = await client.billing.meters.listEventSummaries(meter.id, {
        customer: customer.id,
        start_time: Math.floor(start / 60) * 60,
        end_time: (Math.floor(nowSeconds() / 60) + 1) * 60,
      });
      return summaries.data[0]?.aggregated_value === 7 ? true : undefined;
    }, 30_000);
  }, 120_000);

  it('Given usage of 3 and 4, when an upgrade of the licensed item is previewed, then the preview shows the running usage line of 7 at 350 with the prorations; applied, the prorations are the previewed ones', async () => {
    const seatItem = subscription.items.data.find((item) => item.price.id === seat.id)!.id;
    const prorationDate = start + 60;
    const details = { items: [{ id: seatItem, price: bigSeat.id }], proration_date: prorationDate };

    const preview = await client.invoices.createPreview({ subscription: subscription.id, subscription_details: details });

    const usage = preview.lines.data.find((line) => line.pricing?.price_details?.price === metered.id)!;
    expect(usage).toMatchObject({ quantity: 7, amount: 350, period: { start } });
    expect(
      preview.lines.data.find((line) => line.pricing?.price_details?.price === bigSeat.id && !line.parent?.subscription_item_details?.proration),
    ).toMatchObject({
      amount: 3000,
    });
    const prorations = prorationAmounts(preview);
    expect(prorations).toHaveLength(2);
    expect(prorations[0]).toBeLessThan(0);
    expect(preview.parent?.subscription_details?.subscription_proration_date).toBe(prorationDate);

    await client.subscriptions.update(subscription.id, details);
    const made = (await client.invoiceItems.list({ customer: customer.id, pending: true, limit: 100 })).data.map((item) => item.amount);
    expect(made.sort((a, b) => a - b)).toEqual([...prorations].sort((a, b) => a - b));
  });
});

/**
 * The legacy preview, `GET /v1/invoices/upcoming` with flat `subscription_*` parameters, as Debian's
 * stripe-python 5.0.0 sends it (`stripe.Invoice.upcoming`, no version header), and raw.
 */
describe('the legacy upcoming invoice (GET /v1/invoices/upcoming), through stripe-python 5.0.0 and raw', () => {
  let key: string;
  let client: Stripe;
  let subscription: Stripe.Subscription;

  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
    const customer = await client.customers.create({ name: 'Legacy preview', source: 'tok_visa' });
    const price = await client.prices.create({ currency: 'usd', unit_amount: 3100, recurring: { interval: 'month' }, product_data: { name: 'Legacy seats' } });
    subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id, quantity: 2 }] });
  });

  it('Given a subscription, when the old SDK previews a quantity change with subscription_items and subscription_proration_date, then it answers what create_preview answers with subscription_details', async () => {
    const itemId = subscription.items.data[0]!.id;
    const prorationDate = subscription.items.data[0]!.current_period_start + 3600;
    const result = await runPython<Record<string, any>>(
      `
upcoming = stripe.Invoice.upcoming(subscription=args['subscription'], subscription_items=[{'id': args['item'], 'quantity': 3}], subscription_proration_date=args['date'])
missing = None
try:
    stripe.Invoice.upcoming(subscription=args['subscription'], subscription_items=[{'id': 'si_missing', 'quantity': 3}])
except stripe.error.InvalidRequestError as error:
    missing = {'param': error.param, 'code': error.code, 'status': error.http_status}
return {'upcoming': upcoming, 'missing': missing}
`,
      { subscription: subscription.id, item: itemId, date: prorationDate },
      // An integration of stripe-python 5's time, pinned to a version of its time: answered in that version's shape.
      { key, apiVersion: '2022-11-15' },
    );
    const preview = await client.invoices.createPreview({
      subscription: subscription.id,
      subscription_details: { items: [{ id: itemId, quantity: 3 }], proration_date: prorationDate },
    });
    const amounts = (lines: Array<{ amount: number }>) => lines.map((line) => line.amount);
    expect(result.upcoming).toMatchObject({ object: 'invoice', total: preview.total, subscription: subscription.id, billing_reason: 'upcoming' });
    expect(amounts(result.upcoming.lines.data)).toEqual(amounts(preview.lines.data));
    expect(result.upcoming.lines.data.filter((line: { proration: boolean }) => line.proration)).toHaveLength(2);
    expect(result.missing).toEqual({ param: 'subscription_items[0][id]', code: 'resource_missing', status: 400 });
  });

  it('Given the raw legacy form, when a parameter of the new form or an unknown one is sent, then it is a 400 naming it; nothing changes', async () => {
    const query = (pairs: Array<[string, string | number]>) => api('GET', `/v1/invoices/upcoming?${form(pairs)}`, { key });
    const fine = await query([
      ['subscription', subscription.id],
      ['subscription_cancel_at_period_end', 'true'],
      ['subscription_items[0][id]', subscription.items.data[0]!.id],
      ['subscription_items[0][quantity]', 1],
    ]);
    expect(fine.status).toBe(200);
    expect(
      fine.body.lines.data.every((line: { parent: { subscription_item_details: { proration: boolean } } }) => line.parent.subscription_item_details.proration),
    ).toBe(true);
    const modern = await query([
      ['subscription', subscription.id],
      ['subscription_details[cancel_at_period_end]', 'true'],
    ]);
    expect(modern.status).toBe(400);
    expect(modern.body.error).toMatchObject({ type: 'invalid_request_error', param: 'subscription_details' });
    const outside = await query([
      ['subscription', subscription.id],
      ['subscription_items[0][id]', subscription.items.data[0]!.id],
      ['subscription_items[0][quantity]', 3],
      ['subscription_proration_date', 1],
    ]);
    expect([outside.status, outside.body.error.param]).toEqual([400, 'subscription_proration_date']);
    expect((await client.subscriptions.retrieve(subscription.id)).items.data[0]!.quantity).toBe(2);
    expect((await client.invoiceItems.list({ customer: subscription.customer as string, pending: true })).data).toEqual([]);
  });
});
