import { describe, expect, it } from 'vitest';
import { blankAccount, type V2Account } from '#shared/accounts/account.ts';
import type { RequirementField } from '#shared/accounts/requirements.ts';
import { inputForParam, readFields, renderFields, type FormValues } from '#shared/account-links/form.ts';

const now = Date.UTC(2026, 5, 1, 12, 0, 0);

const anAccount = (identity: Record<string, unknown> | null = { country: 'US', entity_type: 'individual' }): V2Account => ({
  ...blankAccount('acct_1Test', { accountId: 'acct_1Platform', livemode: false }, now),
  configuration: { merchant: { applied: true, requested: { card_payments: true }, settings: {} } },
  identity,
});

const context = { account: anAccount(), now, ip: '203.0.113.7', userAgent: 'TestBrowser/1.0' };

const individualFields: RequirementField[] = [
  'identity.individual.given_name',
  'identity.individual.surname',
  'identity.individual.date_of_birth',
  'identity.individual.address',
  'identity.individual.email',
  'identity.individual.id_numbers',
  'identity.attestations.terms_of_service.account',
  'configuration.merchant.mcc',
  'defaults.profile.business_url',
];

const completeForm: FormValues = {
  given_name: ' Ada ',
  surname: 'Lovelace',
  dob_day: '10',
  dob_month: '12',
  dob_year: '1985',
  home_line1: '12 Analytical Row',
  home_line2: '',
  home_city: 'Springfield',
  home_state: 'IL',
  home_postal_code: '62701',
  home_country: 'us',
  email: 'ada@example.test',
  individual_id_type: 'us_ssn',
  individual_id_number: '123-45-6789',
  tos_accepted: 'yes',
  mcc: '5734',
  business_url: 'ada.example.test',
};

describe('the hosted form', () => {
  it('reads a complete form into account update parameters', () => {
    const read = readFields(individualFields, completeForm, context);

    expect(read.issues).toEqual([]);
    expect(read.params).toEqual({
      identity: {
        individual: {
          given_name: 'Ada',
          surname: 'Lovelace',
          date_of_birth: { day: 10, month: 12, year: 1985 },
          address: { line1: '12 Analytical Row', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' },
          email: 'ada@example.test',
          id_numbers: [{ type: 'us_ssn', value: '123456789' }],
        },
        attestations: { terms_of_service: { account: { date: '2026-06-01T12:00:00.000Z', ip: '203.0.113.7', user_agent: 'TestBrowser/1.0' } } },
      },
      configuration: { merchant: { mcc: '5734' } },
      defaults: { profile: { business_url: 'https://ada.example.test' } },
    });
  });

  it('names the input of every missing or malformed answer', () => {
    const cases: [Partial<FormValues>, string, RegExp][] = [
      [{ given_name: '' }, 'given_name', /first name/],
      [{ dob_month: '' }, 'dob_month', /must include a month/],
      [{ dob_day: '31', dob_month: '2' }, 'dob_day', /real date/],
      [{ dob_year: '2030' }, 'dob_day', /in the past/],
      [{ dob_year: '1850' }, 'dob_year', /1900 or later/],
      [{ home_country: 'XX' }, 'home_country', /from the list/],
      [{ home_postal_code: '' }, 'home_postal_code', /postal code/],
      [{ email: 'ada.example' }, 'email', /correct format/],
      [{ individual_id_number: '1234' }, 'individual_id_number', /9 digits/],
      [{ individual_id_type: 'xx_made_up' }, 'individual_id_type', /from the list/],
      [{ tos_accepted: '' }, 'tos_accepted', /terms of service/],
      [{ mcc: '57a4' }, 'mcc', /4 digits/],
      [{ business_url: 'javascript:alert(1)' }, 'business_url', /correct format/],
      [{ given_name: 'x'.repeat(201) }, 'given_name', /200 characters/],
    ];
    for (const [change, input, message] of cases) {
      const read = readFields(individualFields, { ...completeForm, ...change } as FormValues, context);
      expect(read.params).toBeUndefined();
      expect(read.issues).toEqual([{ input, message: expect.stringMatching(message) }]);
    }
  });

  it('does not insist on a postal code where the country has none', () => {
    const read = readFields(['identity.individual.address'], { ...completeForm, home_postal_code: '', home_country: 'HK' }, context);
    expect(read.issues).toEqual([]);
  });

  it('reads a business type and the business fields it brings', () => {
    const fields: RequirementField[] = [
      'identity.entity_type',
      'identity.business_details.registered_name',
      'identity.business_details.estimated_worker_count',
    ];
    expect(readFields(fields, { entity_type: 'company', registered_name: 'Engines Ltd', worker_count: '1,200' }, context).params).toEqual({
      identity: { entity_type: 'company', business_details: { registered_name: 'Engines Ltd', estimated_worker_count: 1200 } },
    });
    expect(readFields(fields, { entity_type: 'pirate', registered_name: 'X', worker_count: 'many' }, context).issues.map((issue) => issue.input)).toEqual([
      'entity_type',
      'worker_count',
    ]);
  });

  it('leaves the source address out of the attestation when it is not an IP address', () => {
    const read = readFields(['identity.attestations.terms_of_service.account'], { tos_accepted: 'yes' }, { ...context, ip: 'unknown' });
    expect(read.params?.identity?.attestations?.terms_of_service?.account).toEqual({ date: '2026-06-01T12:00:00.000Z', user_agent: 'TestBrowser/1.0' });
  });

  it('places an error the account service reports about a parameter next to its input', () => {
    expect(inputForParam(individualFields, 'identity.individual.address.postal_code')).toBe('home_postal_code');
    expect(inputForParam(individualFields, 'identity.individual.id_numbers.0.value')).toBe('individual_id_number');
    expect(inputForParam(individualFields, 'configuration.merchant.mcc')).toBe('mcc');
    expect(inputForParam(individualFields, 'metadata.x')).toBeNull();
    expect(inputForParam(individualFields, undefined)).toBeNull();
  });

  it('renders exactly the asked fields, escapes what was typed and never echoes an id number', () => {
    const html = renderFields(['identity.individual.given_name', 'identity.individual.id_numbers'], {
      account: anAccount(),
      values: { given_name: '"><script>x</script>', individual_id_number: '123456789' },
      errors: new Map([['given_name', 'Enter your <first> name']]),
    });
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(html).toContain('Enter your &lt;first&gt; name');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('123456789');
    expect(html).toContain('<option value="us_ssn" selected>');
    expect(html).not.toContain('id="surname"');
  });
});
