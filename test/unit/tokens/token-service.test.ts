import { fakeAccountSecretStore, memoryTokenRepository } from '../../support/fakes.ts';
import { describe, expect, it } from 'vitest';
import { CardError, InvalidRequestError } from '#shared/core/errors.ts';
import { errorResponse } from '#shared/http/error-mapping.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { CreateTokenParams } from '#shared/tokens/schemas.ts';
import { tokenService } from '#shared/tokens/service.ts';
import { tokenForUse } from '#shared/tokens/use.ts';
import type { Token } from '#shared/tokens/token.ts';

const testScope: Scope = { accountId: 'acct_1', livemode: false };
const liveScope: Scope = { accountId: 'acct_1', livemode: true };
/** 15 June 2026, noon UTC. */
const now = Date.UTC(2026, 5, 15, 12);

function setup() {
  const repository = memoryTokenRepository();
  const keys = fakeAccountSecretStore();
  return { repository, service: tokenService({ repository, fingerprintKeys: keys, ttlMillis: 10 * 60_000, clock: () => now }) };
}

async function failure(run: () => Promise<unknown>): Promise<CardError | InvalidRequestError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof CardError || error instanceof InvalidRequestError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

const card = (fields: Partial<Extract<CreateTokenParams['card'], object>> = {}): CreateTokenParams => ({
  card: { number: '4242424242424242', exp_month: '8', exp_year: '2030', cvc: '123', ...fields },
});

describe('card tokens', () => {
  it('keeps brand, last4, expiry, funding and a fingerprint, never the number or the CVC', async () => {
    const { service, repository } = setup();
    const token = await service.create(testScope, card({ number: '4242 4242 4242 4242', cvc: '987' }), '203.0.113.9');
    expect(token).toMatchObject({
      type: 'card',
      used: false,
      clientIp: '203.0.113.9',
      card: { brand: 'Visa', last4: '4242', expMonth: 8, expYear: 2030, funding: 'credit', cvcProvided: true },
    });
    const stored = JSON.stringify([...repository.items.values()]);
    expect(stored).not.toContain('4242424242424242');
    expect(stored).not.toContain('987');
  });

  it('gives one card the same fingerprint within an account and another one in another account', async () => {
    const { service } = setup();
    const first = await service.create(testScope, card(), null);
    const again = await service.create(testScope, card({ exp_year: '2031' }), null);
    const elsewhere = await service.create({ accountId: 'acct_2', livemode: false }, card(), null);
    const other = await service.create(testScope, card({ number: '5555555555554444' }), null);
    const fingerprintOf = (token: Token) => (token.type === 'card' ? token.card.fingerprint : '');
    expect(fingerprintOf(again)).toBe(fingerprintOf(first));
    expect(fingerprintOf(elsewhere)).not.toBe(fingerprintOf(first));
    expect(fingerprintOf(other)).not.toBe(fingerprintOf(first));
    expect(fingerprintOf(first)).toMatch(/^[0-9A-Za-z]{16}$/);
  });

  it.each([
    [{ number: '4242-4242-4242-4242' }, 'invalid_number', 'card[number]'],
    [{ number: '42424242424' }, 'invalid_number', 'card[number]'],
    [{ number: '42424242424242424242' }, 'invalid_number', 'card[number]'],
    [{ number: '4242424242424241' }, 'incorrect_number', 'card[number]'],
    [{ exp_month: '13' }, 'invalid_expiry_month', 'card[exp_month]'],
    [{ exp_month: 'ab' }, 'invalid_expiry_month', 'card[exp_month]'],
    [{ exp_year: '2025' }, 'invalid_expiry_year', 'card[exp_year]'],
    [{ exp_year: '25' }, 'invalid_expiry_year', 'card[exp_year]'],
    [{ exp_year: '2077' }, 'invalid_expiry_year', 'card[exp_year]'],
    [{ exp_month: '5', exp_year: '2026' }, 'invalid_expiry_month', 'card[exp_month]'],
    [{ cvc: '12' }, 'invalid_cvc', 'card[cvc]'],
    [{ cvc: '1234' }, 'invalid_cvc', 'card[cvc]'],
    [{ number: '378282246310005', cvc: '123' }, 'invalid_cvc', 'card[cvc]'],
  ] as Array<[{ number?: string; exp_month?: string; exp_year?: string; cvc?: string }, string, string]>)(
    'refuses %o with %s on %s',
    async (fields, code, param) => {
      const { service } = setup();
      const error = await failure(() => service.create(testScope, card(fields), null));
      expect(error).toBeInstanceOf(CardError);
      expect(error).toMatchObject({ code, param });
      expect(error.message).not.toContain(fields.number ?? '4242424242424242');
    },
  );

  it('accepts this month, two-digit years and a 4-digit Amex CVC', async () => {
    const { service } = setup();
    await expect(service.create(testScope, card({ exp_month: '6', exp_year: '2026' }), null)).resolves.toMatchObject({ type: 'card' });
    await expect(service.create(testScope, card({ exp_year: '31' }), null)).resolves.toMatchObject({ card: { expYear: 2031 } });
    await expect(service.create(testScope, card({ number: '378282246310005', cvc: '1234' }), null)).resolves.toMatchObject({
      card: { brand: 'American Express' },
    });
  });

  it('declines a live card in test mode and a test card in live mode', async () => {
    const { service } = setup();
    // A Luhn-valid Visa number that is not a published test card.
    expect(await failure(() => service.create(testScope, card({ number: '4929123456789015' }), null))).toMatchObject({
      code: 'card_declined',
      declineCode: 'test_mode_live_card',
      param: 'card[number]',
    });
    expect(await failure(() => service.create(liveScope, card(), null))).toMatchObject({ code: 'card_declined', declineCode: 'live_mode_test_card' });
    await expect(service.create(liveScope, card({ number: '4929123456789015' }), null)).resolves.toMatchObject({ card: { funding: 'unknown', country: null } });
  });
});

describe('token variants', () => {
  it('refuses none and several variants', async () => {
    const { service } = setup();
    expect(await failure(() => service.create(testScope, {}, null))).toMatchObject({ code: 'parameter_missing' });
    expect(await failure(() => service.create(testScope, { ...card(), pii: { id_number: '000000000' } }, null))).toMatchObject({
      code: 'parameter_invalid',
      message: expect.stringContaining('card and pii'),
    });
  });

  it('keeps person and account data without identity or tax numbers', async () => {
    const { service, repository } = setup();
    const person = await service.create(
      testScope,
      { person: { first_name: 'Jenny', id_number: '123456789', id_number_secondary: 'X12345', ssn_last_4: '6789' } },
      null,
    );
    expect(person).toMatchObject({
      type: 'person',
      person: { first_name: 'Jenny', ssn_last_4: '6789', id_number_provided: true, id_number_secondary_provided: true, ssn_last_4_provided: true },
    });
    const account = await service.create(
      testScope,
      {
        account: {
          business_type: 'company',
          company: { name: 'Acme', tax_id: '12-3456789', vat_id: 'DE123456789' },
          individual: { id_number: '987654321' },
          tos_shown_and_accepted: true,
        },
      },
      null,
    );
    expect(account).toMatchObject({
      type: 'account',
      account: {
        business_type: 'company',
        company: { name: 'Acme', tax_id_provided: true, vat_id_provided: true },
        individual: { id_number_provided: true },
        tos_shown_and_accepted: true,
      },
    });
    const stored = JSON.stringify([...repository.items.values()]);
    for (const secret of ['123456789', 'X12345', '12-3456789', 'DE123456789', '987654321']) expect(stored).not.toContain(secret);
  });
});

describe('token use', () => {
  it('lets a token be retrieved and used for 10 minutes, then never again', async () => {
    const { service, repository } = setup();
    const token = await service.create(testScope, { person: { first_name: 'Jenny' } }, null);
    const lateService = tokenService({ repository, fingerprintKeys: fakeAccountSecretStore(), ttlMillis: 10 * 60_000, clock: () => now + 10 * 60_000 });

    expect(token.expiresAt).toBe(now + 10 * 60_000);
    await expect(service.retrieve(testScope, token.id)).resolves.toMatchObject({ id: token.id });
    await expect(lateService.retrieve(testScope, token.id)).rejects.toMatchObject({ code: 'resource_missing' });
    await expect(tokenForUse(repository, testScope, token.id, ['person'], 'person_token', now + 10 * 60_000)).rejects.toMatchObject({
      code: 'resource_missing',
    });
  });

  it('reads a token for a write that will use it, and explains every refusal with the given param', async () => {
    const { service, repository } = setup();
    const person = await service.create(testScope, { person: { first_name: 'Jenny' } }, null);
    const cardToken = await service.create(testScope, card(), null);

    const { token, use } = await tokenForUse(repository, testScope, person.id, ['v2_person', 'person'], 'person_token', now);
    expect(token).toMatchObject({ id: person.id, type: 'person', person: { first_name: 'Jenny' } });
    expect(use).toEqual({ scope: testScope, id: person.id, type: 'person', now, param: 'person_token' });
    repository.markUsed(use);
    await expect(tokenForUse(repository, testScope, person.id, ['person'], 'person_token', now)).rejects.toMatchObject({
      code: 'token_already_used',
      param: 'person_token',
      message: `You cannot use a Service token more than once: ${person.id}.`,
    });
    await expect(tokenForUse(repository, testScope, cardToken.id, ['v2_account', 'account'], 'account_token', now)).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'account_token',
      message: `Invalid account_token: '${cardToken.id}' is a card token, but account_token takes an account token.`,
    });
    await expect(tokenForUse(repository, testScope, 'tok_missing', ['account'], 'account_token', now)).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'account_token',
      message: "No such token: 'tok_missing'",
    });
    await expect(tokenForUse(repository, liveScope, person.id, ['person'], 'person_token', now)).rejects.toMatchObject({ code: 'resource_missing' });
  });

  it('does not show v2 account and person tokens as v1 tokens', async () => {
    const { service, repository } = setup();
    await repository.create({
      id: 'accttok_1',
      scope: testScope,
      created: now,
      expiresAt: now + 60_000,
      clientIp: null,
      used: false,
      type: 'v2_account',
      v2: { params: {}, userAgent: null },
    });
    await expect(service.retrieve(testScope, 'accttok_1')).rejects.toMatchObject({ code: 'resource_missing' });
  });
});

describe('card error bodies', () => {
  it('renders a card error as a v1 402 card_error with its param and decline code', () => {
    const declined = errorResponse(new CardError('Your card was declined.', 'card_declined', 'card[number]', 'test_mode_live_card'), 'v1', 'req_1');
    expect(declined).toMatchObject({ status: 402 });
    expect(declined.body).toEqual({
      error: { type: 'card_error', code: 'card_declined', message: 'Your card was declined.', param: 'card[number]', decline_code: 'test_mode_live_card' },
    });
    expect(errorResponse(new CardError("Your card's security code is invalid.", 'invalid_cvc', 'card[cvc]'), 'v1', 'req_1').body.error).not.toHaveProperty(
      'decline_code',
    );
  });
});
