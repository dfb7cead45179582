import { systemClock } from '#shared/clock.ts';
import { isIP } from 'node:net';
import * as z from 'zod';
import { booleanParam, emptyable, expandParam, idParam, integerParam, metadataParam, stringParam } from '#shared/http/params.ts';

/**
 * Parameters of `POST /v1/tokens` (SDK type `TokenCreateParams`). Card and bank account numbers, expiry
 * and CVC are only typed here: their rules give the reference's card and bank errors in the service.
 */

const country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO country code')
  .transform((code) => code.toUpperCase());

const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO currency code')
  .transform((code) => code.toLowerCase());

const addressShape = {
  city: stringParam(200).optional(),
  country: country.optional(),
  line1: stringParam(200).optional(),
  line2: stringParam(200).optional(),
  postal_code: stringParam(20).optional(),
  state: stringParam(200).optional(),
};
const address = z.strictObject(addressShape);
const japanAddress = z.strictObject({ ...addressShape, town: stringParam(200).optional() });

const unixTime = integerParam(0, 253402300799);
const ipAddress = z.string().refine((value) => isIP(value) !== 0, 'must be an IPv4 or IPv6 address');
const declaration = z.strictObject({ date: unixTime.optional(), ip: ipAddress.optional(), user_agent: stringParam(500).optional() });

const isCalendarDate = ({ day, month, year }: { day: number; month: number; year: number }) => {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};
const calendarDate = z
  .strictObject({ day: integerParam(1, 31), month: integerParam(1, 12), year: integerParam(1900, 2200) })
  .refine(isCalendarDate, 'must be a real calendar date');
const dateOfBirth = calendarDate.refine(({ day, month, year }) => Date.UTC(year, month - 1, day) <= systemClock(), 'must not be in the future');

/** Identity numbers (SSN, national id, tax id): letters and digits, with spaces, dots, slashes or dashes between. */
const identityNumber = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9 ./-]{0,38}[A-Za-z0-9])?$/, 'must be 1 to 40 letters and digits (spaces, dots, slashes and dashes may separate them)');
const ssnLast4 = z.string().regex(/^\d{4}$/, 'must be the last 4 digits of the social security number');
const email = z
  .string()
  .max(512)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address');
const phone = z.string().regex(/^\+?[0-9 ().-]{4,30}$/, 'must be a phone number (digits, spaces, dashes, dots and parentheses, optionally starting with +)');
const personName = stringParam(100);
const fileId = z.string().min(1).max(100);
const documentSides = z.strictObject({ back: fileId.optional(), front: fileId.optional() });
const files = z.strictObject({ files: z.array(fileId).max(10).optional() });
const percentOwnership = emptyable(
  z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d+(\.\d+)?$/, 'must be a number')
        .transform(Number),
    ])
    .pipe(z.number().min(0, 'must be between 0 and 100').max(100, 'must be between 0 and 100')),
);

/** What persons (`person`) and account representatives (`account.individual`) share. */
const identityFields = {
  address: address.optional(),
  address_kana: japanAddress.optional(),
  address_kanji: japanAddress.optional(),
  dob: emptyable(dateOfBirth).optional(),
  email: email.optional(),
  first_name: personName.optional(),
  first_name_kana: personName.optional(),
  first_name_kanji: personName.optional(),
  full_name_aliases: emptyable(z.array(personName).max(10)).optional(),
  gender: stringParam(50).optional(),
  id_number: identityNumber.optional(),
  id_number_secondary: identityNumber.optional(),
  last_name: personName.optional(),
  last_name_kana: personName.optional(),
  last_name_kanji: personName.optional(),
  maiden_name: personName.optional(),
  metadata: metadataParam().optional(),
  phone: phone.optional(),
  political_exposure: z.enum(['existing', 'none']).optional(),
  registered_address: address.optional(),
  ssn_last_4: ssnLast4.optional(),
  verification: z.strictObject({ additional_document: documentSides.optional(), document: documentSides.optional() }).optional(),
};

const ethnicities = [
  'cuban',
  'hispanic_or_latino',
  'mexican',
  'not_hispanic_or_latino',
  'other_hispanic_or_latino',
  'prefer_not_to_answer',
  'puerto_rican',
] as const;
const races = [
  'african_american',
  'american_indian_or_alaska_native',
  'asian',
  'asian_indian',
  'black_or_african_american',
  'chinese',
  'ethiopian',
  'filipino',
  'guamanian_or_chamorro',
  'haitian',
  'jamaican',
  'japanese',
  'korean',
  'native_hawaiian',
  'native_hawaiian_or_other_pacific_islander',
  'nigerian',
  'other_asian',
  'other_black_or_african_american',
  'other_pacific_islander',
  'prefer_not_to_answer',
  'samoan',
  'somali',
  'vietnamese',
  'white',
] as const;

/** `person` (SDK type `TokenCreateParams.Person`). */
export const personParams = z.strictObject({
  ...identityFields,
  additional_tos_acceptances: z
    .strictObject({
      account: z.strictObject({ date: unixTime.optional(), ip: ipAddress.optional(), user_agent: emptyable(stringParam(500)).optional() }).optional(),
    })
    .optional(),
  documents: z.strictObject({ company_authorization: files.optional(), passport: files.optional(), visa: files.optional() }).optional(),
  nationality: country.optional(),
  relationship: z
    .strictObject({
      authorizer: booleanParam().optional(),
      director: booleanParam().optional(),
      executive: booleanParam().optional(),
      legal_guardian: booleanParam().optional(),
      owner: booleanParam().optional(),
      percent_ownership: percentOwnership.optional(),
      representative: booleanParam().optional(),
      title: stringParam(100).optional(),
    })
    .optional(),
  us_cfpb_data: z
    .strictObject({
      ethnicity_details: z
        .strictObject({ ethnicity: z.array(z.enum(ethnicities)).max(ethnicities.length).optional(), ethnicity_other: stringParam(200).optional() })
        .optional(),
      race_details: z.strictObject({ race: z.array(z.enum(races)).max(races.length).optional(), race_other: stringParam(200).optional() }).optional(),
      self_identified_gender: stringParam(200).optional(),
    })
    .optional(),
});

/** `account.individual` (SDK type `TokenCreateParams.Account.Individual`). */
export const individualParams = z.strictObject({
  ...identityFields,
  relationship: z
    .strictObject({
      director: booleanParam().optional(),
      executive: booleanParam().optional(),
      owner: booleanParam().optional(),
      percent_ownership: percentOwnership.optional(),
      title: stringParam(100).optional(),
    })
    .optional(),
});

const structures = [
  'free_zone_establishment',
  'free_zone_llc',
  'government_instrumentality',
  'governmental_unit',
  'incorporated_non_profit',
  'incorporated_partnership',
  'limited_liability_partnership',
  'llc',
  'multi_member_llc',
  'private_company',
  'private_corporation',
  'private_partnership',
  'public_company',
  'public_corporation',
  'public_partnership',
  'registered_charity',
  'single_member_llc',
  'sole_establishment',
  'sole_proprietorship',
  'tax_exempt_government_instrumentality',
  'unincorporated_association',
  'unincorporated_non_profit',
  'unincorporated_partnership',
] as const;

/** `account.company` (SDK type `TokenCreateParams.Account.Company`). */
export const companyParams = z.strictObject({
  address: address.optional(),
  address_kana: japanAddress.optional(),
  address_kanji: japanAddress.optional(),
  administrative_address: address.optional(),
  directors_provided: booleanParam().optional(),
  directorship_declaration: declaration.optional(),
  executives_provided: booleanParam().optional(),
  export_license_id: stringParam(100).optional(),
  export_purpose_code: stringParam(100).optional(),
  name: stringParam(200).optional(),
  name_kana: stringParam(200).optional(),
  name_kanji: stringParam(200).optional(),
  owners_provided: booleanParam().optional(),
  ownership_declaration: declaration.optional(),
  ownership_declaration_shown_and_signed: booleanParam().optional(),
  ownership_exemption_reason: emptyable(z.enum(['qualified_entity_exceeds_ownership_threshold', 'qualifies_as_financial_institution'])).optional(),
  phone: phone.optional(),
  physical_address: address.optional(),
  principal_place_of_business: address.optional(),
  registration_date: emptyable(calendarDate).optional(),
  registration_number: stringParam(100).optional(),
  representative_declaration: declaration.optional(),
  structure: emptyable(z.enum(structures)).optional(),
  tax_id: identityNumber.optional(),
  tax_id_registrar: stringParam(100).optional(),
  vat_id: identityNumber.optional(),
  verification: z.strictObject({ document: documentSides.optional() }).optional(),
});

/** `account` (SDK type `TokenCreateParams.Account`). */
export const accountParams = z.strictObject({
  business_type: z.enum(['company', 'government_entity', 'individual', 'non_profit']).optional(),
  company: companyParams.optional(),
  individual: individualParams.optional(),
  tos_shown_and_accepted: booleanParam().optional(),
});

const looseNumber = z.union([z.string().max(20), z.number()]);

export const cardParams = z.strictObject({
  address_city: stringParam(200).optional(),
  address_country: stringParam(200).optional(),
  address_line1: stringParam(200).optional(),
  address_line2: stringParam(200).optional(),
  address_state: stringParam(200).optional(),
  address_zip: stringParam(20).optional(),
  currency: currency.optional(),
  cvc: z.string().max(20).optional(),
  exp_month: looseNumber,
  exp_year: looseNumber,
  name: stringParam(200).optional(),
  networks: z.strictObject({ preferred: z.enum(['cartes_bancaires', 'mastercard', 'visa']).optional() }).optional(),
  number: z.string().max(100),
});

export const bankAccountParams = z.strictObject({
  account_holder_name: stringParam(200).optional(),
  account_holder_type: z.enum(['company', 'individual']).optional(),
  account_number: z.string().max(100),
  account_type: z.enum(['checking', 'futsu', 'savings', 'toza']).optional(),
  country,
  currency: currency.optional(),
  payment_method: z.string().min(1).max(100).optional(),
  routing_number: z.string().max(40).optional(),
});

export const createTokenParams = z.strictObject({
  account: accountParams.optional(),
  bank_account: z.union([bankAccountParams, z.string().min(1).max(100)]).optional(),
  card: z.union([cardParams, z.string().min(1).max(100)]).optional(),
  customer: idParam().max(100).optional(),
  cvc_update: z.strictObject({ cvc: z.string().max(20) }).optional(),
  expand: expandParam().optional(),
  person: personParams.optional(),
  pii: z.strictObject({ id_number: identityNumber }).optional(),
});

export const retrieveTokenParams = z.strictObject({ expand: expandParam().optional() });

export type CreateTokenParams = z.output<typeof createTokenParams>;
export type CardParams = z.output<typeof cardParams>;
export type BankAccountParams = z.output<typeof bankAccountParams>;
export type PersonParams = z.output<typeof personParams>;
export type IndividualParams = z.output<typeof individualParams>;
export type CompanyParams = z.output<typeof companyParams>;
export type AccountParams = z.output<typeof accountParams>;

/** Flags that stand in for identity numbers, which are never stored. */
export interface IdentityNumberFlags {
  id_number_provided: boolean;
  id_number_secondary_provided: boolean;
  ssn_last_4_provided: boolean;
}

/**
 * What a person token keeps: the `person` parameters as validated (v1 names; absent when not sent, `null`
 * when sent as `''`), without `id_number` / `id_number_secondary`, plus the flags.
 */
export type PersonTokenData = Omit<PersonParams, 'id_number' | 'id_number_secondary'> & IdentityNumberFlags;

export type IndividualTokenData = Omit<IndividualParams, 'id_number' | 'id_number_secondary'> & IdentityNumberFlags;

/** `account.company` without `tax_id` / `vat_id`, plus flags for them. */
export type CompanyTokenData = Omit<CompanyParams, 'tax_id' | 'vat_id'> & { tax_id_provided: boolean; vat_id_provided: boolean };

/** What an account token keeps: the `account` parameters with the sensitive numbers replaced by flags. */
export interface AccountTokenData {
  business_type?: AccountParams['business_type'];
  company?: CompanyTokenData;
  individual?: IndividualTokenData;
  tos_shown_and_accepted?: boolean;
}
