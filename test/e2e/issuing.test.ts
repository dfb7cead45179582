import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { api, newPlatform, sdk } from '../support/stack.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { eventually } from '../support/wait.ts';

const decimal = (value: string) => Stripe.Decimal.from(value);
/** Decimal fields come back from the SDK as its Decimal objects; compare them as strings. */
const text = (value: { toString(): string } | null | undefined) => (value == null ? value : value.toString());

/** Every field of the authorization object, as the spec and the reference list them. */
const authorizationFields = [
  'amount',
  'amount_details',
  'approved',
  'authorization_method',
  'balance_transactions',
  'card',
  'card_presence',
  'cardholder',
  'created',
  'currency',
  'fleet',
  'fraud_challenges',
  'fuel',
  'id',
  'livemode',
  'merchant_amount',
  'merchant_currency',
  'merchant_data',
  'metadata',
  'network_data',
  'object',
  'pending_request',
  'redaction',
  'request_history',
  'status',
  'token',
  'transactions',
  'treasury',
  'verification_data',
  'verified_by_fraud_challenge',
  'wallet',
];

const cardFields = [
  'brand',
  'cancellation_reason',
  'cardholder',
  'created',
  'currency',
  'exp_month',
  'exp_year',
  'financial_account',
  'id',
  'last4',
  'latest_fraud_warning',
  'lifecycle_controls',
  'livemode',
  'metadata',
  'object',
  'personalization_design',
  'replaced_by',
  'replacement_for',
  'replacement_reason',
  'second_line',
  'shipping',
  'spending_controls',
  'status',
  'type',
  'wallets',
];

const cardholderFields = [
  'billing',
  'company',
  'created',
  'email',
  'id',
  'individual',
  'livemode',
  'metadata',
  'name',
  'object',
  'phone_number',
  'preferred_locales',
  'requirements',
  'spending_controls',
  'status',
  'type',
];

const transactionFields = [
  'amount',
  'amount_details',
  'authorization',
  'balance_transaction',
  'card',
  'cardholder',
  'created',
  'currency',
  'dispute',
  'id',
  'livemode',
  'merchant_amount',
  'merchant_currency',
  'merchant_data',
  'metadata',
  'network_data',
  'object',
  'purchase_details',
  'token',
  'treasury',
  'type',
  'wallet',
];

const sorted = (object: object) => Object.keys(object).sort();

describe('issuing cardholders, cards and test-mode authorizations through the official SDK', () => {
  let client: Stripe;
  let secretKey: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    secretKey = (await newPlatform()).secret_key;
    client = sdk(secretKey);
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver.stop());

  const newCardholder = (params: Partial<Stripe.Issuing.CardholderCreateParams> = {}) =>
    client.issuing.cardholders.create({
      name: 'Jenny Rosen',
      email: 'jenny@example.test',
      billing: { address: { line1: '1234 Main Street', city: 'San Francisco', state: 'CA', postal_code: '94111', country: 'US' } },
      ...params,
    });

  async function activeCard(): Promise<Stripe.Issuing.Card> {
    const cardholder = await newCardholder();
    return client.issuing.cards.create({ cardholder: cardholder.id, currency: 'usd', type: 'virtual', status: 'active' });
  }

  /** A pump asks for an estimated hold before dispensing: the estimated-amount case. */
  const fuelAuthorization = (card: Stripe.Issuing.Card, amount = 10_000) =>
    client.testHelpers.issuing.authorizations.create({
      card: card.id,
      amount,
      authorization_method: 'chip',
      merchant_data: { category: 'automated_fuel_dispensers', name: 'Pump 4', city: 'Oakland', country: 'US' },
    });

  const finalizeForm = (authorization: string, form: string) =>
    api('POST', `/v1/test_helpers/issuing/authorizations/${authorization}/finalize_amount`, { key: secretKey, form });

  it('creates, retrieves and lists cardholders and cards with every field of the reference', async () => {
    const cardholder = await newCardholder({
      phone_number: '+15555550123',
      metadata: { team: 'fleet' },
      individual: { first_name: 'Jenny', last_name: 'Rosen' },
    });
    expect(cardholder.id).toMatch(/^ich_/);
    expect(sorted(cardholder)).toEqual(cardholderFields);
    expect(cardholder).toMatchObject({
      object: 'issuing.cardholder',
      name: 'Jenny Rosen',
      email: 'jenny@example.test',
      phone_number: '+15555550123',
      billing: { address: { line1: '1234 Main Street', line2: null, city: 'San Francisco', state: 'CA', postal_code: '94111', country: 'US' } },
      company: null,
      individual: { first_name: 'Jenny', last_name: 'Rosen', dob: null, verification: null },
      livemode: false,
      metadata: { team: 'fleet' },
      requirements: { disabled_reason: null, past_due: [] },
      status: 'active',
      type: 'individual',
    });

    const card = await client.issuing.cards.create({ cardholder: cardholder.id, currency: 'usd', type: 'virtual' });
    expect(card.id).toMatch(/^ic_/);
    expect(sorted(card)).toEqual(cardFields);
    expect(card).toMatchObject({
      object: 'issuing.card',
      brand: 'Visa',
      currency: 'usd',
      type: 'virtual',
      status: 'inactive',
      shipping: null,
      livemode: false,
    });
    expect(card.last4).toMatch(/^\d{4}$/);
    expect(card.exp_month).toBeGreaterThanOrEqual(1);
    expect(card.exp_month).toBeLessThanOrEqual(12);
    expect(card.exp_year).toBeGreaterThan(new Date().getUTCFullYear());
    expect(card.cardholder).toEqual(cardholder);

    expect(await client.issuing.cards.retrieve(card.id)).toEqual(card);
    expect(await client.issuing.cardholders.retrieve(cardholder.id)).toEqual(cardholder);

    const physical = await client.issuing.cards.create({ cardholder: cardholder.id, currency: 'usd', type: 'physical', status: 'active' });
    const ofHolder = await client.issuing.cards.list({ cardholder: cardholder.id, limit: 1 }).autoPagingToArray({ limit: 10 });
    expect(ofHolder.map((listed) => listed.id)).toEqual([physical.id, card.id]);
    expect((await client.issuing.cards.list({ cardholder: cardholder.id, type: 'physical' })).data.map((listed) => listed.id)).toEqual([physical.id]);
    expect((await client.issuing.cardholders.list({ email: 'jenny@example.test' })).data.map((listed) => listed.id)).toContain(cardholder.id);
  });

  it('refuses bad cardholder and card parameters with a 400 naming them', async () => {
    await expect(client.issuing.cardholders.create({ name: 'No Address' } as Stripe.Issuing.CardholderCreateParams)).rejects.toMatchObject({
      statusCode: 400,
      code: 'parameter_missing',
      param: 'billing',
    });
    await expect(newCardholder({ name: 'A name far too long for a card' })).rejects.toMatchObject({ statusCode: 400, param: 'name' });
    await expect(newCardholder({ phone_number: '555-0123' })).rejects.toMatchObject({ statusCode: 400, param: 'phone_number' });
    await expect(newCardholder({ company: { tax_id: '000000000' } })).rejects.toMatchObject({ statusCode: 400, param: 'company' });

    const cardholder = await newCardholder();
    await expect(client.issuing.cards.create({ cardholder: 'ich_missing', currency: 'usd', type: 'virtual' })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'cardholder',
    });
    await expect(client.issuing.cards.create({ cardholder: cardholder.id, currency: 'usd', type: 'plastic' })).rejects.toMatchObject({
      statusCode: 400,
      param: 'type',
    });
    await expect(client.issuing.cards.create({ cardholder: cardholder.id, currency: 'dollars', type: 'virtual' })).rejects.toMatchObject({
      statusCode: 400,
      param: 'currency',
    });
    await expect(client.issuing.cards.retrieve('ic_missing')).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('finalizes a fuel-dispenser authorization with fleet and fuel data and delivers issuing_authorization.updated', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: `${receiver.url}?updates`, enabled_events: ['issuing_authorization.updated'] });
    const card = await activeCard();

    const authorization = await fuelAuthorization(card);
    expect(authorization.id).toMatch(/^iauth_/);
    expect(sorted(authorization)).toEqual(authorizationFields);
    expect(authorization).toMatchObject({
      object: 'issuing.authorization',
      amount: 10_000,
      merchant_amount: 10_000,
      currency: 'usd',
      merchant_currency: 'usd',
      approved: true,
      status: 'pending',
      card: card.id,
      cardholder: card.cardholder.id,
      authorization_method: 'chip',
      card_presence: 'present',
      merchant_data: { category: 'automated_fuel_dispensers', category_code: '5542', name: 'Pump 4', city: 'Oakland', country: 'US', terminal_id: null },
      verification_data: {
        address_line1_check: 'not_provided',
        cvc_check: 'not_provided',
        expiry_check: 'not_provided',
        address_postal_code_check: 'not_provided',
      },
      fleet: null,
      fuel: null,
      pending_request: null,
      transactions: [],
      balance_transactions: [],
      livemode: false,
    });
    expect(authorization.request_history).toHaveLength(1);
    expect(authorization.request_history[0]).toMatchObject({ amount: 10_000, approved: true, reason: 'card_active', currency: 'usd' });
    expect(authorization.request_history[0]!.authorization_code).toMatch(/^S\d{6}$/);

    const finalized = await client.testHelpers.issuing.authorizations.finalizeAmount(authorization.id, {
      final_amount: 4_250,
      fleet: {
        cardholder_prompt_data: { driver_id: 'D-17', odometer: 120_345, unspecified_id: 'ABC123', user_id: 'U-9', vehicle_number: 'TRK-42' },
        purchase_type: 'fuel_and_non_fuel_purchase',
        reported_breakdown: {
          fuel: { gross_amount_decimal: decimal('40.25') },
          non_fuel: { gross_amount_decimal: decimal('2.25') },
          tax: { local_amount_decimal: decimal('0.5'), national_amount_decimal: decimal('1.125') },
        },
        service_type: 'self_service',
      },
      fuel: {
        industry_product_code: '001',
        quantity_decimal: decimal('10.123456789012'),
        type: 'unleaded_regular',
        unit: 'us_gallon',
        unit_cost_decimal: decimal('397.6'),
      },
    });
    expect(finalized).toMatchObject({ id: authorization.id, status: 'pending', amount: 4_250, merchant_amount: 4_250 });
    // amount_details is an object with both parts null when none were given, wherever the authorization renders
    const noDetails = { atm_fee: null, cashback_amount: null };
    expect([authorization.amount_details, finalized.amount_details]).toEqual([noDetails, noDetails]);
    const listed = await client.issuing.authorizations.list({ card: card.id });
    expect(listed.data.map((item) => item.amount_details)).toEqual([noDetails]);
    const withFee = await client.testHelpers.issuing.authorizations.create({ card: card.id, amount: 1_000, amount_details: { atm_fee: 100 } });
    expect(withFee.amount_details).toEqual({ atm_fee: 100, cashback_amount: null });
    expect(finalized.fleet).toMatchObject({
      cardholder_prompt_data: {
        alphanumeric_id: null,
        driver_id: 'D-17',
        odometer: 120_345,
        unspecified_id: 'ABC123',
        user_id: 'U-9',
        vehicle_number: 'TRK-42',
      },
      purchase_type: 'fuel_and_non_fuel_purchase',
      service_type: 'self_service',
    });
    const breakdown = finalized.fleet!.reported_breakdown!;
    expect(
      [
        breakdown.fuel!.gross_amount_decimal,
        breakdown.non_fuel!.gross_amount_decimal,
        breakdown.tax!.local_amount_decimal,
        breakdown.tax!.national_amount_decimal,
      ].map(text),
    ).toEqual(['40.25', '2.25', '0.5', '1.125']);
    expect({ ...finalized.fuel, quantity_decimal: text(finalized.fuel!.quantity_decimal), unit_cost_decimal: text(finalized.fuel!.unit_cost_decimal) }).toEqual(
      {
        industry_product_code: '001',
        quantity_decimal: '10.123456789012',
        type: 'unleaded_regular',
        unit: 'us_gallon',
        unit_cost_decimal: '397.6',
      },
    );
    expect(finalized.request_history).toHaveLength(2);
    expect(finalized.request_history[1]).toMatchObject({ amount: 4_250, merchant_amount: 4_250, approved: true });
    expect(await client.issuing.authorizations.retrieve(authorization.id)).toEqual(finalized);

    const delivered = await eventually(async () =>
      receiver.received.find((request) => request.path === '/hook?updates' && JSON.parse(request.body).data?.object?.id === authorization.id),
    );
    const event = client.webhooks.constructEvent(delivered.body, delivered.headers['service-signature'] as string, endpoint.secret!);
    expect(event.type).toBe('issuing_authorization.updated');
    const object = event.data.object as unknown as Record<string, any>;
    expect(object).toMatchObject({
      id: authorization.id,
      amount: 4_250,
      amount_details: noDetails,
      fuel: { quantity_decimal: '10.123456789012', type: 'unleaded_regular' },
    });
    expect(event.data.previous_attributes).toMatchObject({ amount: 10_000, merchant_amount: 10_000, fleet: null, fuel: null });

    await expect(client.testHelpers.issuing.authorizations.finalizeAmount(authorization.id, { final_amount: 4_000 })).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      code: 'authorization_amount_already_finalized',
    });
  });

  it('refuses a decimal with 13 decimal places, naming the field, and leaves the authorization as it was', async () => {
    const authorization = await fuelAuthorization(await activeCard());
    await expect(
      client.testHelpers.issuing.authorizations.finalizeAmount(authorization.id, {
        final_amount: 5_000,
        fuel: { quantity_decimal: decimal('1.1234567890123') },
      }),
    ).rejects.toMatchObject({ statusCode: 400, code: 'parameter_invalid', param: 'fuel[quantity_decimal]' });
    expect(await client.issuing.authorizations.retrieve(authorization.id)).toMatchObject({ amount: 10_000, fuel: null, request_history: [{ amount: 10_000 }] });

    // Twelve places is the limit, and still allowed afterwards.
    const finalized = await client.testHelpers.issuing.authorizations.finalizeAmount(authorization.id, {
      final_amount: 5_000,
      fuel: { quantity_decimal: decimal('1.123456789012') },
    });
    expect(text(finalized.fuel!.quantity_decimal)).toBe('1.123456789012');
  });

  it('names the offending parameter of every invalid finalize request over HTTP', async () => {
    const authorization = await fuelAuthorization(await activeCard());
    const cases: Array<[form: string, param: string]> = [
      ['fuel[type]=diesel', 'final_amount'],
      ['final_amount=-1', 'final_amount'],
      ['final_amount=12.5', 'final_amount'],
      ['final_amount=100&fuel[type]=kerosene', 'fuel[type]'],
      ['final_amount=100&fuel[unit]=barrel', 'fuel[unit]'],
      ['final_amount=100&fuel[unit_cost_decimal]=abc', 'fuel[unit_cost_decimal]'],
      ['final_amount=100&fuel[quantity_decimal]=-3', 'fuel[quantity_decimal]'],
      ['final_amount=100&fleet[purchase_type]=snacks', 'fleet[purchase_type]'],
      ['final_amount=100&fleet[service_type]=valet', 'fleet[service_type]'],
      ['final_amount=100&fleet[cardholder_prompt_data][odometer]=12.5', 'fleet[cardholder_prompt_data][odometer]'],
      ['final_amount=100&fleet[cardholder_prompt_data][unspecified_id]=AB-12', 'fleet[cardholder_prompt_data][unspecified_id]'],
      ['final_amount=100&fleet[reported_breakdown][tax][local_amount_decimal]=0.1234567890123', 'fleet[reported_breakdown][tax][local_amount_decimal]'],
      ['final_amount=100&fleet[reported_breakdown][fuel][gross_amount_decimal]=1e3', 'fleet[reported_breakdown][fuel][gross_amount_decimal]'],
      ['final_amount=100&fleet[vehicle]=van', 'fleet[vehicle]'],
    ];
    for (const [form, param] of cases) {
      const answer = await finalizeForm(authorization.id, form);
      expect({ form, status: answer.status, type: answer.body.error?.type, param: answer.body.error?.param }).toEqual({
        form,
        status: 400,
        type: 'invalid_request_error',
        param,
      });
    }
    const enumError = await finalizeForm(authorization.id, 'final_amount=100&fuel[type]=kerosene');
    expect(enumError.body.error.message).toContain('unleaded_regular');

    // None of them changed anything: the amount can still be finalized.
    expect((await finalizeForm(authorization.id, 'final_amount=100&fuel[type]=diesel')).body).toMatchObject({ amount: 100, fuel: { type: 'diesel' } });
  });

  it('refuses bad test authorization parameters with a 400 naming them', async () => {
    const card = await activeCard();
    const create = (form: string) => api('POST', '/v1/test_helpers/issuing/authorizations', { key: secretKey, form });
    const cases: Array<[form: string, param: string, code: string]> = [
      ['amount=100', 'card', 'parameter_missing'],
      [`card=${card.id}`, 'amount', 'parameter_missing'],
      ['card=ic_missing&amount=100', 'card', 'resource_missing'],
      [`card=${card.id}&amount=100&merchant_data[category]=fuel_station`, 'merchant_data[category]', 'parameter_invalid'],
      [`card=${card.id}&amount=100&authorization_method=telepathy`, 'authorization_method', 'parameter_invalid'],
      [`card=${card.id}&amount=100&wallet=paypal`, 'wallet', 'parameter_invalid'],
      [`card=${card.id}&amount=100&currency=eur`, 'currency', 'parameter_invalid'],
      [`card=${card.id}&amount=100&verification_data[cvc_check]=maybe`, 'verification_data[cvc_check]', 'parameter_invalid'],
      [`card=${card.id}&amount=100&fuel[quantity_decimal]=1.1234567890123`, 'fuel[quantity_decimal]', 'parameter_invalid'],
      [`card=${card.id}&amount=100&amount_details[cashback_amount]=200`, 'amount_details', 'parameter_invalid'],
    ];
    for (const [form, param, code] of cases) {
      const answer = await create(form);
      expect({ form, status: answer.status, param: answer.body.error?.param, code: answer.body.error?.code }).toEqual({ form, status: 400, param, code });
    }
  });

  it('keeps the fleet and fuel data given at authorization that finalize does not replace', async () => {
    const card = await activeCard();
    const authorization = await client.testHelpers.issuing.authorizations.create({
      card: card.id,
      amount: 8_000,
      merchant_data: { category: 'electric_vehicle_charging' },
      fuel: { type: 'other', unit: 'kilowatt_hour' },
      fleet: { service_type: 'self_service', cardholder_prompt_data: { vehicle_number: 'EV-7' } },
    });
    expect(authorization.fuel).toEqual({ industry_product_code: null, quantity_decimal: null, type: 'other', unit: 'kilowatt_hour', unit_cost_decimal: null });

    const finalized = await client.testHelpers.issuing.authorizations.finalizeAmount(authorization.id, {
      final_amount: 3_120,
      fuel: { quantity_decimal: decimal('41.6') },
      fleet: { cardholder_prompt_data: { odometer: 5_100 } },
    });
    expect(finalized).toMatchObject({ amount: 3_120, merchant_amount: 3_120 });
    expect({ ...finalized.fuel, quantity_decimal: text(finalized.fuel!.quantity_decimal) }).toMatchObject({
      type: 'other',
      unit: 'kilowatt_hour',
      quantity_decimal: '41.6',
    });
    expect(finalized.fleet).toMatchObject({
      service_type: 'self_service',
      purchase_type: null,
      cardholder_prompt_data: { vehicle_number: 'EV-7', odometer: 5_100, driver_id: null },
    });
  });

  it('refuses to finalize an authorization that was not made on an estimated amount', async () => {
    const card = await activeCard();
    const taxi = await client.testHelpers.issuing.authorizations.create({ card: card.id, amount: 2_500, merchant_data: { category: 'taxicabs_limousines' } });
    expect(taxi.merchant_data).toMatchObject({ category: 'taxicabs_limousines', category_code: '4121' });
    await expect(client.testHelpers.issuing.authorizations.finalizeAmount(taxi.id, { final_amount: 2_000 })).rejects.toMatchObject({
      statusCode: 400,
      code: 'authorization_amount_not_estimated',
    });
    const unnamed = await client.testHelpers.issuing.authorizations.create({ card: card.id, amount: 2_500 });
    await expect(client.testHelpers.issuing.authorizations.finalizeAmount(unnamed.id, { final_amount: 2_000 })).rejects.toMatchObject({
      statusCode: 400,
      code: 'authorization_amount_not_estimated',
    });
    expect(await client.issuing.authorizations.retrieve(taxi.id)).toMatchObject({ amount: 2_500, request_history: [{ amount: 2_500 }] });
  });

  it('refuses to finalize an authorization that is no longer pending', async () => {
    const authorization = await fuelAuthorization(await activeCard());
    await client.testHelpers.issuing.authorizations.expire(authorization.id);
    await expect(client.testHelpers.issuing.authorizations.finalizeAmount(authorization.id, { final_amount: 2_000 })).rejects.toMatchObject({
      statusCode: 400,
      code: 'authorization_not_pending',
    });
  });

  it('refuses every test helper with a live mode key, but serves the live objects', async () => {
    const live = sdk((await newPlatform({ livemode: true })).secret_key);
    const cardholder = await live.issuing.cardholders.create({
      name: 'Live Holder',
      billing: { address: { line1: '1 Main Street', city: 'Austin', postal_code: '78701', country: 'US' } },
    });
    const card = await live.issuing.cards.create({ cardholder: cardholder.id, currency: 'usd', type: 'virtual', status: 'active' });
    expect(card).toMatchObject({ livemode: true, cardholder: { id: cardholder.id, livemode: true } });

    const refused = { statusCode: 400, type: 'StripeInvalidRequestError', code: 'livemode_mismatch' };
    await expect(live.testHelpers.issuing.authorizations.create({ card: card.id, amount: 1_000 })).rejects.toMatchObject(refused);
    await expect(live.testHelpers.issuing.authorizations.finalizeAmount('iauth_whatever', { final_amount: 1 })).rejects.toMatchObject(refused);
    await expect(live.testHelpers.issuing.authorizations.capture('iauth_whatever')).rejects.toMatchObject(refused);
    await expect(live.testHelpers.issuing.authorizations.expire('iauth_whatever')).rejects.toThrow(/only available in test mode/);
    expect((await live.issuing.authorizations.list()).data).toEqual([]);
  });

  it('increments, reverses, captures and expires authorizations as the card network does', async () => {
    const card = await activeCard();
    const helpers = client.testHelpers.issuing.authorizations;

    const held = await helpers.create({ card: card.id, amount: 1_000 });
    const incremented = await helpers.increment(held.id, { increment_amount: 500 });
    expect(incremented).toMatchObject({ status: 'pending', amount: 1_500, merchant_amount: 1_500 });
    expect(incremented.request_history.map((entry) => entry.amount)).toEqual([1_000, 500]);

    const partly = await helpers.reverse(held.id, { reverse_amount: 300 });
    expect(partly).toMatchObject({ status: 'pending', amount: 1_200, merchant_amount: 1_200 });
    await expect(helpers.reverse(held.id, { reverse_amount: 5_000 })).rejects.toMatchObject({
      statusCode: 400,
      code: 'amount_too_large',
      param: 'reverse_amount',
    });
    const reversed = await helpers.reverse(held.id);
    expect(reversed).toMatchObject({ status: 'reversed', amount: 0, merchant_amount: 0 });
    expect(reversed.request_history.map((entry) => entry.amount)).toEqual([1_000, 500, 300, 1_200]);
    await expect(helpers.reverse(held.id)).rejects.toMatchObject({ statusCode: 400, code: 'authorization_not_pending' });

    const captured = await helpers.capture((await helpers.create({ card: card.id, amount: 2_000 })).id);
    expect(captured).toMatchObject({ status: 'closed', approved: true, amount: 2_000, transactions: [{ type: 'capture', amount: -2_000 }] });
    expect(captured.request_history.at(-1)).toMatchObject({ amount: 2_000, approved: true });
    await expect(helpers.capture(captured.id)).rejects.toMatchObject({ statusCode: 400, code: 'authorization_not_pending' });

    const multi = await helpers.create({ card: card.id, amount: 2_000 });
    const firstPart = await helpers.capture(multi.id, { capture_amount: 500, close_authorization: false });
    expect(firstPart).toMatchObject({ status: 'pending', amount: 1_500 });
    await expect(helpers.capture(multi.id, { capture_amount: 1_600, close_authorization: false })).rejects.toMatchObject({
      statusCode: 400,
      param: 'capture_amount',
    });
    const closed = await helpers.capture(multi.id, { capture_amount: 1_500 });
    expect(closed).toMatchObject({ status: 'closed' });
    expect(closed.transactions.map((transaction) => transaction.amount)).toEqual([-500, -1_500]);

    const expiring = await helpers.create({ card: card.id, amount: 700 });
    expect(await helpers.expire(expiring.id)).toMatchObject({ status: 'expired', amount: 700 });
    await expect(helpers.increment(expiring.id, { increment_amount: 100 })).rejects.toMatchObject({ statusCode: 400, code: 'authorization_not_pending' });
    await expect(helpers.expire('iauth_missing')).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('declines an authorization on a card that is not active', async () => {
    const cardholder = await newCardholder();
    const inactive = await client.issuing.cards.create({ cardholder: cardholder.id, currency: 'usd', type: 'virtual' });
    const declined = await fuelAuthorization(inactive, 3_000);
    expect(declined).toMatchObject({
      approved: false,
      status: 'closed',
      amount: 3_000,
      request_history: [{ approved: false, reason: 'card_inactive', authorization_code: null }],
    });
    await expect(client.testHelpers.issuing.authorizations.finalizeAmount(declined.id, { final_amount: 100 })).rejects.toMatchObject({
      statusCode: 400,
      code: 'authorization_amount_not_estimated',
    });
    await expect(client.testHelpers.issuing.authorizations.capture(declined.id)).rejects.toMatchObject({ statusCode: 400, code: 'authorization_not_pending' });
  });

  it('retrieves and lists authorizations by card, cardholder, status and creation time, expanding the card on request', async () => {
    const helpers = client.testHelpers.issuing.authorizations;
    const first = await activeCard();
    const second = await activeCard();
    const a = await helpers.create({ card: first.id, amount: 100 });
    const b = await helpers.create({ card: first.id, amount: 200 });
    const c = await helpers.create({ card: second.id, amount: 300 });
    await helpers.expire(b.id);

    const ids = (list: Stripe.ApiList<Stripe.Issuing.Authorization>) => list.data.map((authorization) => authorization.id);
    expect(ids(await client.issuing.authorizations.list({ card: first.id }))).toEqual([b.id, a.id]);
    expect(ids(await client.issuing.authorizations.list({ cardholder: second.cardholder.id }))).toEqual([c.id]);
    expect(ids(await client.issuing.authorizations.list({ card: first.id, status: 'expired' }))).toEqual([b.id]);
    const paged = await client.issuing.authorizations.list({ card: first.id, limit: 1 }).autoPagingToArray({ limit: 10 });
    expect(paged.map((authorization) => authorization.id)).toEqual([b.id, a.id]);

    const createdIds = ids(await client.issuing.authorizations.list({ created: { gte: a.created, lte: c.created }, limit: 100 }));
    expect(createdIds).toEqual(expect.arrayContaining([a.id, b.id, c.id]));
    expect(ids(await client.issuing.authorizations.list({ created: { gt: c.created + 1 } }))).toEqual([]);
    expect(ids(await client.issuing.authorizations.list({ created: { gt: 5, lt: 3 } }))).toEqual([]);

    const expanded = await client.issuing.authorizations.retrieve(a.id, { expand: ['card', 'cardholder'] });
    expect(expanded.card).toEqual(await client.issuing.cards.retrieve(first.id));
    expect(expanded.cardholder).toEqual(first.cardholder);
    expect((await client.issuing.authorizations.list({ card: first.id, expand: ['data.card'] })).data[0]!.card).toMatchObject({
      id: first.id,
      object: 'issuing.card',
    });

    const badStatus = await api('GET', '/v1/issuing/authorizations?status=approved', { key: secretKey });
    expect(badStatus).toMatchObject({ status: 400, body: { error: { param: 'status' } } });
    await expect(client.issuing.authorizations.retrieve('iauth_missing')).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });

  it('emits issuing_cardholder.created, issuing_card.created and issuing_authorization.created', async () => {
    const endpoint = await client.webhookEndpoints.create({
      url: `${receiver.url}?created`,
      enabled_events: ['issuing_cardholder.created', 'issuing_card.created', 'issuing_authorization.created'],
    });
    const card = await activeCard();
    const authorization = await fuelAuthorization(card);

    const events = await eventually(async () => {
      const found = receiver.received
        .filter((request) => request.path === '/hook?created')
        .map((request) => client.webhooks.constructEvent(request.body, request.headers['service-signature'] as string, endpoint.secret!));
      return found.length >= 3 ? found : undefined;
    });
    const byType = Object.fromEntries(events.map((event) => [event.type, (event.data.object as unknown as { id: string }).id]));
    expect(byType).toEqual({
      'issuing_cardholder.created': card.cardholder.id,
      'issuing_card.created': card.id,
      'issuing_authorization.created': authorization.id,
    });
  });
  /** The events one endpoint received at `path`, verified, in the order they were made (ids sort by creation), once there are `count`. */
  const eventsAt = (path: string, secret: string, count: number) =>
    eventually(async () => {
      const found = receiver.received
        .filter((request) => request.path === path)
        .map((request) => client.webhooks.constructEvent(request.body, request.headers['service-signature'] as string, secret))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      return found.length >= count ? found : undefined;
    });

  it('updates a cardholder as create takes its fields (not name or type) and emits issuing_cardholder.updated', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: `${receiver.url}?holder-updates`, enabled_events: ['issuing_cardholder.updated'] });
    const cardholder = await newCardholder({ individual: { first_name: 'Jenny', last_name: 'Rosen' }, metadata: { keep: '1', drop: '2' } });

    const updated = await client.issuing.cardholders.update(cardholder.id, {
      email: 'rosen@example.test',
      phone_number: '+15555550199',
      billing: { address: { line1: '1 Market Street', city: 'Oakland', postal_code: '94607', country: 'US' } },
      individual: { dob: { day: 1, month: 2, year: 1990 } },
      preferred_locales: ['fr'],
      status: 'inactive',
      metadata: { drop: '', added: '3' },
    });
    expect(sorted(updated)).toEqual(cardholderFields);
    expect(updated).toMatchObject({
      id: cardholder.id,
      name: 'Jenny Rosen',
      email: 'rosen@example.test',
      phone_number: '+15555550199',
      billing: { address: { line1: '1 Market Street', line2: null, city: 'Oakland', state: null, postal_code: '94607', country: 'US' } },
      individual: { first_name: 'Jenny', last_name: 'Rosen', dob: { day: 1, month: 2, year: 1990 } },
      preferred_locales: ['fr'],
      status: 'inactive',
      metadata: { keep: '1', added: '3' },
    });
    expect(await client.issuing.cardholders.retrieve(cardholder.id)).toEqual(updated);

    // An inactive cardholder's card declines
    const card = await client.issuing.cards.create({ cardholder: cardholder.id, currency: 'usd', type: 'virtual', status: 'active' });
    const declined = await client.testHelpers.issuing.authorizations.create({ card: card.id, amount: 100 });
    expect(declined).toMatchObject({ approved: false, request_history: [{ reason: 'cardholder_inactive' }] });

    const [event] = await eventsAt('/hook?holder-updates', endpoint.secret!, 1);
    expect(event!.type).toBe('issuing_cardholder.updated');
    expect(event!.data.object).toEqual(JSON.parse(JSON.stringify(updated)));
    expect(event!.data.previous_attributes).toMatchObject({ email: 'jenny@example.test', status: 'active', metadata: { keep: '1', drop: '2' } });
    expect(Object.keys(event!.data.previous_attributes!).sort()).toEqual([
      'billing',
      'email',
      'individual',
      'metadata',
      'phone_number',
      'preferred_locales',
      'status',
    ]);

    // What create refuses, update refuses; what the reference's update does not take, neither does this one
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ company: { tax_id: '000000000' } }, 'company'],
      [{ status: 'blocked' }, 'status'],
      [{ phone_number: '555-0123' }, 'phone_number'],
      [{ name: 'Another Name' }, 'name'],
      [{ type: 'company' }, 'type'],
      [{ spending_controls: { spending_limits_currency: 'usd' } }, 'spending_controls'],
      [{ billing: { address: { line1: 'Only a line' } } }, 'billing[address][city]'],
    ];
    for (const [params, param] of refusals) {
      await expect(client.issuing.cardholders.update(cardholder.id, params as never), param).rejects.toMatchObject({ statusCode: 400, param });
    }
    await expect(client.issuing.cardholders.update('ich_missing', { email: 'x@example.test' })).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
    });
    expect(await client.issuing.cardholders.retrieve(cardholder.id)).toEqual(updated);
  });

  it('activates, deactivates and cancels a card for good, which then declines with card_canceled, emitting issuing_card.updated', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: `${receiver.url}?card-updates`, enabled_events: ['issuing_card.updated'] });
    const cardholder = await newCardholder();
    const card = await client.issuing.cards.create({ cardholder: cardholder.id, currency: 'usd', type: 'physical', metadata: { batch: '7' } });

    const active = await client.issuing.cards.update(card.id, { status: 'active', metadata: { batch: '', lane: '3' } });
    expect(active).toMatchObject({ status: 'active', cancellation_reason: null, metadata: { lane: '3' }, cardholder: { id: cardholder.id } });
    expect(await client.issuing.cards.update(card.id, { status: 'inactive' })).toMatchObject({ status: 'inactive' });
    await expect(client.issuing.cards.update(card.id, { cancellation_reason: 'lost' })).rejects.toMatchObject({
      statusCode: 400,
      param: 'cancellation_reason',
    });
    const canceled = await client.issuing.cards.update(card.id, { status: 'canceled', cancellation_reason: 'stolen' });
    expect(sorted(canceled)).toEqual(cardFields);
    expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'stolen', metadata: { lane: '3' } });
    expect(await client.issuing.cards.retrieve(card.id)).toEqual(canceled);

    // One way: a canceled card is never active or inactive again; its metadata may still change
    for (const status of ['active', 'inactive'] as const) {
      await expect(client.issuing.cards.update(card.id, { status })).rejects.toMatchObject({
        statusCode: 400,
        type: 'StripeInvalidRequestError',
        param: 'status',
        message: expect.stringContaining('canceled'),
      });
    }
    // and its cancellation_reason is final with it
    await expect(client.issuing.cards.update(card.id, { cancellation_reason: 'lost' })).rejects.toMatchObject({
      statusCode: 400,
      param: 'cancellation_reason',
      message: expect.stringContaining('final'),
    });
    expect(await client.issuing.cards.update(card.id, { metadata: { note: 'shredded' } })).toMatchObject({ status: 'canceled', cancellation_reason: 'stolen' });
    expect((await client.issuing.cards.list({ cardholder: cardholder.id, status: 'canceled' })).data.map((listed) => listed.id)).toEqual([card.id]);

    const declined = await client.testHelpers.issuing.authorizations.create({ card: card.id, amount: 500 });
    expect(declined).toMatchObject({ approved: false, status: 'closed', request_history: [{ approved: false, reason: 'card_canceled' }] });

    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ status: 'lost' }, 'status'],
      [{ cancellation_reason: 'design_rejected' }, 'cancellation_reason'],
      [{ spending_controls: { allowed_categories: ['taxicabs_limousines'] } }, 'spending_controls'],
      [{ shipping: { name: 'Jenny' } }, 'shipping'],
    ];
    for (const [params, param] of refusals) {
      await expect(client.issuing.cards.update(card.id, params as never), param).rejects.toMatchObject({ statusCode: 400, param });
    }
    await expect(client.issuing.cards.update('ic_missing', { status: 'active' })).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });

    const events = await eventsAt('/hook?card-updates', endpoint.secret!, 4);
    expect(events.map((event) => (event.data.object as unknown as Stripe.Issuing.Card).status)).toEqual(['active', 'inactive', 'canceled', 'canceled']);
    expect(events.map((event) => event.data.previous_attributes)).toEqual([
      { status: 'inactive', metadata: { batch: '7' } },
      { status: 'active' },
      { status: 'inactive', cancellation_reason: null },
      { metadata: { lane: '3' } },
    ]);
    expect(events[2]!.data.object).toEqual(JSON.parse(JSON.stringify(canceled)));
  });

  it('makes a capture transaction with each capture, shown by the authorization, and emits issuing_transaction.created', async () => {
    const endpoint = await client.webhookEndpoints.create({
      url: `${receiver.url}?captures`,
      enabled_events: ['issuing_transaction.created', 'issuing_authorization.updated'],
    });
    const card = await activeCard();
    const authorization = await fuelAuthorization(card, 10_000);
    await client.testHelpers.issuing.authorizations.finalizeAmount(authorization.id, {
      final_amount: 6_000,
      fleet: { purchase_type: 'fuel_purchase', cardholder_prompt_data: { driver_id: 'D-1' } },
      fuel: { type: 'diesel', unit: 'liter', quantity_decimal: decimal('40.5'), unit_cost_decimal: decimal('148.1') },
    });

    const captured = await client.testHelpers.issuing.authorizations.capture(authorization.id, {
      capture_amount: 6_000,
      purchase_details: { reference: 'ORDER-1', receipt: [{ description: 'Diesel', quantity: decimal('40.5'), total: 6_000, unit_cost: 148 }] },
    });
    expect(captured).toMatchObject({ status: 'closed', amount: 6_000 });
    expect(captured.transactions).toHaveLength(1);
    const transaction = captured.transactions[0]!;
    expect(transaction.id).toMatch(/^ipi_/);
    expect(sorted(transaction)).toEqual(transactionFields);
    expect(transaction).toMatchObject({
      object: 'issuing.transaction',
      type: 'capture',
      amount: -6_000,
      merchant_amount: -6_000,
      currency: 'usd',
      merchant_currency: 'usd',
      authorization: authorization.id,
      card: card.id,
      cardholder: card.cardholder.id,
      balance_transaction: null,
      dispute: null,
      livemode: false,
      metadata: {},
      merchant_data: { category: 'automated_fuel_dispensers', category_code: '5542', name: 'Pump 4' },
      network_data: { authorization_code: authorization.request_history[0]!.authorization_code, transaction_id: null },
      wallet: null,
    });
    expect(transaction.network_data!.processing_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const details = transaction.purchase_details!;
    expect(details).toMatchObject({
      fleet: { purchase_type: 'fuel_purchase', cardholder_prompt_data: { driver_id: 'D-1', odometer: null } },
      flight: null,
      lodging: null,
      reference: 'ORDER-1',
      receipt: [{ description: 'Diesel', quantity: 40.5, total: 6_000, unit_cost: 148 }],
      fuel: { type: 'diesel', unit: 'liter' },
    });
    expect([details.fuel!.quantity_decimal, details.fuel!.unit_cost_decimal].map(text)).toEqual(['40.5', '148.1']);

    // GET shows the same, on the transaction and on its authorization
    expect(await client.issuing.transactions.retrieve(transaction.id)).toEqual(transaction);
    expect(await client.issuing.authorizations.retrieve(authorization.id)).toEqual(captured);
    expect(await client.issuing.transactions.retrieve(transaction.id, { expand: ['card', 'cardholder'] })).toMatchObject({
      card: { id: card.id, object: 'issuing.card' },
      cardholder: { id: card.cardholder.id, object: 'issuing.cardholder' },
    });

    const events = await eventsAt('/hook?captures', endpoint.secret!, 3);
    const created = events.find((event) => event.type === 'issuing_transaction.created')!;
    expect(created.data.object).toEqual(JSON.parse(JSON.stringify(transaction)));
    const captureUpdate = events.filter((event) => event.type === 'issuing_authorization.updated').at(-1)!;
    expect(captureUpdate.data.object).toEqual(JSON.parse(JSON.stringify(captured)));
    expect(captureUpdate.data.previous_attributes).toMatchObject({ status: 'pending', transactions: [] });
  });

  it('refunds a capture with the test helper as refund transactions of the same authorization, never more than was captured', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: `${receiver.url}?refunds`, enabled_events: ['issuing_transaction.created'] });
    const card = await activeCard();
    const helpers = client.testHelpers.issuing.authorizations;
    const authorization = await helpers.create({ card: card.id, amount: 3_000, merchant_data: { category: 'taxicabs_limousines', name: 'Cab' } });
    // A partial capture, then a reverse of the rest: a reverse only releases the hold, so it makes no transaction
    await helpers.capture(authorization.id, { capture_amount: 2_000, close_authorization: false });
    const reversed = await helpers.reverse(authorization.id);
    expect(reversed).toMatchObject({ status: 'reversed', amount: 0 });
    expect(reversed.transactions.map((transaction) => [transaction.type, transaction.amount])).toEqual([['capture', -2_000]]);
    const capture = reversed.transactions[0]!;

    const partial = await client.testHelpers.issuing.transactions.refund(capture.id, { refund_amount: 500 });
    expect(sorted(partial)).toEqual(transactionFields);
    expect(partial).toMatchObject({
      object: 'issuing.transaction',
      type: 'refund',
      amount: 500,
      merchant_amount: 500,
      authorization: authorization.id,
      card: card.id,
      cardholder: card.cardholder.id,
      merchant_data: { category: 'taxicabs_limousines', name: 'Cab' },
      purchase_details: null,
    });
    expect(partial.id).not.toBe(capture.id);
    await expect(client.testHelpers.issuing.transactions.refund(capture.id, { refund_amount: 1_501 })).rejects.toMatchObject({
      statusCode: 400,
      code: 'amount_too_large',
      param: 'refund_amount',
    });
    const rest = await client.testHelpers.issuing.transactions.refund(capture.id);
    expect(rest).toMatchObject({ type: 'refund', amount: 1_500 });
    await expect(client.testHelpers.issuing.transactions.refund(capture.id)).rejects.toMatchObject({ statusCode: 400 });
    await expect(client.testHelpers.issuing.transactions.refund(rest.id)).rejects.toMatchObject({ statusCode: 400 });
    await expect(client.testHelpers.issuing.transactions.refund('ipi_missing')).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });

    // The capture is unchanged; the authorization shows all three, oldest first
    expect(await client.issuing.transactions.retrieve(capture.id)).toEqual(capture);
    const shown = await client.issuing.authorizations.retrieve(authorization.id);
    expect(shown.transactions.map((transaction) => [transaction.id, transaction.amount])).toEqual([
      [capture.id, -2_000],
      [partial.id, 500],
      [rest.id, 1_500],
    ]);
    expect(shown.status).toBe('reversed');

    const events = await eventsAt('/hook?refunds', endpoint.secret!, 3);
    expect(events.map((event) => [event.type, (event.data.object as unknown as Stripe.Issuing.Transaction).id])).toEqual([
      ['issuing_transaction.created', capture.id],
      ['issuing_transaction.created', partial.id],
      ['issuing_transaction.created', rest.id],
    ]);
    expect(events[1]!.data.object).toEqual(JSON.parse(JSON.stringify(partial)));

    const live = sdk((await newPlatform({ livemode: true })).secret_key);
    await expect(live.testHelpers.issuing.transactions.refund(capture.id)).rejects.toMatchObject({ statusCode: 400, code: 'livemode_mismatch' });

    // Two full refunds at once: the capture, its refunded total and the refund are one write, so one wins
    const other = (await helpers.capture((await helpers.create({ card: card.id, amount: 800 })).id)).transactions[0]!;
    const outcomes = await Promise.allSettled([
      client.testHelpers.issuing.transactions.refund(other.id),
      client.testHelpers.issuing.transactions.refund(other.id),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({ reason: { statusCode: 400, code: 'charge_already_refunded' } });
    const refunds = await client.issuing.transactions.list({ card: card.id, type: 'refund', limit: 100 });
    expect(refunds.data.filter((transaction) => transaction.authorization === other.authorization).map((transaction) => transaction.amount)).toEqual([800]);
  });

  it('refuses captures and metadata that would overfill an authorization’s transactions, but still reverses, expires and refunds it', async () => {
    const card = await activeCard();
    const helpers = client.testHelpers.issuing.authorizations;
    const authorization = await helpers.create({ card: card.id, amount: 100_000 });
    const receipt = Array.from(
      { length: 100 },
      (_, i) => `purchase_details[receipt][${i}][description]=${'x'.repeat(200)}&purchase_details[receipt][${i}][total]=${i}`,
    ).join('&');
    const bigCapture = () =>
      api('POST', `/v1/test_helpers/issuing/authorizations/${authorization.id}/capture`, {
        key: secretKey,
        form: `capture_amount=10&close_authorization=false&${receipt}`,
      });

    // Three captures with the largest receipts fit; the fourth is refused as growth, naming why
    expect([(await bigCapture()).status, (await bigCapture()).status, (await bigCapture()).status]).toEqual([200, 200, 200]);
    const refused = await bigCapture();
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'authorization_transactions_full' });
    expect(refused.body.error.message).toMatch(/transactions of the authorization .* are full/);

    // Small captures, then metadata that would take them over the room, is refused as well
    const small = await helpers.capture(authorization.id, { capture_amount: 10, close_authorization: false });
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${String(i).padStart(38, '0')}`, 'v'.repeat(500)]));
    await expect(client.issuing.transactions.update(small.transactions.at(-1)!.id, { metadata })).rejects.toMatchObject({
      statusCode: 400,
      code: 'authorization_transactions_full',
    });

    // What releases the hold and gives money back always works
    const refund = await client.testHelpers.issuing.transactions.refund(small.transactions[0]!.id, { refund_amount: 1 });
    expect(refund).toMatchObject({ type: 'refund', amount: 1 });
    await client.issuing.authorizations.update(authorization.id, { metadata: { order: '1' } });
    expect(await helpers.reverse(authorization.id, { reverse_amount: 100 })).toMatchObject({ status: 'pending' });
    const expired = await helpers.expire(authorization.id);
    expect(expired).toMatchObject({ status: 'expired', metadata: { order: '1' } });
    expect(expired.transactions).toHaveLength(5);
  });

  it('lists transactions by card, cardholder, type and creation time, and updates their metadata with issuing_transaction.updated', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: `${receiver.url}?transaction-updates`, enabled_events: ['issuing_transaction.updated'] });
    const helpers = client.testHelpers.issuing.authorizations;
    const first = await activeCard();
    const second = await activeCard();
    const a = (await helpers.capture((await helpers.create({ card: first.id, amount: 100 })).id)).transactions[0]!;
    const b = (await helpers.capture((await helpers.create({ card: first.id, amount: 200 })).id)).transactions[0]!;
    const c = (await helpers.capture((await helpers.create({ card: second.id, amount: 300 })).id)).transactions[0]!;
    const refund = await client.testHelpers.issuing.transactions.refund(b.id, { refund_amount: 50 });

    const ids = (list: Stripe.ApiList<Stripe.Issuing.Transaction>) => list.data.map((transaction) => transaction.id);
    expect(ids(await client.issuing.transactions.list({ card: first.id }))).toEqual([refund.id, b.id, a.id]);
    expect(ids(await client.issuing.transactions.list({ card: first.id, type: 'capture' }))).toEqual([b.id, a.id]);
    expect(ids(await client.issuing.transactions.list({ card: first.id, type: 'refund' }))).toEqual([refund.id]);
    expect(ids(await client.issuing.transactions.list({ cardholder: second.cardholder.id }))).toEqual([c.id]);
    const paged = await client.issuing.transactions.list({ card: first.id, limit: 1 }).autoPagingToArray({ limit: 10 });
    expect(paged.map((transaction) => transaction.id)).toEqual([refund.id, b.id, a.id]);
    const page = await client.issuing.transactions.list({ card: first.id, limit: 2 });
    expect(page).toMatchObject({ object: 'list', url: '/v1/issuing/transactions', has_more: true });
    expect(ids(await client.issuing.transactions.list({ card: first.id, ending_before: a.id }))).toEqual([refund.id, b.id]);
    expect(ids(await client.issuing.transactions.list({ created: { gte: a.created, lte: refund.created }, limit: 100 }))).toEqual(
      expect.arrayContaining([a.id, b.id, c.id, refund.id]),
    );
    expect(ids(await client.issuing.transactions.list({ created: { gt: refund.created + 1 } }))).toEqual([]);
    expect((await client.issuing.transactions.list({ card: second.id, expand: ['data.card'] })).data[0]!.card).toMatchObject({ id: second.id });
    const badType = await api('GET', '/v1/issuing/transactions?type=chargeback', { key: secretKey });
    expect(badType).toMatchObject({ status: 400, body: { error: { param: 'type' } } });

    const updated = await client.issuing.transactions.update(a.id, { metadata: { order: '42' } });
    expect(updated).toEqual({ ...a, metadata: { order: '42' } });
    expect(await client.issuing.transactions.retrieve(a.id)).toEqual(updated);
    const cleared = await client.issuing.transactions.update(a.id, { metadata: '' });
    expect(cleared.metadata).toEqual({});
    await expect(client.issuing.transactions.update(a.id, { amount: 5 } as never)).rejects.toMatchObject({ statusCode: 400, param: 'amount' });
    await expect(client.issuing.transactions.retrieve('ipi_missing')).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });

    const events = await eventsAt('/hook?transaction-updates', endpoint.secret!, 2);
    expect(events.map((event) => [event.data.previous_attributes, (event.data.object as unknown as Stripe.Issuing.Transaction).metadata])).toEqual([
      [{ metadata: {} }, { order: '42' }],
      [{ metadata: { order: '42' } }, {}],
    ]);
    expect(events[0]!.data.object).toEqual(JSON.parse(JSON.stringify(updated)));
  });

  it("updates an authorization's metadata in any status, showing it in issuing_authorization.updated", async () => {
    const endpoint = await client.webhookEndpoints.create({ url: `${receiver.url}?authorization-metadata`, enabled_events: ['issuing_authorization.updated'] });
    const card = await activeCard();
    const authorization = await client.testHelpers.issuing.authorizations.expire(
      (await client.testHelpers.issuing.authorizations.create({ card: card.id, amount: 900 })).id,
    );
    const updated = await client.issuing.authorizations.update(authorization.id, { metadata: { trip: 'paris' } });
    expect(updated).toEqual({ ...authorization, metadata: { trip: 'paris' } });
    expect(await client.issuing.authorizations.retrieve(authorization.id)).toEqual(updated);
    expect(await client.issuing.authorizations.update(authorization.id, { metadata: { trip: '' }, expand: ['card'] })).toMatchObject({
      metadata: {},
      card: { id: card.id, object: 'issuing.card' },
    });
    await expect(client.issuing.authorizations.update(authorization.id, { amount: 1 } as never)).rejects.toMatchObject({ statusCode: 400, param: 'amount' });
    await expect(client.issuing.authorizations.update('iauth_missing', { metadata: { a: '1' } })).rejects.toMatchObject({ statusCode: 404 });

    const events = await eventsAt('/hook?authorization-metadata', endpoint.secret!, 3);
    const [, first, second] = events;
    expect(first!.data).toMatchObject({ object: { id: authorization.id, metadata: { trip: 'paris' } }, previous_attributes: { metadata: {} } });
    expect(second!.data.previous_attributes).toEqual({ metadata: { trip: 'paris' } });
  });

  it('makes force captures and unlinked refunds on a card without an authorization, with issuing_transaction.created', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: `${receiver.url}?unlinked`, enabled_events: ['issuing_transaction.created'] });
    const card = await activeCard();
    const transactions = client.testHelpers.issuing.transactions;
    const merchant_data = { category: 'hotels_motels_and_resorts' as const, name: 'Inn', city: 'Boston', country: 'US', postal_code: '02110' };
    const purchase_details = {
      lodging: { check_in_at: 1533651200, nights: 2 },
      fuel: { type: 'unleaded_regular' as const, unit: 'us_gallon' as const, quantity_decimal: decimal('3.25') },
      receipt: [{ description: 'Room charge', quantity: decimal('1'), total: 200, unit_cost: 200 }],
      reference: 'STAY-1',
    };

    const forced = await transactions.createForceCapture({ amount: 4_200, card: card.id, merchant_data, purchase_details });
    expect(sorted(forced)).toEqual(transactionFields);
    expect(forced).toMatchObject({
      object: 'issuing.transaction',
      type: 'capture',
      authorization: null,
      amount: -4_200,
      merchant_amount: -4_200,
      currency: 'usd',
      merchant_currency: 'usd',
      amount_details: null,
      card: card.id,
      cardholder: card.cardholder.id,
      livemode: false,
      merchant_data: { ...merchant_data, category_code: '7011', state: null, terminal_id: null },
      network_data: { authorization_code: null, transaction_id: null },
      purchase_details: {
        fleet: null,
        flight: null,
        lodging: { check_in_at: 1533651200, nights: 2 },
        fuel: { type: 'unleaded_regular', unit: 'us_gallon', industry_product_code: null },
        receipt: [{ description: 'Room charge', quantity: 1, total: 200, unit_cost: 200 }],
        reference: 'STAY-1',
      },
      wallet: null,
    });
    expect(text(forced.purchase_details!.fuel!.quantity_decimal)).toBe('3.25');
    expect(forced.network_data!.processing_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    const unlinked = await transactions.createUnlinkedRefund({ amount: 1_000, card: card.id, currency: 'usd', expand: ['card'] });
    expect(unlinked).toMatchObject({ type: 'refund', authorization: null, amount: 1_000, merchant_amount: 1_000, purchase_details: null });
    expect(unlinked.card).toMatchObject({ id: card.id, object: 'issuing.card' });
    expect(unlinked.merchant_data).toMatchObject({
      category: 'miscellaneous_general_merchandise',
      category_code: '5399',
      network_id: expect.stringMatching(/^\d{10}$/),
    });

    // They read back and list like any transaction; a force capture can be refunded, an unlinked refund cannot
    expect(await client.issuing.transactions.retrieve(forced.id)).toEqual(forced);
    const listed = await client.issuing.transactions.list({ card: card.id });
    expect(listed.data.map((transaction) => [transaction.id, transaction.type])).toEqual([
      [unlinked.id, 'refund'],
      [forced.id, 'capture'],
    ]);
    expect(await transactions.refund(forced.id, { refund_amount: 200 })).toMatchObject({ type: 'refund', amount: 200, authorization: null });
    await expect(transactions.refund(unlinked.id)).rejects.toMatchObject({ statusCode: 400 });

    const events = await eventsAt('/hook?unlinked', endpoint.secret!, 3);
    expect(events.map((event) => event.type)).toEqual(['issuing_transaction.created', 'issuing_transaction.created', 'issuing_transaction.created']);
    expect(events[0]!.data.object).toEqual(JSON.parse(JSON.stringify(forced)));

    // Refusals: parameters, another platform's card, another currency, a live key
    await expect(transactions.createForceCapture({ card: card.id } as never)).rejects.toMatchObject({ statusCode: 400, param: 'amount' });
    await expect(transactions.createUnlinkedRefund({ amount: 0, card: card.id })).rejects.toMatchObject({ statusCode: 400, param: 'amount' });
    await expect(transactions.createForceCapture({ amount: 1, card: card.id, purchase_details: { fuel: { unit: 'barrel' } } })).rejects.toMatchObject({
      statusCode: 400,
      param: 'purchase_details[fuel][unit]',
    });
    await expect(transactions.createForceCapture({ amount: 1, card: card.id, currency: 'eur' })).rejects.toMatchObject({ statusCode: 400, param: 'currency' });
    const stranger = sdk((await newPlatform()).secret_key);
    await expect(stranger.testHelpers.issuing.transactions.createForceCapture({ amount: 1, card: card.id })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'card',
    });
    const live = sdk((await newPlatform({ livemode: true })).secret_key);
    await expect(live.testHelpers.issuing.transactions.createUnlinkedRefund({ amount: 1, card: card.id })).rejects.toMatchObject({
      statusCode: 400,
      code: 'livemode_mismatch',
    });
    expect((await client.issuing.transactions.list({ card: card.id, limit: 100 })).data).toHaveLength(3);
  });

  it('refuses approve and decline, as no authorization here has a pending request, after checking parameters and the id', async () => {
    const card = await activeCard();
    const pending = await client.testHelpers.issuing.authorizations.create({ card: card.id, amount: 700, is_amount_controllable: true });
    const closed = await client.testHelpers.issuing.authorizations.capture(
      (await client.testHelpers.issuing.authorizations.create({ card: card.id, amount: 300 })).id,
    );
    expect(pending.pending_request).toBeNull();

    for (const authorization of [pending, closed]) {
      for (const answer of [
        () => client.issuing.authorizations.approve(authorization.id, { amount: 500, metadata: { order: '1' } }),
        () => client.issuing.authorizations.decline(authorization.id, { metadata: { order: '1' }, expand: ['card'] }),
      ]) {
        await expect(answer()).rejects.toMatchObject({
          statusCode: 400,
          type: 'StripeInvalidRequestError',
          code: 'authorization_no_pending_request',
          message: expect.stringContaining(`The authorization ${authorization.id} has no pending request`),
        });
      }
    }

    // Parameters are checked first, then the id: another platform's or mode's authorization is not found
    await expect(client.issuing.authorizations.approve(pending.id, { amount: 0 })).rejects.toMatchObject({ statusCode: 400, param: 'amount' });
    await expect(client.issuing.authorizations.approve('iauth_missing', { amount: -1 })).rejects.toMatchObject({ statusCode: 400, param: 'amount' });
    await expect(client.issuing.authorizations.decline(pending.id, { amount: 5 } as never)).rejects.toMatchObject({ statusCode: 400, param: 'amount' });
    await expect(client.issuing.authorizations.decline(pending.id, { metadata: { ['k'.repeat(41)]: 'v' } })).rejects.toMatchObject({ statusCode: 400 });
    await expect(client.issuing.authorizations.approve('iauth_missing')).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
    const stranger = sdk((await newPlatform()).secret_key);
    await expect(stranger.issuing.authorizations.approve(pending.id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
    const live = sdk((await newPlatform({ livemode: true })).secret_key);
    await expect(live.issuing.authorizations.decline(pending.id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });

    // Nothing changed, and nothing was emitted
    expect(await client.issuing.authorizations.retrieve(pending.id)).toEqual(pending);
    const updates = await client.events.list({ type: 'issuing_authorization.updated', limit: 100 });
    expect(updates.data.filter((event) => (event.data.object as unknown as Stripe.Issuing.Authorization).id === pending.id)).toEqual([]);
  });
});
