import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';

/** The events of one type about one object, newest first. */
async function eventsAbout(client: Stripe, type: string, id: string): Promise<Stripe.Event[]> {
  const page = await client.events.list({ type, limit: 100 });
  return page.data.filter((event) => (event.data.object as { id?: string }).id === id);
}

describe('invoice items and invoices through the official SDK', () => {
  let client: Stripe;
  let key: string;
  let customer: Stripe.Customer;
  let oneTime: Stripe.Price;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    key = (await newPlatform()).secret_key;
    client = sdk(key);
    customer = await client.customers.create({ name: 'Invoiced' });
    const product = await client.products.create({ name: 'Setup' });
    oneTime = await client.prices.create({ product: product.id, unit_amount: 2500, currency: 'usd' });
  });
  afterAll(() => receiver.stop());

  it('delivers invoice events to a webhook endpoint, signed so that the SDK’s constructEvent verifies them', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: receiver.url, enabled_events: ['invoice.finalized', 'invoice.paid', 'invoiceitem.created'] });
    const payer = await client.customers.create({ name: 'Hooked' });
    await client.invoiceItems.create({ customer: payer.id, amount: 300, currency: 'usd' });
    const draft = await client.invoices.create({ customer: payer.id, pending_invoice_items_behavior: 'include', collection_method: 'send_invoice' });
    await client.invoices.finalizeInvoice(draft.id);
    await client.invoices.pay(draft.id, { paid_out_of_band: true });
    const delivered = await receiver.waitFor(3);
    const events = delivered.map((request) => client.webhooks.constructEvent(request.body, request.headers['service-signature'] as string, endpoint.secret!));
    expect(events.map((event) => event.type).sort()).toEqual(['invoice.finalized', 'invoice.paid', 'invoiceitem.created']);
    const paid = events.find((event) => event.type === 'invoice.paid')!;
    expect(paid.data.object).toMatchObject({ id: draft.id, object: 'invoice', status: 'paid', amount_paid: 300 });
    expect(paid.data.previous_attributes).toMatchObject({ status: 'open' });
    await client.webhookEndpoints.del(endpoint.id);
  });

  it('Given a customer, when invoice items are created from an amount, a price and a decimal unit amount, then each is pending with exact amounts and an invoiceitem.created event', async () => {
    const fromAmount = await client.invoiceItems.create({ customer: customer.id, amount: 1000, currency: 'usd', description: 'Consulting' });
    expect(fromAmount).toMatchObject({
      object: 'invoiceitem',
      amount: 1000,
      currency: 'usd',
      invoice: null,
      quantity: 1,
      customer: customer.id,
      test_clock: null,
    });
    const fromPrice = await client.invoiceItems.create({ customer: customer.id, pricing: { price: oneTime.id }, quantity: 3 });
    expect(fromPrice).toMatchObject({ amount: 7500, quantity: 3, pricing: { price_details: { price: oneTime.id } } });
    const decimal = await client.invoiceItems.create({
      customer: customer.id,
      unit_amount_decimal: '0.5' as unknown as Stripe.Decimal,
      quantity: 3,
      currency: 'usd',
      period: { start: 1_700_000_000, end: 1_700_086_400 },
    });
    // 0.5 × 3 = 1.5, rounded half up.
    expect(decimal).toMatchObject({ amount: 2, period: { start: 1_700_000_000, end: 1_700_086_400 } });
    expect(await client.invoiceItems.retrieve(fromAmount.id)).toMatchObject({ id: fromAmount.id, amount: 1000 });
    const pending = await client.invoiceItems.list({ customer: customer.id, pending: true });
    expect(pending.data.map((item) => item.id)).toEqual([decimal.id, fromPrice.id, fromAmount.id]);
    expect(await eventsAbout(client, 'invoiceitem.created', fromAmount.id)).toHaveLength(1);
    const updated = await client.invoiceItems.update(fromPrice.id, { quantity: 2, metadata: { seats: '2' } });
    expect(updated).toMatchObject({ amount: 5000, quantity: 2, metadata: { seats: '2' } });
    expect(await eventsAbout(client, 'invoiceitem.updated', fromPrice.id)).toHaveLength(1);
    expect(await client.invoiceItems.del(decimal.id)).toEqual({ id: decimal.id, object: 'invoiceitem', deleted: true });
    expect(await eventsAbout(client, 'invoiceitem.deleted', decimal.id)).toHaveLength(1);
    await expect(client.invoiceItems.retrieve(decimal.id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('refuses invoice items without a customer, with two amounts, with an unknown price or a recurring one, and unknown parameters', async () => {
    await expect(client.invoiceItems.create({ amount: 1, currency: 'usd' } as never)).rejects.toMatchObject({ statusCode: 400, param: 'customer' });
    await expect(client.invoiceItems.create({ customer: customer.id, amount: 1, pricing: { price: oneTime.id } })).rejects.toMatchObject({ statusCode: 400 });
    await expect(client.invoiceItems.create({ customer: customer.id, pricing: { price: 'price_missing' } })).rejects.toMatchObject({
      statusCode: 400,
      param: 'price',
      code: 'resource_missing',
    });
    await expect(client.invoiceItems.create({ customer: 'cus_missing', amount: 1, currency: 'usd' })).rejects.toMatchObject({
      statusCode: 400,
      param: 'customer',
    });
    await expect(client.invoiceItems.create({ customer: customer.id, amount: 1, currency: 'usd', bogus: 1 } as never)).rejects.toMatchObject({
      statusCode: 400,
    });
  });

  it('Given pending items, when an invoice is created with pending_invoice_items_behavior=include, then they join it, the invoice is a draft with totals, and finalizing numbers it', async () => {
    const buyer = await client.customers.create({ name: 'Buyer', balance: -300 });
    const a = await client.invoiceItems.create({ customer: buyer.id, amount: 1200, currency: 'usd' });
    const b = await client.invoiceItems.create({ customer: buyer.id, amount: 800, currency: 'usd' });
    const draft = await client.invoices.create({
      customer: buyer.id,
      pending_invoice_items_behavior: 'include',
      collection_method: 'send_invoice',
      days_until_due: 14,
    });
    expect(draft).toMatchObject({
      object: 'invoice',
      status: 'draft',
      number: null,
      subtotal: 2000,
      total: 2000,
      amount_due: 2000,
      amount_paid: 0,
      amount_remaining: 2000,
      starting_balance: 0,
      ending_balance: null,
      auto_advance: true,
      collection_method: 'send_invoice',
      billing_reason: 'manual',
      lines: { object: 'list', total_count: 2 },
    });
    expect(draft.automatically_finalizes_at).toBe(draft.created + 3600);
    expect(await client.invoiceItems.retrieve(a.id)).toMatchObject({ invoice: draft.id });
    expect((await client.invoiceItems.list({ customer: buyer.id, pending: true })).data).toEqual([]);
    expect((await client.invoiceItems.list({ invoice: draft.id })).data.map((item) => item.id).sort()).toEqual([a.id, b.id].sort());
    const lines = await client.invoices.listLineItems(draft.id, { limit: 1 });
    expect(lines).toMatchObject({
      object: 'list',
      has_more: true,
      data: [{ object: 'line_item', amount: 1200, parent: { invoice_item_details: { invoice_item: a.id } } }],
    });
    const next = await client.invoices.listLineItems(draft.id, { starting_after: lines.data[0]!.id });
    expect(next.data.map((line) => line.amount)).toEqual([800]);

    const finalized = await client.invoices.finalizeInvoice(draft.id);
    expect(finalized).toMatchObject({ status: 'open', starting_balance: -300, ending_balance: 0, amount_due: 1700, amount_remaining: 1700 });
    expect(finalized.number).toBe(`${buyer.invoice_prefix}-0001`);
    expect(finalized.due_date).toBe(finalized.status_transitions.finalized_at! + 14 * 86_400);
    expect(await client.customers.retrieve(buyer.id)).toMatchObject({ balance: 0 });
    await expect(client.invoices.finalizeInvoice(draft.id)).rejects.toMatchObject({ statusCode: 400 });
    await expect(client.invoices.del(draft.id)).rejects.toMatchObject({ statusCode: 400 });
    await expect(client.invoiceItems.update(a.id, { amount: 1 })).rejects.toMatchObject({ statusCode: 400, code: 'invoice_not_editable' });
    await expect(client.invoices.update(draft.id, { days_until_due: 3 })).rejects.toMatchObject({ statusCode: 400, param: 'days_until_due' });
    expect(await client.invoices.update(draft.id, { metadata: { po: '7' } })).toMatchObject({ metadata: { po: '7' } });

    const sent = await client.invoices.sendInvoice(draft.id);
    await expect(client.invoices.sendInvoice((await client.invoices.create({ customer: buyer.id, auto_advance: false })).id)).rejects.toMatchObject({
      statusCode: 400,
    });
    expect(sent.status).toBe('open');
    const paid = await client.invoices.pay(draft.id, { paid_out_of_band: true });
    expect(paid).toMatchObject({ status: 'paid', amount_paid: 1700, amount_remaining: 0 });
    expect(paid.status_transitions.paid_at).not.toBeNull();
    await expect(client.invoices.pay(draft.id)).rejects.toMatchObject({ statusCode: 400, code: 'invoice_already_paid' });
    await expect(client.invoices.voidInvoice(draft.id)).rejects.toMatchObject({ statusCode: 400 });
    for (const type of ['invoice.created', 'invoice.finalized', 'invoice.updated', 'invoice.sent', 'invoice.paid', 'invoice.payment_succeeded'])
      expect(await eventsAbout(client, type, draft.id), type).not.toHaveLength(0);

    // The second invoice of the customer takes the next number.
    await client.invoiceItems.create({ customer: buyer.id, amount: 500, currency: 'usd' });
    const second = await client.invoices.create({ customer: buyer.id, pending_invoice_items_behavior: 'include', collection_method: 'send_invoice' });
    expect((await client.invoices.finalizeInvoice(second.id)).number).toBe(`${buyer.invoice_prefix}-0002`);
    const voided = await client.invoices.voidInvoice(second.id);
    expect(voided).toMatchObject({ status: 'void' });
    expect(voided.status_transitions.voided_at).not.toBeNull();
    expect(await eventsAbout(client, 'invoice.voided', second.id)).toHaveLength(1);
  });

  it('Given a charge_automatically invoice of a customer without a payment source, when finalized, then the payment fails and invoice.payment_failed is sent; mark_uncollectible ends it', async () => {
    await client.invoiceItems.create({ customer: customer.id, amount: 900, currency: 'eur' });
    const draft = await client.invoices.create({ customer: customer.id, currency: 'eur', pending_invoice_items_behavior: 'include' });
    expect(draft).toMatchObject({ currency: 'eur', total: 900, collection_method: 'charge_automatically', due_date: null });
    const open = await client.invoices.finalizeInvoice(draft.id);
    expect(open).toMatchObject({ status: 'open', attempted: true, attempt_count: 1, amount_paid: 0 });
    expect(await eventsAbout(client, 'invoice.payment_failed', draft.id)).toHaveLength(1);
    // Paying now tries again (the claim, then the outcome) and answers the failure (the customer has no source, so
    // not a card error); the invoice counts the try.
    const failure = await client.invoices.pay(draft.id).catch((error: Stripe.errors.StripeError) => error);
    expect(failure).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError' });
    const tried = await client.invoices.retrieve(draft.id);
    expect(tried).toMatchObject({ status: 'open', attempt_count: 2, next_payment_attempt: null });
    expect((tried as unknown as { last_payment_error: { code: string } }).last_payment_error.code).toBe((failure as Stripe.errors.StripeError).code);
    const uncollectible = await client.invoices.markUncollectible(draft.id);
    expect(uncollectible.status).toBe('uncollectible');
    expect(await eventsAbout(client, 'invoice.marked_uncollectible', draft.id)).toHaveLength(1);
    await expect(client.invoices.markUncollectible(draft.id)).rejects.toMatchObject({ statusCode: 400 });
    expect(await client.invoices.pay(draft.id, { paid_out_of_band: true })).toMatchObject({ status: 'paid' });
  });

  it('A zero invoice is paid at finalization; a draft is deleted and its items become pending again', async () => {
    const empty = await client.invoices.create({ customer: customer.id, auto_advance: false });
    const paid = await client.invoices.finalizeInvoice(empty.id);
    expect(paid).toMatchObject({ status: 'paid', amount_due: 0, auto_advance: false });
    const item = await client.invoiceItems.create({ customer: customer.id, amount: 100, currency: 'gbp' });
    const draft = await client.invoices.create({ customer: customer.id, currency: 'gbp', pending_invoice_items_behavior: 'include' });
    expect(draft.total).toBe(100);
    const added = await client.invoiceItems.create({ customer: customer.id, invoice: draft.id, amount: 50, currency: 'gbp' });
    expect(added.invoice).toBe(draft.id);
    expect((await client.invoices.retrieve(draft.id)).total).toBe(150);
    await client.invoiceItems.del(added.id);
    expect((await client.invoices.retrieve(draft.id)).total).toBe(100);
    expect(await client.invoices.del(draft.id)).toEqual({ id: draft.id, object: 'invoice', deleted: true });
    expect(await eventsAbout(client, 'invoice.deleted', draft.id)).toHaveLength(1);
    expect(await client.invoiceItems.retrieve(item.id)).toMatchObject({ invoice: null });
    await expect(client.invoices.retrieve(draft.id)).rejects.toMatchObject({ statusCode: 404 });
  });

  it('lists invoices by customer, status and collection method, and previews pending items', async () => {
    const shopper = await client.customers.create({ name: 'Shopper' });
    const manual = await client.invoices.create({ customer: shopper.id, collection_method: 'send_invoice', due_date: Math.floor(Date.now() / 1000) + 86_400 });
    const auto = await client.invoices.create({ customer: shopper.id });
    expect((await client.invoices.list({ customer: shopper.id })).data.map((invoice) => invoice.id)).toEqual([auto.id, manual.id]);
    expect((await client.invoices.list({ customer: shopper.id, collection_method: 'send_invoice' })).data.map((invoice) => invoice.id)).toEqual([manual.id]);
    expect((await client.invoices.list({ customer: shopper.id, status: 'open' })).data).toEqual([]);
    expect((await client.invoices.list({ customer: shopper.id, due_date: manual.due_date! })).data.map((invoice) => invoice.id)).toEqual([manual.id]);
    await client.invoiceItems.create({ customer: shopper.id, amount: 4200, currency: 'usd' });
    const preview = await client.invoices.createPreview({ customer: shopper.id });
    expect(preview).toMatchObject({ object: 'invoice', status: 'draft', total: 4200, amount_due: 4200, customer: shopper.id });
    expect((await client.invoiceItems.list({ customer: shopper.id, pending: true })).data).toHaveLength(1);
    await expect(client.invoices.create({ customer: shopper.id, days_until_due: 3 })).rejects.toMatchObject({ statusCode: 400, param: 'days_until_due' });
    await expect(client.invoices.create({ customer: shopper.id, subscription: 'sub_1' })).rejects.toMatchObject({ statusCode: 400, param: 'subscription' });
  });

  it('Given an integration pinned to a version before 2025-03-31.basil, invoices, items and lines show subscription, discount and type at the top level instead of parent', async () => {
    const old = sdk(key, { apiVersion: '2024-06-20' as Stripe.LatestApiVersion });
    const item = await old.invoiceItems.create({ customer: customer.id, amount: 120, currency: 'chf' });
    expect(item).toMatchObject({ subscription: null, subscription_item: null });
    expect(item).not.toHaveProperty('parent');
    const draft = await old.invoices.create({ customer: customer.id, currency: 'chf', pending_invoice_items_behavior: 'include', auto_advance: false });
    expect(draft).toMatchObject({ subscription: null, subscription_details: null, quote: null, discount: null, total: 120 });
    expect(draft).not.toHaveProperty('parent');
    expect(draft.lines.data[0]).toMatchObject({ type: 'invoiceitem', invoice_item: item.id, proration: false, subscription: null });
    await old.invoices.del(draft.id);
  });

  it('answers the wire form of a list with an unknown filter with a 400 naming it', async () => {
    const answer = await api('GET', '/v1/invoices?colour=red', { key });
    expect(answer.status).toBe(400);
    expect(answer.body.error.param).toBe('colour');
  });
});
