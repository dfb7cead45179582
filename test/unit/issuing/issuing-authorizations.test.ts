import { describe, expect, it } from 'vitest';
import { eventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { authorizationService } from '#shared/issuing/authorization-service.ts';
import type { Authorization } from '#shared/issuing/authorization.ts';
import type { IssuingCard } from '#shared/issuing/card.ts';
import type { Cardholder } from '#shared/issuing/cardholder.ts';
import { approveAuthorizationParams, createAuthorizationParams, declineAuthorizationParams } from '#shared/issuing/schemas.ts';
import { serializeAuthorization } from '#shared/issuing/serializers.ts';
import { memoryIssuingRepository, memoryTransactionRepository, storedCard, storedCardholder } from '../../support/issuing-fakes.ts';

const scope = { accountId: 'acct_1', livemode: false };
const origin: EventOrigin = { scope, platformId: 'acct_1', request: null, apiVersion: '2026-10-28.endive' };
const now = Date.UTC(2026, 5, 15, 12);

const holder = storedCardholder(scope, { created: now });

const card = (overrides: Partial<IssuingCard> = {}): IssuingCard => storedCard(scope, { created: now, ...overrides });

function setup(cardOverrides: Partial<IssuingCard> = {}, cardholderOverrides: Partial<Cardholder> = {}) {
  const events = eventEmitter({
    store: { commit: async () => undefined },
    queue: { enqueue: async () => undefined },
  });
  const repository = memoryIssuingRepository<Authorization>();
  return authorizationService({
    repository,
    transactions: memoryTransactionRepository(repository),
    cards: memoryIssuingRepository(card(cardOverrides)),
    cardholders: memoryIssuingRepository({ ...holder, ...cardholderOverrides }),
    events,
    clock: () => now,
  });
}

const params = (raw: Record<string, unknown>) => createAuthorizationParams.parse(raw);

describe('issuing authorizations (service with fakes)', () => {
  it('keeps merchant_amount in the proportion of creation when the merchant currency differs', async () => {
    // Given an authorization of 10.00 USD for a merchant charging 9.00 EUR
    const service = setup();
    const { authorization: created } = await service.create(origin, params({ card: 'ic_1', amount: '1000', merchant_currency: 'eur', merchant_amount: '900' }));
    expect(created).toMatchObject({ amount: 1000, merchantAmount: 900, merchantCurrency: 'eur' });

    // When it is incremented and then partly reversed
    const { authorization: incremented } = await service.increment(origin, created.id, { increment_amount: 500 });
    const { authorization: reversed } = await service.reverse(origin, created.id, { reverse_amount: 300 });

    // Then the merchant amount follows at the same rate, and each entry records its own request
    expect(incremented).toMatchObject({ amount: 1500, merchantAmount: 1350 });
    expect(reversed).toMatchObject({ amount: 1200, merchantAmount: 1080 });
    expect(reversed.requestHistory.map((entry) => [entry.amount, entry.merchant_amount])).toEqual([
      [1000, 900],
      [500, 450],
      [300, 270],
    ]);
  });

  it('needs merchant_amount when the merchant currency differs, and refuses one that contradicts amount otherwise', async () => {
    const service = setup();
    await expect(service.create(origin, params({ card: 'ic_1', amount: 1000, merchant_currency: 'eur' }))).rejects.toMatchObject({
      code: 'parameter_missing',
      param: 'merchant_amount',
    });
    await expect(service.create(origin, params({ card: 'ic_1', amount: 1000, merchant_amount: 999 }))).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'merchant_amount',
    });
  });

  it('takes the amount from amount_details when no amount is given', async () => {
    const { authorization: created } = await setup().create(origin, params({ card: 'ic_1', amount_details: { atm_fee: 300, cashback_amount: 2000 } }));
    expect(created).toMatchObject({ amount: 2300, amountDetails: { atm_fee: 300, cashback_amount: 2000 } });
  });

  it.each([
    ['an expired card', { expYear: 2026, expMonth: 5 }, {}, 'card_expired'],
    ['a canceled card', { status: 'canceled' as const }, {}, 'card_canceled'],
    ['a blocked cardholder', {}, { status: 'blocked' as const }, 'cardholder_blocked'],
    ['an inactive cardholder', {}, { status: 'inactive' as const }, 'cardholder_inactive'],
  ])('declines an authorization on %s', async (_case, cardOverrides, cardholderOverrides, reason) => {
    const { authorization: declined } = await setup(cardOverrides, cardholderOverrides).create(
      origin,
      params({ card: 'ic_1', amount: 100, merchant_data: { category: 'automated_fuel_dispensers' } }),
    );
    expect(declined).toMatchObject({ approved: false, status: 'closed', estimatedAmount: false, authorizationCode: null });
    expect(declined.requestHistory[0]).toMatchObject({ approved: false, reason });
  });

  it('approves on a card valid until the end of this month', async () => {
    const { authorization: approved } = await setup({ expYear: 2026, expMonth: 6 }).create(origin, params({ card: 'ic_1', amount: 100 }));
    expect(approved).toMatchObject({ approved: true, status: 'pending' });
  });

  it('takes every parameter of the SDK’s generated example and shows each where the reference does', async () => {
    const { authorization, transactions } = await setup().create(
      origin,
      params({
        amount: 100,
        amount_details: { atm_fee: 10, cashback_amount: 5 },
        authorization_method: 'chip',
        card: 'ic_1',
        currency: 'usd',
        is_amount_controllable: 'true',
        merchant_data: {
          category: 'ac_refrigeration_repair',
          city: 'foo',
          country: 'US',
          name: 'foo',
          network_id: 'bar',
          postal_code: 'foo',
          state: 'bar',
          terminal_id: 'foo',
        },
        network_data: { acquiring_institution_id: 'foo' },
        verification_data: { address_line1_check: 'mismatch', address_postal_code_check: 'match', cvc_check: 'match', expiry_check: 'mismatch' },
        wallet: 'apple_pay',
      }),
    );
    expect(serializeAuthorization(authorization, transactions)).toMatchObject({
      amount: 100,
      amount_details: { atm_fee: 10, cashback_amount: 5 },
      authorization_method: 'chip',
      card_presence: 'present',
      currency: 'usd',
      merchant_data: {
        category: 'ac_refrigeration_repair',
        category_code: '7623',
        city: 'foo',
        country: 'US',
        name: 'foo',
        network_id: 'bar',
        postal_code: 'foo',
        state: 'bar',
        tax_id: null,
        terminal_id: 'foo',
        url: null,
      },
      network_data: { acquiring_institution_id: 'foo', system_trace_audit_number: null, transaction_id: null },
      pending_request: null,
      request_history: [{ amount: 100, amount_details: { atm_fee: 10, cashback_amount: 5 }, approved: true, reason: 'card_active' }],
      verification_data: {
        address_line1_check: 'mismatch',
        address_postal_code_check: 'match',
        authentication_exemption: null,
        cvc_check: 'match',
        expiry_check: 'mismatch',
        postal_code: null,
        three_d_secure: null,
      },
      wallet: 'apple_pay',
    });
    expect(authorization.isAmountControllable).toBe(true);
  });

  it('refuses approve and decline, which answer a pending request no authorization here has, after finding the authorization', async () => {
    const service = setup();
    const { authorization } = await service.create(origin, params({ card: 'ic_1', amount: 100 }));
    for (const answer of [() => service.approve(scope, authorization.id), () => service.decline(scope, authorization.id)]) {
      await expect(answer()).rejects.toMatchObject({
        code: 'authorization_no_pending_request',
        message: expect.stringContaining('pending_request is always null'),
      });
    }
    // Another mode's or another owner's authorization is not found, before anything else is said
    await expect(service.approve({ ...scope, livemode: true }, authorization.id)).rejects.toMatchObject({ code: 'resource_missing' });
    await expect(service.decline({ ...scope, accountId: 'acct_2' }, authorization.id)).rejects.toMatchObject({ code: 'resource_missing' });
    // Nothing changed
    expect((await service.retrieve(scope, authorization.id)).authorization).toEqual(authorization);
  });

  it('checks approve’s and decline’s parameters: a positive amount, metadata and expand only', () => {
    expect(approveAuthorizationParams.parse({ amount: '50', metadata: { a: '1' }, expand: ['card'] })).toEqual({
      amount: 50,
      metadata: { a: '1' },
      expand: expect.objectContaining({ paths: ['card'] }),
    });
    expect(approveAuthorizationParams.safeParse({ amount: '0' }).success).toBe(false);
    expect(declineAuthorizationParams.safeParse({ amount: '50' }).success).toBe(false);
    expect(declineAuthorizationParams.parse({ metadata: '' })).toEqual({ metadata: null });
  });
});
