import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { newPlatform, sdk } from '../support/stack.ts';
import { runPython, type PythonSdkError } from '../support/python-sdk.ts';

/**
 * An older integration in another language: Debian's stripe-python 5.0.0 pointed at the service with
 * `stripe.api_base`. It sends Python's `True`/`False` for every boolean, in form bodies and query strings.
 */
describe("stripe-python 5.0.0 (Debian's python3-stripe) against the service", () => {
  let key: string;
  let client: Stripe;
  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
  });

  it('makes boolean-carrying calls on products, prices and webhook endpoints, in bodies and query strings', async () => {
    // When an older Python integration creates, updates and lists with booleans
    const result = await runPython(
      `
product = stripe.Product.create(name='Py', active=False, shippable=True)
reactivated = stripe.Product.modify(product.id, active=True, shippable=False)
archived = stripe.Product.create(name='Py archived', active=False)
active_ids = [p.id for p in stripe.Product.list(active=True, limit=100).data]
archived_ids = [p.id for p in stripe.Product.list(active=False, limit=100).data]
price = stripe.Price.create(currency='usd', unit_amount=500, product_data={'name': 'Py inline', 'active': False},
                            active=True, lookup_key=args['lookup_key'], transfer_lookup_key=True)
inline = stripe.Product.retrieve(price.product)
retired = stripe.Price.modify(price.id, active=False)
inactive_prices = [p.id for p in stripe.Price.list(active=False, limit=100).data]
endpoint = stripe.WebhookEndpoint.create(url='https://example.test/hook', enabled_events=['product.created'], connect=False)
disabled = stripe.WebhookEndpoint.modify(endpoint.id, disabled=True)
enabled = stripe.WebhookEndpoint.modify(endpoint.id, disabled=False)
return {'product': product, 'reactivated': reactivated, 'archived': archived.id, 'active_ids': active_ids,
        'archived_ids': archived_ids, 'price': price, 'inline': inline, 'retired': retired,
        'inactive_prices': inactive_prices, 'endpoint': endpoint, 'disabled': disabled.status, 'enabled': enabled.status}
`,
      { lookup_key: 'py-lookup' },
      { key },
    );
    // Then each boolean was read as sent
    expect(result.product).toMatchObject({ object: 'product', active: false, shippable: true });
    expect(result.reactivated).toMatchObject({ active: true, shippable: false });
    expect(result.active_ids).toContain(result.product.id);
    expect(result.active_ids).not.toContain(result.archived);
    expect(result.archived_ids).toContain(result.archived);
    expect(result.archived_ids).not.toContain(result.product.id);
    expect(result.price).toMatchObject({ object: 'price', active: true, lookup_key: 'py-lookup' });
    expect(result.inline).toMatchObject({ name: 'Py inline', active: false });
    expect(result.retired.active).toBe(false);
    expect(result.inactive_prices).toContain(result.price.id);
    expect(result.endpoint).toMatchObject({ object: 'webhook_endpoint', status: 'enabled' });
    expect([result.disabled, result.enabled]).toEqual(['disabled', 'enabled']);
    // And the Node SDK sees the same state
    expect(await client.products.retrieve(result.product.id)).toMatchObject({ active: true, shippable: false });
  });

  it('makes boolean-carrying calls on tokens, customers and subscriptions', async () => {
    // Given a recurring price made through the Node SDK
    const price = await client.prices.create({ currency: 'usd', unit_amount: 900, recurring: { interval: 'month' }, product_data: { name: 'Py plan' } });
    // When the Python SDK sends nested booleans and subscription booleans
    const result = await runPython(
      `
person = stripe.Token.create(person={'first_name': 'Ada', 'relationship': {'owner': True, 'director': False, 'percent_ownership': 60}})
account = stripe.Token.create(account={'business_type': 'individual', 'tos_shown_and_accepted': True,
                                       'individual': {'first_name': 'Ada', 'relationship': {'owner': True, 'executive': False}}})
customer = stripe.Customer.create(email='py@example.test')
card = stripe.Token.create(card={'number': '4242424242424242', 'exp_month': 12, 'exp_year': 2040, 'cvc': '123'})
source = stripe.Customer.create_source(customer.id, source=card.id, validate=True)
subscription = stripe.Subscription.create(customer=customer.id, items=[{'price': args['price']}], cancel_at_period_end=True)
resumed = stripe.Subscription.modify(subscription.id, cancel_at_period_end=False)
canceled = stripe.Subscription.delete(subscription.id, invoice_now=False, prorate=False)
return {'person': person, 'account': account, 'source': source, 'subscription': subscription, 'resumed': resumed,
        'canceled': canceled}
`,
      { price: price.id },
      { key },
    );
    // Then every call succeeded with the booleans it sent
    expect(result.person).toMatchObject({ object: 'token', type: 'person' });
    expect(result.account).toMatchObject({ object: 'token', type: 'account' });
    expect(result.source).toMatchObject({ object: 'card', last4: '4242' });
    expect(result.subscription).toMatchObject({ object: 'subscription', cancel_at_period_end: true });
    expect(result.resumed.cancel_at_period_end).toBe(false);
    expect(result.canceled).toMatchObject({ id: result.subscription.id, status: 'canceled' });

    // And a word that is no boolean is the documented 400, which the old SDK raises as its InvalidRequestError
    const refused = await runPython<PythonSdkError>("return stripe.Product.create(name='Py refused', active=args['active'])", { active: 'yes' }, { key });
    expect(refused.error).toEqual({
      class: 'InvalidRequestError',
      http_status: 400,
      code: 'parameter_invalid',
      param: 'active',
      message: 'Invalid active: must be true or false',
      type: 'invalid_request_error',
    });
  });
});

describe('stripe-python 5.0.0 reading what older integrations read', () => {
  let key: string;
  let client: Stripe;
  beforeAll(async () => {
    key = (await newPlatform()).secret_key;
    client = sdk(key);
  });

  it('finds customers by email, searches them page by page, and retrieves a deleted one in its deleted form', async () => {
    // Given customers made through the Node SDK, one of them deleted
    const tag = `py${Date.now()}`;
    const made = [];
    for (let i = 0; i < 5; i++) made.push(await client.customers.create({ email: `${tag}-${i}@example.test`, name: `Py ${tag}`, metadata: { tag } }));
    const gone = made[4]!;
    await client.customers.del(gone.id);
    // When the Python SDK lists by email, searches with auto-pagination and retrieves the deleted customer
    const result = await runPython(
      `
by_email = stripe.Customer.list(email=args['email']).data
found = [c.id for c in stripe.Customer.search(query="metadata['tag']:'%s'" % args['tag'], limit=2).auto_paging_iter()]
deleted = stripe.Customer.retrieve(args['gone'])
try:
    stripe.Customer.modify(args['gone'], name='again')
    update = 'accepted'
except stripe.error.InvalidRequestError as error:
    update = {'status': error.http_status, 'code': error.code}
return {'by_email': [c.id for c in by_email], 'found': found, 'deleted': deleted, 'update': update}
`,
      { email: `${tag}-1@example.test`, tag, gone: gone.id },
      { key },
    );
    // Then the email filter found exactly one, the search walked every page (the deleted one left out), newest first
    expect(result.by_email).toEqual([made[1]!.id]);
    expect(result.found).toEqual(
      made
        .slice(0, 4)
        .map((customer) => customer.id)
        .reverse(),
    );
    // And the deleted customer reads as the reference's deleted form; updating it is "No such customer"
    expect(result.deleted).toEqual({ id: gone.id, object: 'customer', deleted: true });
    expect(result.update).toEqual({ status: 404, code: 'resource_missing' });
  });

  it('pinned to 2022-11-15, reads the subscription period on the subscription and expands its customer and product', async () => {
    // Given a subscription made through the Node SDK
    const customer = await client.customers.create({ email: 'py-pinned@example.test' });
    const price = await client.prices.create({ currency: 'usd', unit_amount: 700, recurring: { interval: 'month' }, product_data: { name: 'Py pinned' } });
    const subscription = await client.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
    // When an integration pinned to 2022-11-15 reads it, expanding the customer and the item's product
    const result = await runPython(
      `
sub = stripe.Subscription.retrieve(args['id'], expand=['customer', 'items.data.price.product'])
item = sub['items']['data'][0]
return {'version': sub.last_response.headers.get('Service-Version'), 'start': sub.get('current_period_start'),
        'end': sub.get('current_period_end'), 'item_end': item.get('current_period_end'), 'customer': sub.customer.id,
        'email': sub.customer.email, 'product': item.price.product.name, 'billing_mode': sub.get('billing_mode')}
`,
      { id: subscription.id },
      { key, apiVersion: '2022-11-15' },
    );
    // Then the period sits on the subscription, as it did before basil, and the item carries none
    const item = subscription.items.data[0]!;
    expect(result).toMatchObject({ version: '2022-11-15', start: item.current_period_start, end: item.current_period_end, item_end: null });
    // And the expansions and the older billing_mode string came through
    expect(result).toMatchObject({ customer: customer.id, email: 'py-pinned@example.test', product: 'Py pinned', billing_mode: 'classic' });
  });
  it('creates, advances, lists and deletes a test clock, with a customer on it', async () => {
    // When an older Python integration drives a test clock
    const result = await runPython(
      `
import time
clock = stripe.test_helpers.TestClock.create(frozen_time=1893456000, name='Py clock')
customer = stripe.Customer.create(test_clock=clock.id)
advancing = stripe.test_helpers.TestClock.advance(clock.id, frozen_time=1893542400)
for _ in range(100):
    ready = stripe.test_helpers.TestClock.retrieve(clock.id)
    if ready.status != 'advancing':
        break
    time.sleep(0.1)
listed = [c.id for c in stripe.test_helpers.TestClock.list(limit=100).data]
deleted = stripe.test_helpers.TestClock.delete(clock.id)
return {'clock': clock, 'customer_clock': customer.test_clock, 'advancing': advancing.status, 'ready': ready,
        'listed': listed, 'deleted': deleted, 'customer_deleted': stripe.Customer.retrieve(customer.id).get('deleted')}
`,
      {},
      { key },
    );
    // Then the SDK read each answer as the reference's objects
    expect(result.clock).toMatchObject({ object: 'test_helpers.test_clock', frozen_time: 1_893_456_000, name: 'Py clock', status: 'ready' });
    expect(result.customer_clock).toBe(result.clock.id);
    expect(result.advancing).toBe('advancing');
    expect(result.ready).toMatchObject({ status: 'ready', frozen_time: 1_893_542_400 });
    expect(result.listed).toContain(result.clock.id);
    expect(result.deleted).toEqual({ id: result.clock.id, object: 'test_helpers.test_clock', deleted: true });
    expect(result.customer_deleted).toBe(true);
  });

  it('pinned to 2022-11-15, makes invoice calls: items with the older `price` parameter, an invoice with pending items, finalize, pay out of band and lines', async () => {
    // Given a one-time price made through the Node SDK
    const price = await client.prices.create({ product_data: { name: 'Py setup' }, unit_amount: 1100, currency: 'usd' });
    // When an older Python integration bills it
    const result = await runPython(
      `
customer = stripe.Customer.create(name='Py invoiced')
item = stripe.InvoiceItem.create(customer=customer.id, price=args['price'], quantity=2)
invoice = stripe.Invoice.create(customer=customer.id, pending_invoice_items_behavior='include', auto_advance=False,
                                collection_method='send_invoice', days_until_due=7)
finalized = stripe.Invoice.finalize_invoice(invoice.id)
paid = stripe.Invoice.pay(invoice.id, paid_out_of_band=True)
lines = paid.lines.list(limit=5)
pending = stripe.InvoiceItem.list(customer=customer.id, pending=True)
return {'item': item, 'invoice': invoice, 'finalized': finalized, 'paid': paid, 'lines': lines, 'pending': len(pending.data)}
`,
      { price: price.id },
      { key, apiVersion: '2022-11-15' },
    );
    // Then it sees the shapes of its (older) version, and the amounts add up
    expect(result.item).toMatchObject({ object: 'invoiceitem', amount: 2200, quantity: 2, subscription: null, invoice: null });
    expect(result.invoice).toMatchObject({ object: 'invoice', status: 'draft', total: 2200, subscription: null, auto_advance: false });
    expect(result.finalized).toMatchObject({ status: 'open', amount_due: 2200 });
    expect(result.paid).toMatchObject({ status: 'paid', amount_paid: 2200, amount_remaining: 0 });
    expect(result.lines.data[0]).toMatchObject({ object: 'line_item', type: 'invoiceitem', invoice_item: result.item.id, amount: 2200 });
    expect(result.pending).toBe(0);
  });
});
