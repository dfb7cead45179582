import { describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { createAccountParams, createPersonParams, updateAccountParams } from '#shared/accounts/schemas.ts';
import { createCustomerParams, listCustomersParams } from '#shared/customers/schemas.ts';
import { createEventDestinationParams, updateEventDestinationParams } from '#shared/event-destinations/schemas.ts';
import { InvalidRequestError } from '#shared/core/errors.ts';
import { errorResponse, type ApiGeneration } from '#shared/http/error-mapping.ts';
import { maxEmailLength } from '#shared/wire/params.ts';
import { validateParams } from '#shared/http/validation.ts';
import { createCardholderParams, listCardholdersParams } from '#shared/issuing/schemas.ts';
import { createPriceParams } from '#shared/catalogue/schemas.ts';
import { createTokenParams } from '#shared/tokens/schemas.ts';

/**
 * The parsed params, or the status of the answer and the parameter the error names: v1 bodies carry it as
 * `param`, v2 bodies have no `param` and name it (dotted) in the message, which is checked here too.
 */
function answer(schema: z.ZodType, params: Record<string, unknown>, api: ApiGeneration) {
  try {
    return { parsed: validateParams(schema, params, api) as Record<string, unknown> };
  } catch (error) {
    if (!(error instanceof InvalidRequestError)) throw error;
    const response = errorResponse(error, api, 'req_test');
    const body = response.body as { error: { param?: string | null; message: string } };
    if (api === 'v1') expect(body.error.param).toBe(error.param);
    else if (error.param) expect(body.error.message).toContain(error.param);
    return { status: response.status, param: error.param };
  }
}

const emailOf = (length: number) => `${'a'.repeat(length - '@example.com'.length)}@example.com`;

const billing = { address: { city: 'Berlin', country: 'DE', line1: 'Unter den Linden 1', postal_code: '10117' } };

describe('email is one parameter with one bound everywhere', () => {
  it.each([
    ['a v1 customer', createCustomerParams, (email: string) => ({ email }), 'v1', 'email'],
    ['a v1 cardholder', createCardholderParams, (email: string) => ({ name: 'Jenny Rosen', billing, email }), 'v1', 'email'],
    ['a v1 token person', createTokenParams, (email: string) => ({ person: { email } }), 'v1', 'person[email]'],
    ['a v2 account', createAccountParams, (email: string) => ({ contact_email: email }), 'v2', 'contact_email'],
    ['a v2 person', createPersonParams, (email: string) => ({ email }), 'v2', 'email'],
  ] as const)('Given %s, when the email has the maximum length it is taken, and one character more is a 400 naming it', (_, schema, params, api, param) => {
    // Given an address of exactly the bound, and one a character longer
    const longest = emailOf(maxEmailLength);
    // Then the longest is taken as given
    expect(answer(schema, params(longest), api).parsed).toBeDefined();
    // And one more character is a 400 that names the parameter
    expect(answer(schema, params(emailOf(maxEmailLength + 1)), api)).toMatchObject({ status: 400, param });
  });

  it('Given an email filter of a list, when it is longer than an email can be, then it is a 400 naming it', () => {
    expect(answer(listCustomersParams, { email: emailOf(maxEmailLength) }, 'v1').parsed).toBeDefined();
    expect(answer(listCustomersParams, { email: emailOf(maxEmailLength + 1) }, 'v1')).toMatchObject({ status: 400, param: 'email' });
    expect(answer(listCardholdersParams, { email: emailOf(maxEmailLength) }, 'v1').parsed).toBeDefined();
    expect(answer(listCardholdersParams, { email: emailOf(maxEmailLength + 1) }, 'v1')).toMatchObject({ status: 400, param: 'email' });
  });
});

describe('addresses share one shape and its bounds', () => {
  const bounds = [
    ['line1', 200],
    ['line2', 200],
    ['city', 200],
    ['state', 200],
    ['postal_code', 20],
  ] as const;

  it.each(bounds)('Given a v1 customer address, when %s has its maximum length it is taken, and one more is a 400 naming it', (field, max) => {
    expect(answer(createCustomerParams, { address: { [field]: 'x'.repeat(max) } }, 'v1').parsed).toBeDefined();
    expect(answer(createCustomerParams, { address: { [field]: 'x'.repeat(max + 1) } }, 'v1')).toMatchObject({ status: 400, param: `address[${field}]` });
  });

  it.each(bounds)('Given a v1 token person address in Japan, when %s has its maximum length it is taken, and one more is a 400 naming it', (field, max) => {
    const params = (value: string) => ({ person: { address_kana: { [field]: value } } });
    expect(answer(createTokenParams, params('x'.repeat(max)), 'v1').parsed).toBeDefined();
    expect(answer(createTokenParams, params('x'.repeat(max + 1)), 'v1')).toMatchObject({ status: 400, param: `person[address_kana][${field}]` });
  });

  it.each([...bounds, ['town', 200] as const])(
    'Given a v2 person address, when %s has its maximum length it is taken, and one more is a 400 naming it',
    (field, max) => {
      const params = (value: string) => ({ address: { country: 'us', [field]: value } });
      expect(answer(createPersonParams, params('x'.repeat(max)), 'v2').parsed).toBeDefined();
      expect(answer(createPersonParams, params('x'.repeat(max + 1)), 'v2')).toMatchObject({ status: 400, param: `address.${field}` });
    },
  );

  it('Given a v2 address, when it is created without a country, then it is a 400 naming it; on update the country may be left out', () => {
    const business = (address: Record<string, string>) => ({ identity: { business_details: { address } } });
    expect(answer(createAccountParams, business({ city: 'Berlin' }), 'v2')).toMatchObject({ status: 400, param: 'identity.business_details.address.country' });
    expect(answer(updateAccountParams, business({ city: 'Berlin' }), 'v2').parsed).toBeDefined();
  });

  it("Given a cardholder's billing address, when a line the reference requires is empty or missing, then it is a 400 naming it", () => {
    const withAddress = (address: Record<string, string>) => ({ name: 'Jenny Rosen', billing: { address } });
    expect(answer(createCardholderParams, withAddress({ ...billing.address, city: '' }), 'v1')).toMatchObject({ status: 400, param: 'billing[address][city]' });
    const { postal_code: _, ...withoutPostalCode } = billing.address;
    expect(answer(createCardholderParams, withAddress(withoutPostalCode), 'v1')).toMatchObject({ status: 400, param: 'billing[address][postal_code]' });
    expect(answer(createCardholderParams, withAddress({ ...billing.address, line2: 'x'.repeat(201) }), 'v1')).toMatchObject({
      status: 400,
      param: 'billing[address][line2]',
    });
  });
});

describe('country and currency codes are taken in any case and answered as the reference writes them', () => {
  it('Given country codes in lower case, when a v1 customer, a cardholder and a v2 person are made, then each is upper-cased', () => {
    expect(answer(createCustomerParams, { address: { country: 'de' } }, 'v1').parsed).toMatchObject({ address: { country: 'DE' } });
    expect(answer(createCardholderParams, { name: 'Jenny Rosen', billing: { address: { ...billing.address, country: 'de' } } }, 'v1').parsed).toMatchObject({
      billing: { address: { country: 'DE' } },
    });
    expect(answer(createPersonParams, { address: { country: 'de' } }, 'v2').parsed).toMatchObject({ address: { country: 'DE' } });
  });

  it('Given a country code of three letters, when it is sent, then it is a 400 naming it', () => {
    expect(answer(createCustomerParams, { address: { country: 'DEU' } }, 'v1')).toMatchObject({ status: 400, param: 'address[country]' });
    expect(answer(createPersonParams, { address: { country: 'DEU' } }, 'v2')).toMatchObject({ status: 400, param: 'address.country' });
  });

  it('Given a currency in upper case, when a price is made, then it is lower-cased; a code of four letters is a 400 naming it', () => {
    expect(answer(createPriceParams, { currency: 'EUR', unit_amount: '100', product: 'prod_1' }, 'v1').parsed).toMatchObject({ currency: 'eur' });
    expect(answer(createPriceParams, { currency: 'EURO', unit_amount: '100', product: 'prod_1' }, 'v1')).toMatchObject({ status: 400, param: 'currency' });
  });
});

describe('phones given as free text share one bound', () => {
  it('Given a v1 customer phone and a v2 account contact phone, when they have 40 characters they are taken, and 41 is a 400 naming them', () => {
    expect(answer(createCustomerParams, { phone: '1'.repeat(40) }, 'v1').parsed).toBeDefined();
    expect(answer(createCustomerParams, { phone: '1'.repeat(41) }, 'v1')).toMatchObject({ status: 400, param: 'phone' });
    expect(answer(createCustomerParams, { shipping: { name: 'Jenny', address: {}, phone: '1'.repeat(41) } }, 'v1')).toMatchObject({
      status: 400,
      param: 'shipping[phone]',
    });
    expect(answer(createAccountParams, { contact_phone: '1'.repeat(40) }, 'v2').parsed).toBeDefined();
    expect(answer(createAccountParams, { contact_phone: '1'.repeat(41) }, 'v2')).toMatchObject({ status: 400, param: 'contact_phone' });
  });
});

describe('metadata keeps the same bounds on v1 and v2', () => {
  const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`k${index}`, 'v']));
  const destination = { name: 'd', type: 'webhook_endpoint', enabled_events: ['customer.created'], event_payload: 'snapshot' };

  it('Given v2 metadata, when it has a 40-character key, a 500-character value and 50 keys it is taken, and one more of any is a 400 naming it', () => {
    const create = (metadata: Record<string, unknown>) => answer(createAccountParams, { metadata }, 'v2');
    expect(create({ ['k'.repeat(40)]: 'v'.repeat(500) }).parsed).toBeDefined();
    expect(create(fifty).parsed).toBeDefined();
    expect(create({ ['k'.repeat(41)]: 'v' })).toMatchObject({ status: 400 });
    expect(create({ k: 'v'.repeat(501) })).toMatchObject({ status: 400, param: 'metadata.k' });
    expect(create({ ...fifty, extra: 'v' })).toMatchObject({ status: 400, param: 'metadata' });
    expect(answer(createEventDestinationParams, { ...destination, metadata: { k: 'v'.repeat(501) } }, 'v2')).toMatchObject({
      status: 400,
      param: 'metadata.k',
    });
  });

  it('Given v2 metadata with a null value, when a destination is updated it removes the key, and when one is created it is a 400 naming it', () => {
    expect(answer(updateEventDestinationParams, { metadata: { k: null } }, 'v2').parsed).toEqual({ metadata: { k: null } });
    expect(answer(createEventDestinationParams, { ...destination, metadata: { k: null } }, 'v2')).toMatchObject({ status: 400, param: 'metadata.k' });
  });
});

describe('dates of birth are one parameter: a real calendar date, not in the future', () => {
  const nextYear = new Date().getUTCFullYear() + 1;

  it.each([
    ['a v1 token person', createTokenParams, (dob: object) => ({ person: { dob } }), 'v1', 'person[dob]'],
    ['a v1 cardholder', createCardholderParams, (dob: object) => ({ name: 'Jenny Rosen', billing, individual: { dob } }), 'v1', 'individual[dob]'],
    ['a v2 person', createPersonParams, (dob: object) => ({ date_of_birth: dob }), 'v2', 'date_of_birth'],
  ] as const)('Given %s, when the date of birth is not a real date or lies in the future, then it is a 400 naming it', (_, schema, params, api, param) => {
    // Given a real past date, the 31st of February, and a date next year
    expect(answer(schema, params({ day: 29, month: 2, year: 2000 }), api).parsed).toBeDefined();
    // Then the impossible and the future dates are refused, naming the date of birth
    expect(answer(schema, params({ day: 31, month: 2, year: 1990 }), api)).toMatchObject({ status: 400, param });
    expect(answer(schema, params({ day: 1, month: 1, year: nextYear }), api)).toMatchObject({ status: 400, param });
    // And a year before 1900 is a 400 naming the year
    expect(answer(schema, params({ day: 1, month: 1, year: 1899 }), api)).toMatchObject({
      status: 400,
      param: api === 'v1' ? `${param}[year]` : `${param}.year`,
    });
  });

  it('Given a business registration date, when it lies in the future it is taken (only a date of birth must be past), and an impossible date is a 400 naming it', () => {
    const business = (registration_date: object) => ({ identity: { business_details: { registration_date } } });
    expect(answer(updateAccountParams, business({ day: 1, month: 1, year: nextYear }), 'v2').parsed).toBeDefined();
    expect(answer(updateAccountParams, business({ day: 31, month: 2, year: 1990 }), 'v2')).toMatchObject({
      status: 400,
      param: 'identity.business_details.registration_date',
    });
  });
});

describe('IP addresses are one parameter', () => {
  it.each([
    [
      'a v1 cardholder',
      createCardholderParams,
      (ip: string) => ({ name: 'Jenny Rosen', billing, individual: { card_issuing: { user_terms_acceptance: { ip } } } }),
      'v1',
      'individual[card_issuing][user_terms_acceptance][ip]',
    ],
    [
      'a v2 person',
      createPersonParams,
      (ip: string) => ({ additional_terms_of_service: { account: { date: '2026-01-01T00:00:00Z', ip } } }),
      'v2',
      'additional_terms_of_service.account.ip',
    ],
  ] as const)('Given %s, when an IPv4 or IPv6 address is sent it is taken, and anything else is a 400 naming it', (_, schema, params, api, param) => {
    expect(answer(schema, params('203.0.113.7'), api).parsed).toBeDefined();
    expect(answer(schema, params('2001:db8::1'), api).parsed).toBeDefined();
    expect(answer(schema, params('999.0.113.7'), api)).toMatchObject({ status: 400, param });
    expect(answer(schema, params('x'.repeat(46)), api)).toMatchObject({ status: 400, param });
  });
});
