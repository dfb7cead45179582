import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { newPlatform, scanStackTable, sdk } from '../support/stack.ts';

const year = String(new Date().getUTCFullYear() + 2);

describe('customer payment sources from single-use tokens, through the official SDK', () => {
  let client: Stripe;
  let publishable: Stripe;
  let stranger: Stripe;
  beforeAll(async () => {
    const platform = await newPlatform();
    client = sdk(platform.secret_key);
    publishable = sdk(platform.publishable_key);
    stranger = sdk((await newPlatform()).publishable_key);
  });

  const cardToken = (owner = publishable, name = 'Jenny Rosen') =>
    owner.tokens.create({ card: { number: '4242424242424242', exp_month: '8', exp_year: year, cvc: '123', name } });
  const bankToken = () => publishable.tokens.create({ bank_account: { country: 'US', account_number: '000123456789', routing_number: '110000000' } });
  const eventsOf = async (type: string, id: string) =>
    (await client.events.list({ type, limit: 100 })).data.filter((event) => (event.data.object as { id: string }).id === id);

  it('creates a customer with a card token: the card is attached and default, the token used up once', async () => {
    const token = await cardToken();
    const customer = await client.customers.create({ name: 'Jenny', source: token.id });
    expect(customer.default_source).toBe(token.card!.id);
    expect(customer).not.toHaveProperty('sources');
    expect((await client.tokens.retrieve(token.id)).used).toBe(true);

    const card = (await client.customers.retrieveSource(customer.id, token.card!.id)) as Stripe.Card;
    expect(card).toMatchObject({ id: token.card!.id, object: 'card', customer: customer.id, last4: '4242', brand: 'Visa', name: 'Jenny Rosen', metadata: {} });
    const expanded = await client.customers.retrieve(customer.id, { expand: ['sources', 'default_source'] });
    expect((expanded as Stripe.Customer).default_source).toMatchObject({ id: card.id, object: 'card' });
    expect((expanded as Stripe.Customer).sources).toMatchObject({
      object: 'list',
      has_more: false,
      url: `/v1/customers/${customer.id}/sources`,
      data: [{ id: card.id }],
    });
    expect(await eventsOf('customer.source.created', card.id)).toHaveLength(1);

    await expect(client.customers.create({ source: token.id })).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      code: 'token_already_used',
      param: 'source',
      message: `You cannot use a Service token more than once: ${token.id}.`,
    });
    // No full card number or CVC is stored anywhere.
    const stored = JSON.stringify(
      await scanStackTable({
        FilterExpression: '#customer = :customer',
        ExpressionAttributeNames: { '#customer': 'customer' },
        ExpressionAttributeValues: { ':customer': customer.id },
      }),
    );
    expect(stored).toContain(card.id);
    expect(stored).not.toContain('4242424242424242');
    expect(stored).not.toMatch(/"cvc"/);
  });

  it('lets one of 10 concurrent requests use a token; the others are refused and attach nothing', async () => {
    const customer = await client.customers.create({ name: 'Race' });
    const token = await cardToken();
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => client.customers.createSource(customer.id, { source: token.id })));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes.filter((candidate): candidate is PromiseRejectedResult => candidate.status === 'rejected')) {
      expect(outcome.reason).toMatchObject({ statusCode: 400, code: 'token_already_used' });
    }
    expect((await client.customers.listSources(customer.id)).data).toHaveLength(1);
  });

  it('refuses tokens of another platform or mode as missing, and leaves them unused', async () => {
    const customer = await client.customers.create({ name: 'Strict' });
    const foreign = await cardToken(stranger);
    await expect(client.customers.createSource(customer.id, { source: foreign.id })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'source',
      message: `No such token: '${foreign.id}'`,
    });
    await expect(client.customers.update(customer.id, { source: 'tok_nope' })).rejects.toMatchObject({ statusCode: 400, code: 'resource_missing' });
    const person = await publishable.tokens.create({ person: { first_name: 'Ada' } });
    await expect(client.customers.createSource(customer.id, { source: person.id })).rejects.toMatchObject({ statusCode: 400, code: 'parameter_invalid' });
    expect((await client.tokens.retrieve(person.id)).used).toBe(false);
  });

  it('adds, lists, updates and deletes cards and bank accounts; the default moves to the newest other source', async () => {
    const customer = await client.customers.create({ name: 'Sources' });
    const card = (await client.customers.createSource(customer.id, { source: (await cardToken()).id, metadata: { n: '1' } })) as Stripe.Card;
    const bank = (await client.customers.createSource(customer.id, { source: (await bankToken()).id })) as Stripe.BankAccount;
    expect(bank).toMatchObject({ object: 'bank_account', customer: customer.id, last4: '6789', routing_number: '110000000', status: 'new' });
    expect((await client.customers.retrieve(customer.id)) as Stripe.Customer).toMatchObject({ default_source: card.id });

    expect((await client.customers.listSources(customer.id)).data.map((source) => source.id)).toEqual([bank.id, card.id]);
    expect((await client.customers.listSources(customer.id, { object: 'card' })).data.map((source) => source.id)).toEqual([card.id]);
    const firstPage = await client.customers.listSources(customer.id, { limit: 1 });
    expect(firstPage).toMatchObject({ object: 'list', has_more: true, url: `/v1/customers/${customer.id}/sources` });
    expect((await client.customers.listSources(customer.id, { limit: 1, starting_after: bank.id })).data.map((source) => source.id)).toEqual([card.id]);

    const updated = (await client.customers.updateSource(customer.id, card.id, {
      name: 'J. Rosen',
      exp_month: '12',
      address_zip: '94107',
      metadata: { n: '' },
    })) as Stripe.Card;
    expect(updated).toMatchObject({ name: 'J. Rosen', exp_month: 12, address_zip: '94107', address_zip_check: 'unchecked', metadata: {} });
    const [updateEvent] = await eventsOf('customer.source.updated', card.id);
    expect(updateEvent!.data.previous_attributes).toMatchObject({ name: 'Jenny Rosen', exp_month: 8, address_zip: null, metadata: { n: '1' } });
    await expect(client.customers.updateSource(customer.id, bank.id, { name: 'x' })).rejects.toMatchObject({ statusCode: 400, param: 'name' });
    expect(await client.customers.updateSource(customer.id, bank.id, { account_holder_name: 'Jenny', account_holder_type: 'individual' })).toMatchObject({
      account_holder_name: 'Jenny',
      account_holder_type: 'individual',
    });

    await expect(client.customers.deleteSource(customer.id, card.id)).resolves.toEqual({ id: card.id, object: 'card', deleted: true });
    expect(((await client.customers.retrieve(customer.id)) as Stripe.Customer).default_source).toBe(bank.id);
    expect(await eventsOf('customer.source.deleted', card.id)).toHaveLength(1);
    await expect(client.customers.retrieveSource(customer.id, card.id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
    await client.customers.deleteSource(customer.id, bank.id);
    expect(((await client.customers.retrieve(customer.id)) as Stripe.Customer).default_source).toBeNull();
    await expect(client.customers.listSources('cus_missing')).rejects.toMatchObject({ statusCode: 404 });
  });

  it('verifies a bank account with the test micro-deposit amounts, once; other amounts, cards and other platforms are refused', async () => {
    const customer = await client.customers.create({ name: 'Verify' });
    const bank = (await client.customers.createSource(customer.id, { source: (await bankToken()).id })) as Stripe.BankAccount;
    const card = await client.customers.createSource(customer.id, { source: (await cardToken()).id });
    await expect(client.customers.verifySource(customer.id, bank.id, { amounts: [32, 46] })).rejects.toMatchObject({
      statusCode: 400,
      code: 'bank_account_verification_failed',
      param: 'amounts',
    });
    await expect(client.customers.verifySource(customer.id, card.id, { amounts: [32, 45] })).rejects.toMatchObject({ statusCode: 400 });
    const foreign = sdk((await newPlatform()).secret_key);
    await expect(foreign.customers.verifySource(customer.id, bank.id, { amounts: [32, 45] })).rejects.toMatchObject({ statusCode: 404 });
    const verified = await client.customers.verifySource(customer.id, bank.id, { amounts: [45, 32] });
    expect(verified).toMatchObject({ id: bank.id, object: 'bank_account', status: 'verified' });
    expect(await client.customers.retrieveSource(customer.id, bank.id)).toMatchObject({ status: 'verified' });
    await expect(client.customers.verifySource(customer.id, bank.id, { amounts: [32, 45] })).rejects.toMatchObject({
      statusCode: 400,
      message: 'This bank account has already been verified.',
    });
    const [event] = await eventsOf('customer.source.updated', bank.id);
    expect(event).toMatchObject({ data: { object: { status: 'verified' }, previous_attributes: { status: 'new' } } });
  });

  it('replaces the default source on an update with source, and sets one with default_source', async () => {
    const first = await cardToken();
    const customer = await client.customers.create({ source: first.id });
    const kept = await client.customers.createSource(customer.id, { source: (await cardToken()).id });
    const next = await cardToken(publishable, 'Next');
    const updated = await client.customers.update(customer.id, { source: next.id });
    expect(updated.default_source).toBe(next.card!.id);
    await expect(client.customers.retrieveSource(customer.id, first.card!.id)).rejects.toMatchObject({ statusCode: 404 });
    const [event] = (await client.events.list({ type: 'customer.updated', limit: 100 })).data.filter(
      (candidate) => (candidate.data.object as { id: string }).id === customer.id,
    );
    expect(event!.data.previous_attributes).toEqual({ default_source: first.card!.id });

    expect((await client.customers.update(customer.id, { default_source: kept.id })).default_source).toBe(kept.id);
    await expect(client.customers.update(customer.id, { default_source: 'card_missing' })).rejects.toMatchObject({ statusCode: 400, param: 'default_source' });

    // Both at once would ignore one of them (and source would delete the default the other names): refused
    await expect(client.customers.update(customer.id, { source: (await cardToken()).id, default_source: kept.id })).rejects.toMatchObject({
      statusCode: 400,
      code: 'parameters_exclusive',
      param: 'default_source',
    });
    expect(await client.customers.retrieveSource(customer.id, kept.id)).toMatchObject({ id: kept.id });
    expect((await client.customers.retrieve(customer.id)) as Stripe.Customer).toMatchObject({ default_source: kept.id });
  });

  it("deletes a customer's sources with it", async () => {
    const customer = await client.customers.create({ source: (await cardToken()).id });
    await client.customers.createSource(customer.id, { source: (await bankToken()).id });
    await client.customers.del(customer.id);
    expect(
      await scanStackTable({
        FilterExpression: '#customer = :customer',
        ExpressionAttributeNames: { '#customer': 'customer' },
        ExpressionAttributeValues: { ':customer': customer.id },
      }),
    ).toEqual([]);
  });
});
