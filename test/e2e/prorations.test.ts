import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';

const day = 86_400;
const year = new Date().getUTCFullYear();

/**
 * Prorations through the official SDK, on a test clock: a monthly 31.00 × 2 subscription started on 1 January
 * (a 31-day period) is changed 21 days in, with 10 days (10/31 of the period) left, so every line is a
 * whole amount: 31.00 × 10/31 = 10.00 per seat.
 */
describe('prorations, through the official SDK', () => {
  let client: Stripe;
  let key: string;
  let clock: Stripe.TestHelpers.TestClock;
  let customer: Stripe.Customer;
  let subscription: Stripe.Subscription;
  let itemId: string;
  const start = Math.floor(Date.UTC(year + 1, 0, 1) / 1000);
  const changeAt = start + 21 * day;
  const periodEnd = Math.floor(Date.UTC(year + 1, 1, 1) / 1000);

  const pending = async () => (await client.invoiceItems.list({ customer: customer.id, pending: true, limit: 100 })).data.reverse();
  const eventsOf = async (type: string) => (await client.events.list({ type, limit: 100 })).data;

  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
    clock = await client.testHelpers.testClocks.create({ frozen_time: start, name: 'Prorations' });
    customer = await client.customers.create({ name: 'Prorated', test_clock: clock.id, source: 'tok_visa' });
    const product = await client.products.create({ name: 'Seats' });
    const price = await client.prices.create({ product: product.id, unit_amount: 3100, currency: 'usd', recurring: { interval: 'month' }, nickname: 'Seat' });
    subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id, quantity: 2 }] });
    itemId = subscription.items.data[0]!.id;
    expect(subscription).toMatchObject({ status: 'active' });
    await client.testHelpers.testClocks.advance(clock.id, { frozen_time: changeAt });
    clock = await eventually(async () => {
      const current = await client.testHelpers.testClocks.retrieve(clock.id);
      return current.status === 'ready' ? current : undefined;
    }, 60_000);
  });

  it('Given 10 of 31 days left, when the quantity goes from 2 to 3 with the default proration_behavior, then two pending proration items credit the unused 2 seats and charge the remaining 3', async () => {
    const updated = await client.subscriptions.update(subscription.id, { items: [{ id: itemId, quantity: 3 }] });
    expect(updated.items.data[0]!.quantity).toBe(3);
    const items = await pending();
    expect(items).toMatchObject([
      {
        object: 'invoiceitem',
        amount: -2000,
        quantity: 2,
        proration: true,
        invoice: null,
        currency: 'usd',
        description: `Unused time on 2 × Seats after ${new Date(changeAt * 1000).toUTCString().slice(5, 16)}`,
        period: { start: changeAt, end: periodEnd },
        parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id, subscription_item: itemId } },
        test_clock: clock.id,
        date: changeAt,
      },
      {
        amount: 3000,
        quantity: 3,
        proration: true,
        description: `Remaining time on 3 × Seats after ${new Date(changeAt * 1000).toUTCString().slice(5, 16)}`,
        period: { start: changeAt, end: periodEnd },
      },
    ]);
    const created = (await eventsOf('invoiceitem.created')).map((event) => (event.data.object as Stripe.InvoiceItem).id);
    expect(created).toEqual(expect.arrayContaining(items.map((item) => item.id)));
  });

  it('Given proration_behavior=none, when the quantity changes, then no invoice item is made', async () => {
    const before = (await pending()).length;
    const changed = await client.subscriptionItems.update(itemId, { quantity: 4, proration_behavior: 'none' });
    expect(changed.quantity).toBe(4);
    expect(await pending()).toHaveLength(before);
    await client.subscriptionItems.update(itemId, { quantity: 3, proration_behavior: 'none' });
  });

  it('Given always_invoice, when the quantity goes up from 3 to 5, then an invoice (subscription_update) takes every pending proration at once and is charged to the card', async () => {
    await client.subscriptionItems.update(itemId, { quantity: 5, proration_behavior: 'always_invoice' });
    expect(await pending()).toEqual([]);
    const invoices = (await client.invoices.list({ subscription: subscription.id, limit: 10 })).data;
    const invoice = invoices.find((found) => found.billing_reason === 'subscription_update')!;
    // The earlier pending change (-2000 + 3000) and this one (-3000 + 5000).
    expect(invoice.lines.data.map((line) => line.amount).sort((a, b) => a - b)).toEqual([-3000, -2000, 3000, 5000]);
    expect(invoice).toMatchObject({ status: 'paid', subtotal: 3000, total: 3000, amount_due: 3000, amount_paid: 3000, customer: customer.id });
    expect((await client.subscriptions.retrieve(subscription.id)).latest_invoice).toBe(invoice.id);
    expect(invoice.lines.data.map((line) => line.parent)).toEqual(
      invoice.lines.data.map(() =>
        expect.objectContaining({
          type: 'subscription_item_details',
          subscription_item_details: expect.objectContaining({
            proration: true,
            subscription: subscription.id,
            subscription_item: itemId,
            invoice_item: expect.stringMatching(/^ii_/),
          }),
        }),
      ),
    );
    // An SDK pinned before 2025-03-31.basil sees each as the invoice item line it was then.
    const old = sdk(key, { apiVersion: '2024-06-20' as Stripe.LatestApiVersion });
    const oldLines = (await old.invoices.listLineItems(invoice.id!)).data as unknown as Array<Record<string, unknown>>;
    expect(oldLines.map((line) => [line.type, line.proration, line.subscription_item, typeof line.invoice_item])).toEqual(
      oldLines.map(() => ['invoiceitem', true, itemId, 'string']),
    );
    const types = new Set(
      (await client.events.list({ limit: 100 })).data.filter((event) => (event.data.object as { id?: string }).id === invoice.id).map((event) => event.type),
    );
    expect([...types]).toEqual(expect.arrayContaining(['invoice.created', 'invoice.finalized', 'invoice.paid']));
  });

  it('Given always_invoice, when the quantity goes down from 5 to 1, then the invoice comes to a credit: nothing is charged and the credit goes to the customer’s balance', async () => {
    await client.subscriptionItems.update(itemId, { quantity: 1, proration_behavior: 'always_invoice' });
    const invoices = (await client.invoices.list({ subscription: subscription.id, limit: 10 })).data.filter(
      (found) => found.billing_reason === 'subscription_update',
    );
    const credit = invoices.find((found) => found.total < 0)!;
    expect(credit).toMatchObject({ status: 'paid', total: -4000, amount_due: 0, amount_paid: 0, starting_balance: 0, ending_balance: -4000 });
    expect((await client.customers.retrieve(customer.id)) as Stripe.Customer).toMatchObject({ balance: -4000 });
  });

  it('Given a proration_date outside the current period, when a change asks for it, then it is a 400 naming proration_date and nothing changes', async () => {
    const answer = await api('POST', `/v1/subscription_items/${itemId}`, { key, form: `quantity=7&proration_date=${periodEnd + day}` });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { type: 'invalid_request_error', param: 'proration_date' } });
    expect((await client.subscriptionItems.retrieve(itemId)).quantity).toBe(1);
  });

  it('Given the subscription, when canceled with prorate and invoice_now, then the unused time is credited on a final invoice and the credit joins the customer’s balance', async () => {
    const canceled = await client.subscriptions.cancel(subscription.id, { prorate: true, invoice_now: true });
    expect(canceled.status).toBe('canceled');
    const final = (await client.invoices.list({ subscription: subscription.id, limit: 10 })).data.find(
      (found) => found.billing_reason === 'subscription_cycle',
    )!;
    expect(final.lines.data).toMatchObject([{ amount: -1000, period: { start: changeAt, end: periodEnd } }]);
    expect(final).toMatchObject({ status: 'paid', total: -1000, amount_due: 0, starting_balance: -4000, ending_balance: -5000 });
    expect((await client.subscriptions.retrieve(subscription.id)).latest_invoice).toBe(final.id);
    expect((await client.customers.retrieve(customer.id)) as Stripe.Customer).toMatchObject({ balance: -5000 });
    expect(await pending()).toEqual([]);
  });

  it('Given pending prorations, when the subscription is canceled with neither prorate nor invoice_now, then they are removed with it (invoiceitem.deleted)', async () => {
    const price = subscription.items.data[0]!.price.id;
    const other = await client.subscriptions.create({ customer: customer.id, items: [{ price, quantity: 1 }] });
    await client.subscriptions.update(other.id, { items: [{ id: other.items.data[0]!.id, quantity: 2 }] });
    const made = (await pending()).filter((item) => item.parent?.subscription_details?.subscription === other.id);
    expect(made.map((item) => item.amount)).toEqual([-3100, 6200]);
    await client.subscriptions.cancel(other.id);
    expect((await pending()).filter((item) => item.parent?.subscription_details?.subscription === other.id)).toEqual([]);
    const deleted = (await eventsOf('invoiceitem.deleted')).map((event) => (event.data.object as Stripe.InvoiceItem).id);
    expect(deleted).toEqual(expect.arrayContaining(made.map((item) => item.id)));
  });
});
