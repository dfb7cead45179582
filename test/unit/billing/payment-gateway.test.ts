import { describe, expect, it } from 'vitest';
import { paymentGateway } from '#shared/billing/payment-gateway.ts';
import { CardError } from '#shared/core/errors.ts';
import { createCustomerParams, createSourceParams, updateCustomerParams, verifySourceParams } from '#shared/customers/schemas.ts';
import { customerService } from '#shared/customers/service.ts';
import type { Scope } from '#shared/platform/types.ts';
import { cardDeclines, testCardOutcome, testCards } from '#shared/tokens/card-numbers.ts';
import { createTokenParams } from '#shared/tokens/schemas.ts';
import { tokenService } from '#shared/tokens/service.ts';
import { withTestTokens } from '#shared/tokens/test-tokens.ts';
import { fakeAccountSecretStore, memoryCustomerRepository, memoryTokenRepository, originOf, recordingEmitter } from '../../support/fakes.ts';

const test: Scope = { accountId: 'acct_payments', livemode: false };
const live: Scope = { accountId: 'acct_payments', livemode: true };

function setup() {
  const tokens = memoryTokenRepository();
  const repository = memoryCustomerRepository(tokens);
  const recorded = recordingEmitter();
  let now = 1_700_000_000_000;
  const clock = () => now++;
  const tokenMaker = tokenService({ repository: tokens, fingerprintKeys: fakeAccountSecretStore(), ttlMillis: 600_000, clock });
  const withTest = withTestTokens(tokens, (scope, card) => tokenMaker.create(scope, createTokenParams.parse({ card }), null));
  const customers = customerService({ repository, subscriptions: { cancelAllOf: async () => undefined }, tokens: withTest, events: recorded.events, clock });
  const card = async (number: string, scope = test, cvc: string | undefined = '123') =>
    (await tokenMaker.create(scope, createTokenParams.parse({ card: { number, exp_month: '8', exp_year: '2031', ...(cvc ? { cvc } : {}) } }), null)).id;
  const gateway = paymentGateway({ customers: repository });
  const charge = (scope: Scope, customer: string, amount = 2000) => gateway.charge(scope, { customer, amount, currency: 'usd', invoice: 'in_1' }, now);
  return { customers, repository, tokens, tokenMaker, card, charge, written: recorded.written };
}

describe('test card outcomes (card-numbers.ts)', () => {
  it('Given every published test card, when its outcome is derived, then only the documented declining cards decline and each decline has a card error code', () => {
    const declining = [...testCards.keys()].filter((number) => testCardOutcome(number, true) !== 'succeeds');
    expect(declining.sort()).toEqual(
      [
        '4000000000000002',
        '4000000000009995',
        '4000000000009987',
        '4000000000009979',
        '4000000000000069',
        '4000000000000127',
        '4000000000000119',
        '4000000000000101',
        '4100000000000019',
        '4000000000000341',
      ].sort(),
    );
    for (const number of declining) expect(cardDeclines[testCardOutcome(number, true) as keyof typeof cardDeclines].code).toMatch(/^[a-z_]+$/);
  });

  it('Given the CVC check card, when it is tokenized without a CVC, then it succeeds, and with one it is declined for its CVC', () => {
    expect(testCardOutcome('4000000000000101', false)).toBe('succeeds');
    expect(testCardOutcome('4000000000000101', true)).toBe('incorrect_cvc');
  });
});

describe('payment gateway (without a payment network)', () => {
  it('Given a tokenized card, when the token is stored, then it keeps the outcome and never the number', async () => {
    const { tokens, card } = setup();
    await card('4000000000000341');
    const stored = [...tokens.items.values()][0]!;
    expect(stored).toMatchObject({ type: 'card', card: { outcome: 'charge_fails', last4: '0341' } });
    expect(JSON.stringify(stored)).not.toContain('4000000000000341');
  });

  it('Given a customer whose default card is 4242, when charged, then the charge succeeds on that card', async () => {
    const { customers, card, charge } = setup();
    const customer = await customers.create(originOf(test), createCustomerParams.parse({ source: await card('4242424242424242') }));
    expect(await charge(test, customer.id)).toEqual({ status: 'succeeded', source: customer.defaultSource });
  });

  it.each([
    ['4000000000000002', 'generic_decline'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000009987', 'lost_card'],
    ['4000000000009979', 'stolen_card'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
    ['4000000000000119', 'processing_error'],
    ['4000000000000101', 'incorrect_cvc'],
  ])(
    'Given card %s, when attached as a customer source, then it is refused with a 402 card error (decline code %s) and nothing is written',
    async (number, declineCode) => {
      const { customers, repository, tokens, card, written } = setup();
      const token = await card(number);
      const refusal = customers.create(originOf(test), createCustomerParams.parse({ source: token }));
      await expect(refusal).rejects.toBeInstanceOf(CardError);
      await expect(refusal).rejects.toMatchObject({ declineCode });
      const existing = await customers.create(originOf(test), createCustomerParams.parse({}));
      await expect(customers.createSource(originOf(test), existing.id, createSourceParams.parse({ source: token }))).rejects.toMatchObject({ declineCode });
      await expect(customers.update(originOf(test), existing.id, updateCustomerParams.parse({ source: token }))).rejects.toMatchObject({ declineCode });
      expect(repository.sources.size).toBe(0);
      expect([...tokens.items.values()].every((stored) => !stored.used)).toBe(true);
      expect(written.flatMap((outbox) => outbox.snapshotEvents.map((event) => event.type))).toEqual(['customer.created']);
    },
  );

  it.each([
    ['4000000000000341', 'card_declined', 'generic_decline'],
    ['4100000000000019', 'card_declined', 'fraudulent'],
  ])('Given card %s, when attached and then charged, then it attaches and the charge fails with %s / %s', async (number, code, declineCode) => {
    const { customers, card, charge } = setup();
    const customer = await customers.create(originOf(test), createCustomerParams.parse({ source: await card(number) }));
    expect(customer.defaultSource).not.toBeNull();
    expect(await charge(test, customer.id)).toEqual({
      status: 'failed',
      code,
      declineCode,
      message: 'Your card was declined.',
      source: customer.defaultSource,
    });
  });

  it('Given a failing default card, when the customer replaces it with 4242, then the next charge succeeds', async () => {
    const { customers, card, charge } = setup();
    const customer = await customers.create(originOf(test), createCustomerParams.parse({ source: await card('4000000000000341') }));
    expect((await charge(test, customer.id)).status).toBe('failed');
    const updated = await customers.update(originOf(test), customer.id, updateCustomerParams.parse({ source: await card('4242424242424242') }));
    expect(await charge(test, customer.id)).toEqual({ status: 'succeeded', source: updated.defaultSource });
  });

  it('Given a customer without a source, or no customer at all, when charged, then it fails with missing_payment_method and no source', async () => {
    const { customers, charge } = setup();
    const customer = await customers.create(originOf(test), createCustomerParams.parse({}));
    for (const id of [customer.id, 'cus_missing']) {
      expect(await charge(test, id)).toMatchObject({ status: 'failed', code: 'missing_payment_method', declineCode: null, source: null });
    }
  });

  it('Given a bank account source, when charged, then it fails until the account is verified and succeeds after', async () => {
    const { customers, tokenMaker, charge } = setup();
    const token = await tokenMaker.create(
      test,
      createTokenParams.parse({ bank_account: { country: 'US', account_number: '000123456789', routing_number: '110000000' } }),
      null,
    );
    const customer = await customers.create(originOf(test), createCustomerParams.parse({ source: token.id }));
    expect(await charge(test, customer.id)).toMatchObject({ status: 'failed', code: 'bank_account_unverified', source: customer.defaultSource });
    await customers.verifySource(originOf(test), customer.id, customer.defaultSource!, verifySourceParams.parse({ amounts: ['32', '45'] }));
    expect(await charge(test, customer.id)).toEqual({ status: 'succeeded', source: customer.defaultSource });
  });

  it('Given a declining test card, when the amount is zero, then nothing is sent to decline and the charge succeeds', async () => {
    const { customers, card, charge } = setup();
    const customer = await customers.create(originOf(test), createCustomerParams.parse({ source: await card('4000000000000341') }));
    expect(await charge(test, customer.id, 0)).toMatchObject({ status: 'succeeded' });
  });

  it('Given a live-mode customer with a card, when charged, then it is refused: there is no payment network to charge', async () => {
    const { customers, card, charge } = setup();
    const customer = await customers.create(originOf(live), createCustomerParams.parse({ source: await card('4111111111111111', live) }));
    expect(await charge(live, customer.id)).toMatchObject({
      status: 'failed',
      code: 'payment_network_unavailable',
      declineCode: null,
      source: customer.defaultSource,
    });
  });

  it("Given another mode's customer, when charged, then it is not found there", async () => {
    const { customers, card, charge } = setup();
    const customer = await customers.create(originOf(test), createCustomerParams.parse({ source: await card('4242424242424242') }));
    expect(await charge(live, customer.id)).toMatchObject({ status: 'failed', code: 'missing_payment_method', source: null });
  });

  it("Given the reference's test tokens, when used as source, then each use mints a card of its number: tok_visa attaches twice, tok_chargeDeclined is declined, tok_chargeCustomerFail attaches and fails to charge", async () => {
    const { customers, charge, tokens } = setup();
    const first = await customers.create(originOf(test), createCustomerParams.parse({ source: 'tok_visa' }));
    const second = await customers.create(originOf(test), createCustomerParams.parse({ source: 'tok_visa' }));
    expect(first.defaultSource).not.toBe(second.defaultSource);
    expect([...tokens.items.values()].filter((token) => token.used)).toHaveLength(2);
    await expect(customers.create(originOf(test), createCustomerParams.parse({ source: 'tok_chargeDeclined' }))).rejects.toMatchObject({
      declineCode: 'generic_decline',
    });
    const failing = await customers.createSource(originOf(test), first.id, createSourceParams.parse({ source: 'tok_chargeCustomerFail' }));
    const replaced = await customers.update(originOf(test), first.id, updateCustomerParams.parse({ default_source: failing.id }));
    expect(await charge(test, replaced.id)).toMatchObject({ status: 'failed', declineCode: 'generic_decline', source: failing.id });
    await expect(customers.create(originOf(live), createCustomerParams.parse({ source: 'tok_visa' }))).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'source',
    });
  });
});
