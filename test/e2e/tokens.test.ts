import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { idempotencyItemKey } from '#shared/data/idempotency-store.ts';
import { createHash } from 'node:crypto';
import { api, newPlatform, scanStackTable, sdk, stackTable } from '../support/stack.ts';

const nextYear = String(new Date().getUTCFullYear() + 1);
const testCard = { number: '4242424242424242', exp_month: '8', exp_year: nextYear, cvc: '123' };
/** Luhn-valid, but not a published test card. */
const liveCardNumber = '4929123456789015';
const randomDigits = (length: number) => Array.from({ length }, () => Math.floor(Math.random() * 10)).join('');

/** Every item of the table, as one string. */
async function scanTable(): Promise<{ items: Record<string, unknown>[]; text: string }> {
  const items = await scanStackTable();
  return { items, text: JSON.stringify(items) };
}

function leaves(value: unknown): unknown[] {
  if (value === null || typeof value !== 'object') return [value];
  return Object.values(value).flatMap(leaves);
}

describe('v1 tokens through the official SDK', () => {
  let platform: CreatedPlatform;
  let secret: Stripe;
  let publishable: Stripe;
  beforeAll(async () => {
    platform = await newPlatform();
    secret = sdk(platform.secret_key);
    publishable = sdk(platform.publishable_key);
  });

  it('creates a card token with a publishable key, showing every card field but never the number', async () => {
    const token = await publishable.tokens.create({
      card: { ...testCard, name: 'Jenny Rosen', address_zip: '94107', address_country: 'US', currency: 'usd' },
    });
    expect(token).toEqual({
      id: expect.stringMatching(/^tok_[0-9A-Za-z]{24,}$/),
      object: 'token',
      card: {
        id: expect.stringMatching(/^card_[0-9A-Za-z]{24,}$/),
        object: 'card',
        account: null,
        address_city: null,
        address_country: 'US',
        address_line1: null,
        address_line1_check: null,
        address_line2: null,
        address_state: null,
        address_zip: '94107',
        address_zip_check: 'unchecked',
        allow_redisplay: 'unspecified',
        available_payout_methods: null,
        brand: 'Visa',
        country: 'US',
        currency: 'usd',
        customer: null,
        cvc_check: 'unchecked',
        default_for_currency: null,
        dynamic_last4: null,
        exp_month: 8,
        exp_year: Number(nextYear),
        fingerprint: expect.stringMatching(/^[0-9A-Za-z]{16}$/),
        funding: 'credit',
        last4: '4242',
        metadata: {},
        name: 'Jenny Rosen',
        networks: { preferred: null },
        regulated_status: null,
        status: null,
        tokenization_method: null,
      },
      client_ip: '127.0.0.1',
      created: expect.any(Number),
      livemode: false,
      type: 'card',
      used: false,
    });
    expect(Math.abs(token.created - Date.now() / 1000)).toBeLessThan(60);
  });

  it('retrieves a token with the secret key only, and answers 404 resource_missing for an unknown one', async () => {
    const created = await publishable.tokens.create({ card: { number: '5555 5555 5555 4444', exp_month: '12', exp_year: nextYear } });
    expect(created.card).toMatchObject({ brand: 'MasterCard', last4: '4444', cvc_check: null });
    expect(await secret.tokens.retrieve(created.id)).toEqual(created);
    // The reference needs a secret key to read a token back: a publishable key (in a browser) only makes them.
    await expect(publishable.tokens.retrieve(created.id)).rejects.toMatchObject({
      statusCode: 403,
      code: 'secret_key_required',
      rawType: 'invalid_request_error',
    });

    await expect(secret.tokens.retrieve('tok_unknown')).rejects.toMatchObject({
      statusCode: 404,
      rawType: 'invalid_request_error',
      code: 'resource_missing',
      param: 'id',
      message: "No such token: 'tok_unknown'",
    });
    // Another platform's token is not there either.
    const stranger = sdk((await newPlatform()).secret_key);
    await expect(stranger.tokens.retrieve(created.id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('gives the same card the same fingerprint within a platform', async () => {
    const first = await publishable.tokens.create({ card: testCard });
    const second = await publishable.tokens.create({ card: { ...testCard, exp_month: '9' } });
    const other = await publishable.tokens.create({ card: { ...testCard, number: '4000056655665556' } });
    expect(second.card!.fingerprint).toBe(first.card!.fingerprint);
    expect(other.card!.fingerprint).not.toBe(first.card!.fingerprint);
    expect(other.card).toMatchObject({ funding: 'debit', brand: 'Visa' });
  });

  it('still refuses a publishable key everywhere else', async () => {
    await expect(publishable.customers.list()).rejects.toMatchObject({ statusCode: 403, code: 'secret_key_required' });
    await expect(publishable.webhookEndpoints.list()).rejects.toMatchObject({ statusCode: 403 });
  });

  it('creates bank account tokens with last4, routing number, default currency and status new', async () => {
    const token = await publishable.tokens.create({
      bank_account: {
        country: 'US',
        account_number: '000123456789',
        routing_number: '110000000',
        account_holder_name: 'Jenny Rosen',
        account_holder_type: 'individual',
      },
    });
    expect(token).toMatchObject({ object: 'token', type: 'bank_account', used: false, livemode: false });
    expect(token.card).toBeUndefined();
    expect(token.bank_account).toEqual({
      id: expect.stringMatching(/^ba_[0-9A-Za-z]{24,}$/),
      object: 'bank_account',
      account_holder_name: 'Jenny Rosen',
      account_holder_type: 'individual',
      account_type: null,
      bank_name: null,
      country: 'US',
      currency: 'usd',
      fingerprint: expect.stringMatching(/^[0-9A-Za-z]{16}$/),
      last4: '6789',
      routing_number: '110000000',
      status: 'new',
    });

    const iban = await secret.tokens.create({ bank_account: { country: 'DE', account_number: 'DE89370400440532013000' } });
    expect(iban.bank_account).toMatchObject({ country: 'DE', currency: 'eur', last4: '3000', routing_number: null });
  });

  it('creates cvc_update, pii, person and account tokens that carry no data back', async () => {
    const cases: Array<[Stripe.TokenCreateParams, string]> = [
      [{ cvc_update: { cvc: '123' } }, 'cvc_update'],
      [{ pii: { id_number: '000000000' } }, 'pii'],
      [
        { person: { first_name: 'Jenny', last_name: 'Rosen', dob: { day: 1, month: 2, year: 1990 }, relationship: { owner: true, percent_ownership: 50 } } },
        'person',
      ],
      [{ account: { business_type: 'individual', individual: { first_name: 'Jenny', id_number: '000000000' }, tos_shown_and_accepted: true } }, 'account'],
    ];
    for (const [params, type] of cases) {
      const token = await publishable.tokens.create(params);
      expect(Object.keys(token).sort(), type).toEqual(['client_ip', 'created', 'id', 'livemode', 'object', 'type', 'used']);
      expect(token).toMatchObject({ id: expect.stringMatching(/^tok_/), object: 'token', type, used: false });
      expect(await secret.tokens.retrieve(token.id)).toEqual(token);
    }
  });

  it('asks for exactly one kind of data', async () => {
    await expect(secret.tokens.create({})).rejects.toMatchObject({ statusCode: 400, code: 'parameter_missing' });
    await expect(secret.tokens.create({ card: testCard, pii: { id_number: '000000000' } })).rejects.toMatchObject({
      statusCode: 400,
      code: 'parameter_invalid',
      message: expect.stringContaining('card and pii'),
    });
    // There are no saved cards, bank accounts or customer sources to tokenize by id.
    await expect(secret.tokens.create({ card: 'card_123' })).rejects.toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'card' });
    await expect(secret.tokens.create({ bank_account: 'ba_123' })).rejects.toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'bank_account' });
    await expect(secret.tokens.create({ customer: 'cus_123', card: 'card_123' })).rejects.toMatchObject({ statusCode: 400, param: 'customer' });
  });

  describe('validation errors over HTTP', () => {
    it.each<[string, Stripe.TokenCreateParams, { statusCode: number; rawType: string; code: string; param: string }]>([
      [
        'a number with letters',
        { card: { ...testCard, number: '4242x42424242424' } },
        { statusCode: 402, rawType: 'card_error', code: 'invalid_number', param: 'card[number]' },
      ],
      [
        'a number too short',
        { card: { ...testCard, number: '42424242424' } },
        { statusCode: 402, rawType: 'card_error', code: 'invalid_number', param: 'card[number]' },
      ],
      [
        'a number failing Luhn',
        { card: { ...testCard, number: '4242424242424241' } },
        { statusCode: 402, rawType: 'card_error', code: 'incorrect_number', param: 'card[number]' },
      ],
      [
        'month 13',
        { card: { ...testCard, exp_month: '13' } },
        { statusCode: 402, rawType: 'card_error', code: 'invalid_expiry_month', param: 'card[exp_month]' },
      ],
      [
        'a past year',
        { card: { ...testCard, exp_year: '2020' } },
        { statusCode: 402, rawType: 'card_error', code: 'invalid_expiry_year', param: 'card[exp_year]' },
      ],
      ['a 2-digit CVC', { card: { ...testCard, cvc: '12' } }, { statusCode: 402, rawType: 'card_error', code: 'invalid_cvc', param: 'card[cvc]' }],
      [
        'a 3-digit Amex CVC',
        { card: { ...testCard, number: '378282246310005', cvc: '123' } },
        { statusCode: 402, rawType: 'card_error', code: 'invalid_cvc', param: 'card[cvc]' },
      ],
      [
        'a missing card number',
        { card: { exp_month: '8', exp_year: nextYear } as Stripe.TokenCreateParams.Card },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'parameter_missing', param: 'card[number]' },
      ],
      [
        'an unknown card field',
        { card: { ...testCard, colour: 'blue' } as Stripe.TokenCreateParams.Card },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'parameter_unknown', param: 'card[colour]' },
      ],
      ['a non-numeric CVC update', { cvc_update: { cvc: '12a' } }, { statusCode: 402, rawType: 'card_error', code: 'invalid_cvc', param: 'cvc_update[cvc]' }],
      [
        'a routing number failing the ABA checksum',
        { bank_account: { country: 'US', account_number: '000123456789', routing_number: '110000001' } },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'routing_number_invalid', param: 'bank_account[routing_number]' },
      ],
      [
        'a routing number of 8 digits',
        { bank_account: { country: 'US', account_number: '000123456789', routing_number: '11000000' } },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'routing_number_invalid', param: 'bank_account[routing_number]' },
      ],
      [
        'an account number with letters',
        { bank_account: { country: 'US', account_number: '0001234x6789', routing_number: '110000000' } },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'account_number_invalid', param: 'bank_account[account_number]' },
      ],
      [
        'a real-looking account number in test mode',
        { bank_account: { country: 'US', account_number: '987654321', routing_number: '110000000' } },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'account_number_invalid', param: 'bank_account[account_number]' },
      ],
      [
        'a bad IBAN',
        { bank_account: { country: 'DE', account_number: 'DE89370400440532013001' } },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'invalid_bank_account_iban', param: 'bank_account[account_number]' },
      ],
      [
        'a malformed PII id number',
        { pii: { id_number: '12#34' } },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'parameter_invalid', param: 'pii[id_number]' },
      ],
      [
        'a person ssn_last_4 of 5 digits',
        { person: { ssn_last_4: '12345' } },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'parameter_invalid', param: 'person[ssn_last_4]' },
      ],
      [
        'an impossible date of birth',
        { person: { dob: { day: 31, month: 2, year: 1990 } } },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'parameter_invalid', param: 'person[dob]' },
      ],
      [
        'an unknown person field',
        { person: { first_name: 'Jenny', favourite_colour: 'blue' } as Stripe.TokenCreateParams.Person },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'parameter_unknown', param: 'person[favourite_colour]' },
      ],
      [
        'an unknown relationship field',
        { person: { relationship: { owner: true, boss: true } } as Stripe.TokenCreateParams.Person },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'parameter_unknown', param: 'person[relationship][boss]' },
      ],
      [
        'an unknown individual field',
        { account: { individual: { first_name: 'J', nickname: 'x' } } as Stripe.TokenCreateParams.Account },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'parameter_unknown', param: 'account[individual][nickname]' },
      ],
      [
        'a relationship field persons have but individuals do not',
        { account: { individual: { relationship: { representative: true } } } as Stripe.TokenCreateParams.Account },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'parameter_unknown', param: 'account[individual][relationship][representative]' },
      ],
      [
        'an unknown business type',
        { account: { business_type: 'cooperative' } },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'parameter_invalid', param: 'account[business_type]' },
      ],
      [
        'an unknown company structure',
        { account: { company: { structure: 'guild' } } as Stripe.TokenCreateParams.Account },
        { statusCode: 400, rawType: 'invalid_request_error', code: 'parameter_invalid', param: 'account[company][structure]' },
      ],
    ])('refuses %s', async (_case, params, expected) => {
      const error = await secret.tokens.create(params).then(
        () => undefined,
        (reason: Stripe.errors.StripeError) => reason,
      );
      expect(error).toMatchObject(expected);
      // The message never echoes a number that was sent.
      for (const value of leaves(params).filter((leaf): leaf is string => typeof leaf === 'string' && leaf.length >= 9)) {
        expect(error!.message).not.toContain(value);
      }
    });

    it('declines a live card in test mode as the reference does', async () => {
      await expect(publishable.tokens.create({ card: { ...testCard, number: liveCardNumber } })).rejects.toMatchObject({
        statusCode: 402,
        type: 'StripeCardError',
        code: 'card_declined',
        decline_code: 'test_mode_live_card',
        param: 'card[number]',
        message: expect.stringContaining('test mode, but used a non test (live) card'),
      });
    });

    it('declines a test card in live mode and takes a real number', async () => {
      const live = sdk((await newPlatform({ livemode: true })).publishable_key);
      await expect(live.tokens.create({ card: testCard })).rejects.toMatchObject({
        statusCode: 402,
        code: 'card_declined',
        decline_code: 'live_mode_test_card',
      });
      const token = await live.tokens.create({ card: { ...testCard, number: liveCardNumber } });
      expect(token).toMatchObject({ livemode: true, card: { brand: 'Visa', last4: '9015', funding: 'unknown', country: null } });
    });
  });

  it('replays an idempotent create without keeping a plain hash of the card number', async () => {
    const form = `card[number]=4000056655665556&card[exp_month]=8&card[exp_year]=${nextYear}&card[cvc]=314`;
    const key = `tok-${randomDigits(12)}`;
    const first = await api('POST', '/v1/tokens', { key: platform.publishable_key, form, headers: { 'idempotency-key': key } });
    const again = await api('POST', '/v1/tokens', { key: platform.publishable_key, form, headers: { 'idempotency-key': key } });
    expect(first.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const changed = await api('POST', '/v1/tokens', {
      key: platform.publishable_key,
      form: form.replace('4000056655665556', '4242424242424242'),
      headers: { 'idempotency-key': key },
    });
    expect(changed.status).toBe(400);

    const record = await stackTable().get(idempotencyItemKey({ accountId: platform.account, livemode: false, publishable: true }, key));
    expect(record?.sealedResponse).toEqual(expect.any(String));
    const { text } = await scanTable();
    expect(text).not.toContain(key);
    // What the fingerprint was before it was keyed: a plain SHA-256 of the request, open to offline guessing.
    const request = `POST /v1/tokens\n{"card":{"cvc":"314","exp_month":"8","exp_year":${JSON.stringify(String(nextYear))},"number":"4000056655665556"}}`;
    const plain = createHash('sha256').update(request).digest('hex');
    expect(record?.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(record?.fingerprint).not.toBe(plain);
    expect(text).not.toContain(plain);
  });

  it("keeps a publishable key's Idempotency-Keys apart from the secret key's: it can neither claim nor probe the backend's", async () => {
    // Given a backend that used a key with its secret key, and a web page that claims another key first with the publishable key
    const used = `order-${randomDigits(10)}`;
    const claimed = `order-${randomDigits(10)}`;
    const backend = await api('POST', '/v1/customers', { key: platform.secret_key, form: 'name=Backend', headers: { 'idempotency-key': used } });
    expect(backend.status).toBe(200);
    const form = `card[number]=4242424242424242&card[exp_month]=8&card[exp_year]=${nextYear}&card[cvc]=314`;
    const page = await api('POST', '/v1/tokens', { key: platform.publishable_key, form, headers: { 'idempotency-key': claimed } });
    expect(page.status).toBe(200);

    // When the page sends the backend's key with other parameters, Then it is a fresh request: nothing tells it the key was used
    const probe = await api('POST', '/v1/tokens', { key: platform.publishable_key, form, headers: { 'idempotency-key': used } });
    expect(probe.status).toBe(200);
    expect(probe.headers.get('idempotent-replayed')).toBeNull();
    // And the backend's own request with the key the page claimed runs, and its retry replays the backend's answer
    const order = await api('POST', '/v1/customers', { key: platform.secret_key, form: 'name=Order', headers: { 'idempotency-key': claimed } });
    expect(order.status).toBe(200);
    expect(order.body.object).toBe('customer');
    const retry = await api('POST', '/v1/customers', { key: platform.secret_key, form: 'name=Order', headers: { 'idempotency-key': claimed } });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.id).toBe(order.body.id);
    // And the page's retry still replays its own token
    const pageRetry = await api('POST', '/v1/tokens', { key: platform.publishable_key, form, headers: { 'idempotency-key': claimed } });
    expect(pageRetry.body.id).toBe(page.body.id);
  });

  it('stores no card number, CVC, bank account number or identity number anywhere in the table', async () => {
    const sensitive = {
      cardNumber: '4000056655665556',
      amexNumber: '371449635398431',
      cvc: '918',
      amexCvc: '7391',
      accountNumber: '000222222227',
      iban: 'DE89370400440532013000',
      piiId: `${randomDigits(3)}-${randomDigits(2)}-${randomDigits(4)}`,
      personId: randomDigits(11),
      personSecondaryId: `P${randomDigits(10)}`,
      individualId: randomDigits(12),
      taxId: `${randomDigits(2)}-${randomDigits(9)}`,
      vatId: `DE${randomDigits(10)}`,
    };
    const created = await Promise.all([
      publishable.tokens.create({ card: { number: '4000 0566 5566 5556', exp_month: '8', exp_year: nextYear, cvc: sensitive.cvc } }),
      publishable.tokens.create({ card: { number: sensitive.amexNumber, exp_month: '8', exp_year: nextYear, cvc: sensitive.amexCvc } }),
      publishable.tokens.create({ cvc_update: { cvc: sensitive.amexCvc } }),
      publishable.tokens.create({ bank_account: { country: 'US', account_number: sensitive.accountNumber, routing_number: '110000000' } }),
      publishable.tokens.create({ bank_account: { country: 'DE', account_number: sensitive.iban } }),
      publishable.tokens.create({ pii: { id_number: sensitive.piiId } }),
      publishable.tokens.create({
        person: { first_name: 'Jenny', id_number: sensitive.personId, id_number_secondary: sensitive.personSecondaryId, ssn_last_4: '4321' },
      }),
      publishable.tokens.create({
        account: {
          business_type: 'company',
          company: { name: 'Acme', tax_id: sensitive.taxId, vat_id: sensitive.vatId },
          individual: { first_name: 'Jenny', id_number: sensitive.individualId },
        },
      }),
    ]);
    expect(created.map((token) => token.type)).toEqual(['card', 'card', 'cvc_update', 'bank_account', 'bank_account', 'pii', 'person', 'account']);

    const { items, text } = await scanTable();
    // The tokens were stored (the scan sees them), but none of the sensitive inputs.
    for (const token of created) expect(text).toContain(token.id);
    for (const [name, value] of Object.entries(sensitive).filter(([name]) => !name.toLowerCase().includes('cvc'))) {
      expect(text, name).not.toContain(value);
      expect(text, name).not.toContain(value.replace(/\D/g, ''));
    }
    expect(text).not.toContain('4000 0566 5566 5556');
    // CVCs are too short to look for in the whole table: no value of this platform's items is one.
    const mine = items.filter((item) => String(item.PK).includes(platform.account));
    expect(mine.length).toBeGreaterThanOrEqual(created.length);
    for (const value of mine.flatMap(leaves)) {
      expect(String(value)).not.toBe(sensitive.cvc);
      expect(String(value)).not.toBe(sensitive.amexCvc);
    }
  });
});
