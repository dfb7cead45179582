import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { api, newPlatform, scanStackTable, sdk } from '../support/stack.ts';

const year = String(new Date().getUTCFullYear() + 2);

describe('test cards that the reference declines when attached, through the official SDK', () => {
  let client: Stripe;
  let publishable: Stripe;
  let secretKey: string;
  beforeAll(async () => {
    const platform = await newPlatform();
    secretKey = platform.secret_key;
    client = sdk(platform.secret_key);
    publishable = sdk(platform.publishable_key);
  });

  const cardToken = (number: string) => publishable.tokens.create({ card: { number, exp_month: '8', exp_year: year, cvc: '123' } });

  it.each([
    ['4000000000000002', 'card_declined', 'generic_decline', 'Your card was declined.'],
    ['4000000000009995', 'card_declined', 'insufficient_funds', 'Your card has insufficient funds.'],
    ['4000000000009987', 'card_declined', 'lost_card', 'Your card was declined.'],
    ['4000000000009979', 'card_declined', 'stolen_card', 'Your card was declined.'],
    ['4000000000000069', 'expired_card', 'expired_card', 'Your card has expired.'],
    ['4000000000000127', 'incorrect_cvc', 'incorrect_cvc', "Your card's security code is incorrect."],
    ['4000000000000119', 'processing_error', 'processing_error', 'An error occurred while processing your card. Try again in a little bit.'],
  ])(
    'Given a token of card %s, when a customer is created with it as source, then the SDK raises a StripeCardError %s / %s and no customer is made',
    async (number, code, declineCode, message) => {
      const token = await cardToken(number);
      expect(token.card!.last4).toBe(number.slice(-4));
      const before = (await client.customers.list({ limit: 100 })).data.length;
      await expect(client.customers.create({ source: token.id })).rejects.toMatchObject({
        statusCode: 402,
        type: 'StripeCardError',
        rawType: 'card_error',
        code,
        decline_code: declineCode,
        message,
      });
      expect((await client.customers.list({ limit: 100 })).data).toHaveLength(before);
      expect((await client.tokens.retrieve(token.id)).used).toBe(false);
    },
  );

  it('Given an existing customer, when a declining card is added as a source or set with source on update, then both are refused with the card error and the customer keeps its card', async () => {
    const good = await cardToken('4242424242424242');
    const customer = await client.customers.create({ source: good.id });
    const declining = await cardToken('4000000000000002');
    await expect(client.customers.createSource(customer.id, { source: declining.id })).rejects.toMatchObject({
      statusCode: 402,
      type: 'StripeCardError',
      decline_code: 'generic_decline',
    });
    await expect(client.customers.update(customer.id, { source: declining.id })).rejects.toMatchObject({
      statusCode: 402,
      type: 'StripeCardError',
      decline_code: 'generic_decline',
    });
    const after = await client.customers.retrieve(customer.id, { expand: ['sources'] });
    expect((after as Stripe.Customer).default_source).toBe(good.card!.id);
    expect((after as Stripe.Customer).sources!.data.map((source) => source.id)).toEqual([good.card!.id]);
  });

  it('Given the card that attaches but fails to charge (4000000000000341), when attached, then it attaches and becomes the default, its number stored nowhere', async () => {
    const token = await cardToken('4000000000000341');
    const customer = await client.customers.create({ source: token.id });
    expect(customer.default_source).toBe(token.card!.id);
    const card = (await client.customers.retrieveSource(customer.id, token.card!.id)) as Stripe.Card;
    expect(card).toMatchObject({ object: 'card', last4: '0341', customer: customer.id });
    const stored = JSON.stringify(await scanStackTable({}));
    expect(stored).toContain('charge_fails');
    expect(stored).not.toContain('4000000000000341');
  });

  it('Given the raw HTTP wire form, when a declined source is attached, then the body is the reference card error with decline_code', async () => {
    const token = await cardToken('4000000000009995');
    const customer = await client.customers.create({});
    const response = await api('POST', `/v1/customers/${customer.id}/sources`, { key: secretKey, form: `source=${token.id}` });
    expect(response.status).toBe(402);
    expect(response.body).toEqual({
      error: expect.objectContaining({
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'insufficient_funds',
        message: 'Your card has insufficient funds.',
      }),
    });
  });

  it("Given the reference's test tokens, when used as source through the SDK, then tok_visa can be used again and again and tok_chargeDeclinedInsufficientFunds is declined", async () => {
    const first = await client.customers.create({ source: 'tok_visa' });
    const second = await client.customers.create({ source: 'tok_visa' });
    expect(first.default_source).toMatch(/^card_/);
    expect(second.default_source).not.toBe(first.default_source);
    const card = (await client.customers.retrieveSource(first.id, first.default_source as string)) as Stripe.Card;
    expect(card).toMatchObject({ brand: 'Visa', last4: '4242' });
    await expect(client.customers.createSource(first.id, { source: 'tok_chargeDeclinedInsufficientFunds' })).rejects.toMatchObject({
      statusCode: 402,
      decline_code: 'insufficient_funds',
    });
    const failing = (await client.customers.createSource(first.id, { source: 'tok_chargeCustomerFail' })) as Stripe.Card;
    expect(failing.last4).toBe('0341');
  });
});
