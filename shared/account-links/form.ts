import { isIP } from 'node:net';
import type { V2Account } from '#shared/accounts/account.ts';
import { mergeUpdate } from '#shared/accounts/merge.ts';
import type { RequirementField } from '#shared/accounts/requirements.ts';
import { updateAccountParams, type UpdateAccountParams } from '#shared/accounts/schemas.ts';
import { escapeHtml } from '#shared/wire/html.ts';
import { countries, countriesWithoutPostalCodes, isCountryCode } from './countries.ts';

/**
 * The hosted form: for each requirement field path the inputs that collect it, how they read back into
 * account update parameters, and where an error about a parameter is shown. Every input has a visible
 * label; groups (address, date of birth, id number, business type) are fieldsets with a legend.
 */

/** A submitted form: the first value of each input name. */
export type FormValues = Record<string, string>;

/** A problem to show: next to `input` (and linked from the summary), or only in the summary when null. */
export interface FormIssue {
  input: string | null;
  message: string;
}

/** Who submits, for the terms-of-service attestation. */
export interface FormContext {
  account: V2Account;
  now: number;
  ip: string;
  userAgent: string;
}

export interface FormView {
  account: V2Account;
  values: FormValues;
  errors: ReadonlyMap<string, string>;
}

type Patch = Record<string, unknown>;

interface Read {
  patch: Patch;
  issues: FormIssue[];
}

interface Section {
  render(view: FormView): string;
  read(values: FormValues, context: FormContext): Read;
  /** API parameter paths (or their prefixes) → the input an error about them belongs to. */
  params: Record<string, string>;
}

// ---------------------------------------------------------------------------------------------------------
// Rendering

interface InputOptions {
  name: string;
  label: string;
  hint?: string;
  autocomplete: string;
  type?: 'text' | 'email' | 'url';
  inputmode?: 'numeric' | 'email' | 'url';
  maxlength?: number;
  optional?: boolean;
  /** Wrapper class, e.g. the parts of a date. */
  className?: string;
  /** Never echo the value back (an id number). */
  secret?: boolean;
  /** The group shows this input's error once, under its legend (the parts of a date). */
  groupError?: string;
}

const attribute = (name: string, value: string | number | undefined | false): string =>
  value === undefined || value === false ? '' : ` ${name}="${escapeHtml(String(value))}"`;

function described(name: string, hint: string | undefined, error: string | undefined): { html: string; attributes: string } {
  const ids = [hint ? `${name}-hint` : '', error ? `${name}-error` : ''].filter(Boolean).join(' ');
  const html = (hint ? `<p class="hint" id="${name}-hint">${escapeHtml(hint)}</p>` : '') + errorLine(name, error);
  return { html, attributes: attribute('aria-describedby', ids || undefined) + (error ? ' aria-invalid="true"' : '') };
}

function textField(view: FormView, options: InputOptions, fallback = ''): string {
  const { name } = options;
  const error = view.errors.get(name);
  const { html, attributes } = options.groupError
    ? { html: '', attributes: error ? ` aria-describedby="${options.groupError}" aria-invalid="true"` : '' }
    : described(name, options.hint, error);
  const value = options.secret ? '' : (view.values[name] ?? fallback);
  const classes = ['field', options.className, error && !options.groupError ? 'field-error' : ''].filter(Boolean).join(' ');
  return (
    `<div class="${classes}">` +
    `<label for="${name}">${escapeHtml(options.label)}</label>${html}` +
    `<input type="${options.type ?? 'text'}" id="${name}" name="${name}"${attribute('value', value || undefined)}` +
    `${attribute('autocomplete', options.autocomplete)}${attribute('inputmode', options.inputmode)}${attribute('maxlength', options.maxlength)}` +
    `${options.optional ? '' : ' required'}${options.type === 'email' || options.type === 'url' || options.secret ? ' spellcheck="false"' : ''}${attributes}>` +
    `</div>`
  );
}

interface SelectOptions {
  name: string;
  label: string;
  hint?: string;
  autocomplete: string;
  options: readonly (readonly [string, string])[];
}

function selectField(view: FormView, options: SelectOptions, fallback = ''): string {
  const { name } = options;
  const error = view.errors.get(name);
  const { html, attributes } = described(name, options.hint, error);
  const selected = view.values[name] ?? fallback;
  const choices = [['', 'Select…'] as const, ...options.options]
    .map(([value, label]) => `<option value="${escapeHtml(value)}"${value === selected ? ' selected' : ''}>${escapeHtml(label)}</option>`)
    .join('');
  return (
    `<div class="field${error ? ' field-error' : ''}">` +
    `<label for="${name}">${escapeHtml(options.label)}</label>${html}` +
    `<select id="${name}" name="${name}"${attribute('autocomplete', options.autocomplete)} required${attributes}>${choices}</select>` +
    `</div>`
  );
}

/** A group of inputs with a legend (address, date of birth, id number, choices). */
function fieldset(options: { name: string; legend: string; hint?: string; invalid?: boolean; errorId?: string }, inner: string): string {
  const hint = options.hint ? `<p class="hint" id="${options.name}-hint">${escapeHtml(options.hint)}</p>` : '';
  const describedBy = [options.hint ? `${options.name}-hint` : '', options.invalid && options.errorId ? options.errorId : ''].filter(Boolean).join(' ');
  return (
    `<fieldset${attribute('aria-describedby', describedBy || undefined)}${options.invalid ? ' class="field-error"' : ''}>` +
    `<legend>${escapeHtml(options.legend)}</legend>${hint}${inner}</fieldset>`
  );
}

const errorLine = (name: string, error: string | undefined): string =>
  error ? `<p class="error-message" id="${name}-error"><span class="visually-hidden">Error:</span> ${escapeHtml(error)}</p>` : '';

/** A radio button or checkbox with its label; `describedBy` names the group's error. */
function choice(
  type: 'radio' | 'checkbox',
  options: { id: string; name: string; value: string; label: string; checked: boolean; error: string | undefined },
): string {
  const invalid = options.error ? ` aria-describedby="${options.name}-error" aria-invalid="true"` : '';
  return (
    `<div class="choice"><input type="${type}" id="${options.id}" name="${options.name}" value="${escapeHtml(options.value)}"${options.checked ? ' checked' : ''} required${invalid}>` +
    `<label for="${options.id}">${escapeHtml(options.label)}</label></div>`
  );
}

function radios(view: FormView, options: { name: string; legend: string; hint?: string; choices: readonly (readonly [string, string])[] }): string {
  const { name } = options;
  const error = view.errors.get(name);
  // The first choice carries the bare name as its id, so the error summary's link lands on the group.
  const choices = options.choices
    .map(([value, label], index) =>
      choice('radio', { id: index === 0 ? name : `${name}-${value}`, name, value, label, checked: view.values[name] === value, error }),
    )
    .join('');
  return fieldset(
    { name: `${name}-group`, legend: options.legend, hint: options.hint, invalid: Boolean(error), errorId: `${name}-error` },
    errorLine(name, error) + choices,
  );
}

const countryOptions = countries;

// ---------------------------------------------------------------------------------------------------------
// Reading

const fieldValue = (values: FormValues, name: string): string => (values[name] ?? '').trim();

/** A patch at a dotted path: `at('identity.individual', {email})`. */
function at(path: string, value: unknown): Patch {
  return path
    .split('.')
    .reverse()
    .reduce<unknown>((inner, key) => ({ [key]: inner }), value) as Patch;
}

function required(values: FormValues, name: string, message: string, issues: FormIssue[]): string {
  const value = fieldValue(values, name);
  if (value === '') issues.push({ input: name, message });
  return value;
}

function maxLength(value: string, max: number, name: string, label: string, issues: FormIssue[]): void {
  if (value.length > max) issues.push({ input: name, message: `${label} must be ${max} characters or fewer` });
}

function country(values: FormValues, name: string, message: string, issues: FormIssue[]): string {
  const value = required(values, name, message, issues).toUpperCase();
  if (value !== '' && !isCountryCode(value)) issues.push({ input: name, message: 'Select a country from the list' });
  return value;
}

const businessTypes = new Set(['company', 'non_profit', 'government_entity']);
const currentCountry = (account: V2Account): string => (typeof account.identity?.country === 'string' ? account.identity.country : '');

// ---------------------------------------------------------------------------------------------------------
// Sections

function nameSection(options: { name: string; path: string; label: string; autocomplete: string; missing: string; max: number }): Section {
  return {
    render: (view) => textField(view, { name: options.name, label: options.label, autocomplete: options.autocomplete, maxlength: options.max }),
    read(values) {
      const issues: FormIssue[] = [];
      const value = required(values, options.name, options.missing, issues);
      maxLength(value, options.max, options.name, options.label, issues);
      return { patch: at(options.path, value), issues };
    },
    params: { [options.path]: options.name },
  };
}

function addressSection(prefix: string, path: string, legend: string): Section {
  const input = (part: string) => `${prefix}_${part}`;
  return {
    render(view) {
      return fieldset(
        { name: prefix, legend },
        textField(view, { name: input('line1'), label: 'Address line 1', autocomplete: 'address-line1', maxlength: 200 }) +
          textField(view, { name: input('line2'), label: 'Address line 2 (optional)', autocomplete: 'address-line2', maxlength: 200, optional: true }) +
          textField(view, { name: input('city'), label: 'Town or city', autocomplete: 'address-level2', maxlength: 200 }) +
          textField(view, {
            name: input('state'),
            label: 'State, county or province (optional)',
            autocomplete: 'address-level1',
            maxlength: 200,
            optional: true,
          }) +
          textField(view, { name: input('postal_code'), label: 'Postal code', autocomplete: 'postal-code', maxlength: 20 }) +
          selectField(view, { name: input('country'), label: 'Country', autocomplete: 'country', options: countryOptions }, currentCountry(view.account)),
      );
    },
    read(values) {
      const issues: FormIssue[] = [];
      const line1 = required(values, input('line1'), 'Enter the first line of the address', issues);
      const line2 = fieldValue(values, input('line2'));
      const city = required(values, input('city'), 'Enter the town or city', issues);
      const state = fieldValue(values, input('state'));
      const postalCode = fieldValue(values, input('postal_code'));
      const code = country(values, input('country'), 'Select the country of the address', issues);
      if (postalCode === '' && code !== '' && !countriesWithoutPostalCodes.has(code))
        issues.push({ input: input('postal_code'), message: 'Enter the postal code' });
      for (const [part, value, max] of [
        ['line1', line1, 200],
        ['line2', line2, 200],
        ['city', city, 200],
        ['state', state, 200],
        ['postal_code', postalCode, 20],
      ] as const) {
        maxLength(value, max, input(part), 'This line', issues);
      }
      const address: Record<string, string> = { line1, city, country: code };
      if (line2) address.line2 = line2;
      if (state) address.state = state;
      if (postalCode) address.postal_code = postalCode;
      return { patch: at(path, address), issues };
    },
    params: {
      [path]: input('line1'),
      [`${path}.line1`]: input('line1'),
      [`${path}.line2`]: input('line2'),
      [`${path}.city`]: input('city'),
      [`${path}.state`]: input('state'),
      [`${path}.postal_code`]: input('postal_code'),
      [`${path}.country`]: input('country'),
    },
  };
}

const personIdTypes = [
  ['us_ssn', 'US Social Security number (SSN)'],
  ['us_itin', 'US Individual Taxpayer Identification Number (ITIN)'],
  ['ca_sin', 'Canadian Social Insurance Number (SIN)'],
  ['gb_nino', 'UK National Insurance number'],
  ['au_tfn', 'Australian Tax File Number (TFN)'],
  ['de_stn', 'German tax identification number (Steuer-ID)'],
  ['fr_nir', 'French social security number (NIR)'],
  ['in_pan', 'Indian Permanent Account Number (PAN)'],
] as const;

const businessIdTypes = [
  ['us_ein', 'US Employer Identification Number (EIN)'],
  ['ca_bn', 'Canadian Business Number (BN)'],
  ['gb_crn', 'UK Company Registration Number (CRN)'],
  ['gb_vat', 'UK VAT number'],
  ['au_abn', 'Australian Business Number (ABN)'],
  ['de_hrn', 'German commercial register number (HRN)'],
  ['fr_siren', 'French SIREN number'],
  ['in_gstin', 'Indian GSTIN'],
] as const;

/** Types whose number is nine digits (dashes and spaces allowed while typing). */
const nineDigitTypes = new Set(['us_ssn', 'us_itin', 'us_ein', 'ca_sin', 'ca_bn']);

function idNumberSection(prefix: string, path: string, legend: string, types: readonly (readonly [string, string])[]): Section {
  const typeInput = `${prefix}_type`;
  const numberInput = `${prefix}_number`;
  return {
    render(view) {
      const byCountry = types.find(([type]) => type.startsWith(`${currentCountry(view.account).toLowerCase()}_`))?.[0] ?? '';
      return fieldset(
        { name: prefix, legend, hint: 'We use this to verify identity. It is sent securely and not shown again.' },
        selectField(view, { name: typeInput, label: 'Type of number', autocomplete: 'off', options: types }, byCountry) +
          textField(view, { name: numberInput, label: 'Number', autocomplete: 'off', maxlength: 100, secret: true }),
      );
    },
    read(values) {
      const issues: FormIssue[] = [];
      const type = required(values, typeInput, 'Select the type of number', issues);
      if (type !== '' && !types.some(([known]) => known === type)) issues.push({ input: typeInput, message: 'Select a type of number from the list' });
      let value = required(values, numberInput, 'Enter the number', issues);
      if (value !== '' && nineDigitTypes.has(type)) {
        const digits = value.replace(/[\s-]/g, '');
        if (!/^\d{9}$/.test(digits)) issues.push({ input: numberInput, message: 'Enter the 9 digits of the number' });
        value = digits;
      } else if (value !== '' && !/^[A-Za-z0-9 .\-/]{1,100}$/.test(value)) {
        issues.push({ input: numberInput, message: 'Enter only letters, digits, spaces, dots, dashes or slashes' });
      }
      return { patch: at(path, [{ type, value }]), issues };
    },
    params: { [path]: numberInput, [`${path}.0.type`]: typeInput, [`${path}.0.value`]: numberInput },
  };
}

const dateOfBirth: Section = {
  render(view) {
    const error = ['dob_day', 'dob_month', 'dob_year'].map((name) => view.errors.get(name)).find(Boolean);
    const part = (name: string, label: string, autocomplete: string, maxlength: number, className: string) =>
      textField(view, { name, label, autocomplete, inputmode: 'numeric', maxlength, className, groupError: 'dob-error' });
    return fieldset(
      { name: 'dob', legend: 'Date of birth', hint: 'For example, 27 3 1990', invalid: Boolean(error), errorId: 'dob-error' },
      errorLine('dob', error) +
        `<div class="date-group">${part('dob_day', 'Day', 'bday-day', 2, 'day')}${part('dob_month', 'Month', 'bday-month', 2, 'month')}${part('dob_year', 'Year', 'bday-year', 4, 'year')}</div>`,
    );
  },
  read(values, { now }) {
    const issues: FormIssue[] = [];
    const parts = (['day', 'month', 'year'] as const).map((part) => [part, fieldValue(values, `dob_${part}`)] as const);
    const missing = parts.filter(([, value]) => value === '');
    if (missing.length === 3) return { patch: {}, issues: [{ input: 'dob_day', message: 'Enter your date of birth' }] };
    if (missing.length > 0)
      return {
        patch: {},
        issues: [{ input: `dob_${missing[0]![0]}`, message: `Date of birth must include a ${missing.map(([part]) => part).join(' and ')}` }],
      };
    const [day, month, year] = parts.map(([, value]) => (/^\d{1,4}$/.test(value) ? Number(value) : Number.NaN)) as [number, number, number];
    const date = new Date(Date.UTC(year, month - 1, day));
    const real =
      Number.isInteger(day) &&
      Number.isInteger(month) &&
      Number.isInteger(year) &&
      date.getUTCFullYear() === year &&
      date.getUTCMonth() === month - 1 &&
      date.getUTCDate() === day;
    if (!real) return { patch: {}, issues: [{ input: 'dob_day', message: 'Date of birth must be a real date' }] };
    if (year < 1900) return { patch: {}, issues: [{ input: 'dob_year', message: 'Year of birth must be 1900 or later' }] };
    if (date.getTime() > now) return { patch: {}, issues: [{ input: 'dob_day', message: 'Date of birth must be in the past' }] };
    return { patch: at('identity.individual.date_of_birth', { day, month, year }), issues };
  },
  params: {
    'identity.individual.date_of_birth': 'dob_day',
    'identity.individual.date_of_birth.day': 'dob_day',
    'identity.individual.date_of_birth.month': 'dob_month',
    'identity.individual.date_of_birth.year': 'dob_year',
  },
};

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const sections: Record<RequirementField, Section> = {
  'identity.country': {
    render: (view) =>
      selectField(view, {
        name: 'country',
        label: 'Country of the business',
        hint: 'Where the business is based, or where you live if you work for yourself.',
        autocomplete: 'country',
        options: countryOptions,
      }),
    read(values) {
      const issues: FormIssue[] = [];
      const code = country(values, 'country', 'Select the country of the business', issues);
      return { patch: at('identity.country', code), issues };
    },
    params: { 'identity.country': 'country' },
  },
  'identity.entity_type': {
    render: (view) =>
      radios(view, {
        name: 'entity_type',
        legend: 'Business type',
        choices: [
          ['individual', 'Individual or sole proprietor'],
          ['company', 'Company'],
          ['non_profit', 'Non-profit organisation'],
          ['government_entity', 'Government entity'],
        ],
      }),
    read(values) {
      const type = fieldValue(values, 'entity_type');
      if (type !== 'individual' && !businessTypes.has(type)) return { patch: {}, issues: [{ input: 'entity_type', message: 'Select the business type' }] };
      return { patch: at('identity.entity_type', type), issues: [] };
    },
    params: { 'identity.entity_type': 'entity_type' },
  },
  'identity.individual.given_name': nameSection({
    name: 'given_name',
    path: 'identity.individual.given_name',
    label: 'Legal first name',
    autocomplete: 'given-name',
    missing: 'Enter your first name',
    max: 200,
  }),
  'identity.individual.surname': nameSection({
    name: 'surname',
    path: 'identity.individual.surname',
    label: 'Legal last name',
    autocomplete: 'family-name',
    missing: 'Enter your last name',
    max: 200,
  }),
  'identity.individual.date_of_birth': dateOfBirth,
  'identity.individual.address': addressSection('home', 'identity.individual.address', 'Home address'),
  'identity.individual.email': {
    render: (view) => textField(view, { name: 'email', label: 'Email address', type: 'email', inputmode: 'email', autocomplete: 'email', maxlength: 800 }),
    read(values) {
      const issues: FormIssue[] = [];
      const email = required(values, 'email', 'Enter your email address', issues);
      if (email !== '' && (!emailPattern.test(email) || email.length > 800))
        issues.push({ input: 'email', message: 'Enter an email address in the correct format, like name@example.com' });
      return { patch: at('identity.individual.email', email), issues };
    },
    params: { 'identity.individual.email': 'email' },
  },
  'identity.individual.id_numbers': idNumberSection('individual_id', 'identity.individual.id_numbers', 'Personal identification number', personIdTypes),
  'identity.individual.nationalities': {
    render: (view) => selectField(view, { name: 'nationality', label: 'Nationality', autocomplete: 'off', options: countryOptions }),
    read(values) {
      const issues: FormIssue[] = [];
      const code = country(values, 'nationality', 'Select your nationality', issues);
      return { patch: at('identity.individual.nationalities', [code]), issues };
    },
    params: { 'identity.individual.nationalities': 'nationality' },
  },
  'identity.business_details.registered_name': nameSection({
    name: 'registered_name',
    path: 'identity.business_details.registered_name',
    label: 'Registered business name',
    autocomplete: 'organization',
    missing: 'Enter the registered name of the business',
    max: 300,
  }),
  'identity.business_details.address': addressSection('business', 'identity.business_details.address', 'Registered business address'),
  'identity.business_details.id_numbers': idNumberSection(
    'business_id',
    'identity.business_details.id_numbers',
    'Business identification number',
    businessIdTypes,
  ),
  'identity.business_details.estimated_worker_count': {
    render: (view) =>
      textField(view, {
        name: 'worker_count',
        label: 'Estimated number of workers',
        hint: 'Employees and contractors, as a whole number, for example 12.',
        autocomplete: 'off',
        inputmode: 'numeric',
        maxlength: 9,
      }),
    read(values) {
      const issues: FormIssue[] = [];
      const text = required(values, 'worker_count', 'Enter the estimated number of workers', issues).replace(/[,\s]/g, '');
      if (text !== '' && !/^\d{1,8}$/.test(text)) issues.push({ input: 'worker_count', message: 'Enter a whole number, like 12' });
      const count = Number(text);
      if (text !== '' && /^\d{1,8}$/.test(text) && count > 10_000_000) issues.push({ input: 'worker_count', message: 'Enter a number of 10,000,000 or less' });
      return { patch: at('identity.business_details.estimated_worker_count', count), issues };
    },
    params: { 'identity.business_details.estimated_worker_count': 'worker_count' },
  },
  'identity.attestations.terms_of_service.account': {
    render(view) {
      const error = view.errors.get('tos_accepted');
      return fieldset(
        {
          name: 'tos',
          legend: 'Terms of service',
          hint: 'You must accept the terms of service to use this account.',
          invalid: Boolean(error),
          errorId: 'tos_accepted-error',
        },
        errorLine('tos_accepted', error) +
          choice('checkbox', {
            id: 'tos_accepted',
            name: 'tos_accepted',
            value: 'yes',
            label: 'I accept the terms of service',
            checked: view.values.tos_accepted === 'yes',
            error,
          }),
      );
    },
    read(values, { now, ip, userAgent }) {
      if (values.tos_accepted !== 'yes') return { patch: {}, issues: [{ input: 'tos_accepted', message: 'Accept the terms of service to continue' }] };
      const attestation: Record<string, string> = { date: new Date(now).toISOString() };
      if (isIP(ip) !== 0) attestation.ip = ip;
      if (userAgent) attestation.user_agent = userAgent.slice(0, 1000);
      return { patch: at('identity.attestations.terms_of_service.account', attestation), issues: [] };
    },
    params: { 'identity.attestations.terms_of_service': 'tos_accepted' },
  },
  'configuration.merchant.mcc': {
    render: (view) =>
      textField(view, {
        name: 'mcc',
        label: 'Merchant category code (MCC)',
        hint: 'Four digits that describe what you sell, for example 5734 for computer software stores.',
        autocomplete: 'off',
        inputmode: 'numeric',
        maxlength: 4,
      }),
    read(values) {
      const issues: FormIssue[] = [];
      const mcc = required(values, 'mcc', 'Enter the merchant category code', issues);
      if (mcc !== '' && !/^\d{4}$/.test(mcc)) issues.push({ input: 'mcc', message: 'The merchant category code must be 4 digits, like 5734' });
      return { patch: at('configuration.merchant.mcc', mcc), issues };
    },
    params: { 'configuration.merchant': 'mcc' },
  },
  'defaults.profile.business_url': {
    render: (view) =>
      textField(view, {
        name: 'business_url',
        label: 'Business website',
        hint: 'For example, https://example.com',
        type: 'url',
        inputmode: 'url',
        autocomplete: 'url',
        maxlength: 2000,
      }),
    read(values) {
      const issues: FormIssue[] = [];
      let url = required(values, 'business_url', 'Enter the website of the business', issues);
      if (url !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(url)) url = `https://${url}`;
      if (url !== '') {
        let parsed: URL | undefined;
        try {
          parsed = new URL(url);
        } catch {
          parsed = undefined;
        }
        if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || !parsed.hostname.includes('.') || url.length > 2000) {
          issues.push({ input: 'business_url', message: 'Enter a website address in the correct format, like https://example.com' });
        }
      }
      return { patch: at('defaults.profile.business_url', url), issues };
    },
    params: { 'defaults.profile': 'business_url' },
  },
};

/** The order fields appear in on the page, whatever order the requirements list them in. */
const pageOrder: readonly RequirementField[] = [
  'identity.country',
  'identity.entity_type',
  'identity.individual.given_name',
  'identity.individual.surname',
  'identity.individual.date_of_birth',
  'identity.individual.email',
  'identity.individual.address',
  'identity.individual.nationalities',
  'identity.individual.id_numbers',
  'identity.business_details.registered_name',
  'identity.business_details.address',
  'identity.business_details.estimated_worker_count',
  'identity.business_details.id_numbers',
  'configuration.merchant.mcc',
  'defaults.profile.business_url',
  'identity.attestations.terms_of_service.account',
];

const inPageOrder = (fields: readonly RequirementField[]): RequirementField[] => pageOrder.filter((field) => fields.includes(field));

/** The inputs of these fields, in page order. */
export const renderFields = (fields: readonly RequirementField[], view: FormView): string =>
  inPageOrder(fields)
    .map((field) => sections[field].render(view))
    .join('\n');

/** The input an error about API parameter `param` belongs to, by the longest known prefix. */
export function inputForParam(fields: readonly RequirementField[], param: string | undefined): string | null {
  if (!param) return null;
  let best: { length: number; input: string } | undefined;
  for (const field of fields) {
    for (const [prefix, input] of Object.entries(sections[field].params)) {
      if ((param === prefix || param.startsWith(`${prefix}.`)) && (!best || prefix.length > best.length)) best = { length: prefix.length, input };
    }
  }
  return best?.input ?? null;
}

/**
 * Reads the submitted inputs of these fields into account update parameters. Returns the issues to show
 * instead when any input is missing or malformed; the result has passed the update schema.
 */
export function readFields(
  fields: readonly RequirementField[],
  values: FormValues,
  context: FormContext,
): { params: UpdateAccountParams; issues: [] } | { params: undefined; issues: FormIssue[] } {
  let patch: Patch = {};
  const issues: FormIssue[] = [];
  for (const field of inPageOrder(fields)) {
    const read = sections[field].read(values, context);
    issues.push(...read.issues);
    patch = mergeUpdate(patch, read.patch);
  }
  if (issues.length > 0) return { params: undefined, issues };
  const parsed = updateAccountParams.safeParse(patch);
  if (parsed.success) return { params: parsed.data, issues: [] };
  return {
    params: undefined,
    issues: parsed.error.issues.map((issue) => ({ input: inputForParam(fields, issue.path.join('.')), message: `Check this value: ${issue.message}` })),
  };
}
