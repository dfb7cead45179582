import * as z from 'zod';
import {
  addressParam,
  booleanParam,
  calendarDateParam,
  countryParam,
  currencyParam,
  dateOfBirthParam,
  emailParam,
  emptyable,
  expandParam,
  idParam,
  ipParam,
  metadataParam,
  stringParam,
  townAddressParam,
  unixTimeParam,
} from '#shared/wire/params.ts';

/**
 * Parameters of `POST /v1/tokens` (SDK type `TokenCreateParams`). Card and bank account numbers, expiry
 * and CVC are only typed here: their rules give the reference's card and bank errors in the service.
 */

const country = countryParam();
const currency = currencyParam();
const address = addressParam();
const japanAddress = townAddressParam();

const unixTime = unixTimeParam();
const ipAddress = ipParam();
const declaration = z.strictObject({
  date: unixTime.optional().describe('The Unix timestamp marking when the directorship declaration attestation was made.'),
  ip: ipAddress.optional().describe('The IP address from which the directorship declaration attestation was made.'),
  user_agent: stringParam(500).optional().describe('The user agent of the browser from which the directorship declaration attestation was made.'),
});

const calendarDate = calendarDateParam();
const dateOfBirth = dateOfBirthParam();

/** Identity numbers (SSN, national id, tax id): letters and digits, with spaces, dots, slashes or dashes between. */
const identityNumber = z
  .string()
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9 ./-]{0,38}[A-Za-z0-9])?$/, 'must be 1 to 40 letters and digits (spaces, dots, slashes and dashes may separate them)');
const ssnLast4 = z.string().regex(/^\d{4}$/, 'must be the last 4 digits of the social security number');
const email = emailParam();
const phone = z.string().regex(/^\+?[0-9 ().-]{4,30}$/, 'must be a phone number (digits, spaces, dashes, dots and parentheses, optionally starting with +)');
const personName = stringParam(100);
const fileId = z.string().min(1).max(100);
const documentSides = z.strictObject({
  back: fileId.optional().describe('The back of an ID returned by a file upload with a `purpose` value of `identity_document`.'),
  front: fileId.optional().describe('The front of an ID returned by a file upload with a `purpose` value of `identity_document`.'),
});
const files = z.strictObject({
  files: z.array(fileId).max(10).optional().describe('One or more document ids returned by a file upload with a `purpose` value of `account_requirement`.'),
});
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
  address: address.optional().describe("The person's address."),
  address_kana: japanAddress.optional().describe("The Kana variation of the person's address (Japan only)."),
  address_kanji: japanAddress.optional().describe("The Kanji variation of the person's address (Japan only)."),
  dob: emptyable(dateOfBirth).optional().describe("The person's date of birth."),
  email: email.optional().describe("The person's email address."),
  first_name: personName.optional().describe("The person's first name."),
  first_name_kana: personName.optional().describe("The Kana variation of the person's first name (Japan only)."),
  first_name_kanji: personName.optional().describe("The Kanji variation of the person's first name (Japan only)."),
  full_name_aliases: emptyable(z.array(personName).max(10)).optional().describe('A list of alternate names or aliases that the person is known by.'),
  gender: stringParam(50).optional().describe('The person\'s gender (International regulations require either "male" or "female").'),
  id_number: identityNumber.optional().describe("The person's ID number, as appropriate for their country."),
  id_number_secondary: identityNumber
    .optional()
    .describe("The person's secondary ID number, as appropriate for their country, will be used for enhanced verification checks."),
  last_name: personName.optional().describe("The person's last name."),
  last_name_kana: personName.optional().describe("The Kana variation of the person's last name (Japan only)."),
  last_name_kanji: personName.optional().describe("The Kanji variation of the person's last name (Japan only)."),
  maiden_name: personName.optional().describe("The person's maiden name."),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  phone: phone.optional().describe("The person's phone number."),
  political_exposure: z
    .enum(['existing', 'none'])
    .optional()
    .describe(
      'Indicates if the person or any of their representatives, family members, or other closely related persons, declares that they hold or have held an important public job or function, in any jurisdiction.',
    ),
  registered_address: address.optional().describe("The person's registered address."),
  ssn_last_4: ssnLast4.optional().describe("The last four digits of the person's Social Security number (U.S. only)."),
  verification: z
    .strictObject({
      additional_document: documentSides
        .optional()
        .describe('A document showing address, either a passport, local ID card, or utility bill from a well-known utility company.'),
      document: documentSides.optional().describe('An identifying document, either a passport or local ID card.'),
    })
    .optional()
    .describe("The person's verification status."),
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
      account: z
        .strictObject({
          date: unixTime.optional().describe('The Unix timestamp marking when the account representative accepted the service agreement.'),
          ip: ipAddress.optional().describe('The IP address from which the account representative accepted the service agreement.'),
          user_agent: emptyable(stringParam(500))
            .optional()
            .describe('The user agent of the browser from which the account representative accepted the service agreement.'),
        })
        .optional()
        .describe("Details on the legal guardian's acceptance of the main service agreement."),
    })
    .optional()
    .describe("Details on the legal guardian's or authorizer's acceptance of the required service agreements."),
  documents: z
    .strictObject({
      company_authorization: files.optional().describe('One or more documents that demonstrate proof that this person is authorized to represent the company.'),
      passport: files.optional().describe("One or more documents showing the person's passport page with photo and personal data."),
      visa: files.optional().describe("One or more documents showing the person's visa required for living in the country where they are residing."),
    })
    .optional()
    .describe('Documents that may be submitted to satisfy various informational requests.'),
  nationality: country.optional().describe('The country where the person is a national. Two-letter country code (ISO 3166-1 alpha-2), or "XX" if unavailable.'),
  relationship: z
    .strictObject({
      authorizer: booleanParam().optional().describe("Whether the person is the authorizer of the account's representative."),
      director: booleanParam().optional().describe("Whether the person is a director of the account's legal entity."),
      executive: booleanParam().optional().describe('Whether the person has significant responsibility to control, manage, or direct the organization.'),
      legal_guardian: booleanParam().optional().describe("Whether the person is the legal guardian of the account's representative."),
      owner: booleanParam().optional().describe("Whether the person is an owner of the account's legal entity."),
      percent_ownership: percentOwnership.optional().describe("The percent owned by the person of the account's legal entity."),
      representative: booleanParam().optional().describe('Whether the person is authorized as the primary representative of the account.'),
      title: stringParam(100).optional().describe("The person's title (e.g., CEO, Support Engineer)."),
    })
    .optional()
    .describe("The relationship that this person has with the account's legal entity."),
  us_cfpb_data: z
    .strictObject({
      ethnicity_details: z
        .strictObject({
          ethnicity: z.array(z.enum(ethnicities)).max(ethnicities.length).optional().describe('The persons ethnicity.'),
          ethnicity_other: stringParam(200).optional().describe('Please specify your origin, when other is selected.'),
        })
        .optional()
        .describe('The persons ethnicity details.'),
      race_details: z
        .strictObject({
          race: z.array(z.enum(races)).max(races.length).optional().describe('The persons race.'),
          race_other: stringParam(200).optional().describe('Please specify your race, when other is selected.'),
        })
        .optional()
        .describe('The persons race details.'),
      self_identified_gender: stringParam(200).optional().describe('The persons self-identified gender.'),
    })
    .optional()
    .describe('Demographic data related to the person.'),
});

/** `account.individual` (SDK type `TokenCreateParams.Account.Individual`). */
export const individualParams = z.strictObject({
  ...identityFields,
  relationship: z
    .strictObject({
      director: booleanParam().optional().describe("Whether the person is a director of the account's legal entity."),
      executive: booleanParam().optional().describe('Whether the person has significant responsibility to control, manage, or direct the organization.'),
      owner: booleanParam().optional().describe("Whether the person is an owner of the account's legal entity."),
      percent_ownership: percentOwnership.optional().describe("The percent owned by the person of the account's legal entity."),
      title: stringParam(100).optional().describe("The person's title (e.g., CEO, Support Engineer)."),
    })
    .optional()
    .describe("Describes the person's relationship to the account."),
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
  address: address.optional().describe("The company's primary address."),
  address_kana: japanAddress.optional().describe("The Kana variation of the company's primary address (Japan only)."),
  address_kanji: japanAddress.optional().describe("The Kanji variation of the company's primary address (Japan only)."),
  administrative_address: address.optional().describe('The location where the business is administered.'),
  directors_provided: booleanParam().optional().describe("Whether the company's directors have been provided."),
  directorship_declaration: declaration
    .optional()
    .describe('This hash is used to attest that the directors information provided to the service is both current and correct.'),
  executives_provided: booleanParam().optional().describe("Whether the company's executives have been provided."),
  export_license_id: stringParam(100).optional().describe('The export license ID number of the company, also referred as Import Export Code (India only).'),
  export_purpose_code: stringParam(100).optional().describe('The purpose code to use for export transactions (India only).'),
  name: stringParam(200).optional().describe("The company's legal name."),
  name_kana: stringParam(200).optional().describe("The Kana variation of the company's legal name (Japan only)."),
  name_kanji: stringParam(200).optional().describe("The Kanji variation of the company's legal name (Japan only)."),
  owners_provided: booleanParam()
    .optional()
    .describe(
      "Whether the company's owners have been provided. Set this Boolean to `true` after creating all the company's owners with the Persons API for accounts with a `relationship.owner` requirement.",
    ),
  ownership_declaration: declaration
    .optional()
    .describe('This hash is used to attest that the beneficial owner information provided to the service is both current and correct.'),
  ownership_declaration_shown_and_signed: booleanParam()
    .optional()
    .describe('Whether the user described by the data in the token has been shown the Ownership Declaration and indicated that it is correct.'),
  ownership_exemption_reason: emptyable(z.enum(['qualified_entity_exceeds_ownership_threshold', 'qualifies_as_financial_institution']))
    .optional()
    .describe('This value is used to determine if a business is exempt from providing ultimate beneficial owners.'),
  phone: phone.optional().describe("The company's phone number (used for verification)."),
  physical_address: address.optional().describe('A location where the business has a meaningful physical operating presence.'),
  principal_place_of_business: address.optional().describe('The primary location where the business conducts operations.'),
  registration_date: emptyable(calendarDate).optional().describe('When the business was incorporated or registered.'),
  registration_number: stringParam(100)
    .optional()
    .describe(
      'The identification number given to a company when it is registered or incorporated, if distinct from the identification number used for filing taxes.',
    ),
  representative_declaration: declaration
    .optional()
    .describe('This hash is used to attest that the representative is authorized to act as the representative of their legal entity.'),
  structure: emptyable(z.enum(structures)).optional().describe('The category identifying the legal structure of the company or legal entity.'),
  tax_id: identityNumber.optional().describe("The business ID number of the company, as appropriate for the company's country."),
  tax_id_registrar: stringParam(100).optional().describe('The jurisdiction in which the `tax_id` is registered (Germany-based companies only).'),
  vat_id: identityNumber.optional().describe('The VAT number of the company.'),
  verification: z
    .strictObject({ document: documentSides.optional().describe('An identifying document, either a passport or local ID card.') })
    .optional()
    .describe('Information on the verification state of the company.'),
});

/** `account` (SDK type `TokenCreateParams.Account`). */
export const accountParams = z.strictObject({
  business_type: z.enum(['company', 'government_entity', 'individual', 'non_profit']).optional().describe('The business type.'),
  company: companyParams.optional().describe('Information about the company or business.'),
  individual: individualParams.optional().describe('Information about the person represented by the account.'),
  tos_shown_and_accepted: booleanParam()
    .optional()
    .describe('Whether the user described by the data in the token has been shown the Connected Account Agreement.'),
});

const looseNumber = z.union([z.string().max(20), z.number()]);

export const cardParams = z.strictObject({
  address_city: stringParam(200).optional().describe('City / District / Suburb / Town / Village.'),
  address_country: stringParam(200).optional().describe('Billing address country, if provided.'),
  address_line1: stringParam(200).optional().describe('Address line 1 (Street address / PO Box / Company name).'),
  address_line2: stringParam(200).optional().describe('Address line 2 (Apartment / Suite / Unit / Building).'),
  address_state: stringParam(200).optional().describe('State / County / Province / Region.'),
  address_zip: stringParam(20).optional().describe('ZIP or postal code.'),
  currency: currency.optional().describe('Required in order to add the card to an account; in all other cases, this parameter is not used.'),
  cvc: z.string().max(20).optional().describe('Card security code. Highly recommended to always include this value.'),
  exp_month: looseNumber.describe("Two-digit number representing the card's expiration month."),
  exp_year: looseNumber.describe("Two- or four-digit number representing the card's expiration year."),
  name: stringParam(200).optional().describe("Cardholder's full name."),
  networks: z
    .strictObject({
      preferred: z.enum(['cartes_bancaires', 'mastercard', 'visa']).optional().describe("The customer's preferred card network for co-branded cards."),
    })
    .optional()
    .describe('Contains information about card networks used to process the payment.'),
  number: z.string().max(100).describe('The card number, as a string without any separators.'),
});

export const bankAccountParams = z.strictObject({
  account_holder_name: stringParam(200).optional().describe('The name of the person or business that owns the bank account.'),
  account_holder_type: z.enum(['company', 'individual']).optional().describe('The type of entity that holds the account. It can be `company` or `individual`.'),
  account_number: z.string().max(100).describe('The account number for the bank account, in string form.'),
  account_type: z
    .enum(['checking', 'futsu', 'savings', 'toza'])
    .optional()
    .describe('The bank account type. This can only be `checking` or `savings` in most countries.'),
  country,
  currency: currency.optional().describe('The currency the bank account is in. This must be a country/currency pairing that the service supports.'),
  payment_method: z.string().min(1).max(100).optional().describe('The ID of a Payment Method with a `type` of `us_bank_account`.'),
  routing_number: z
    .string()
    .max(40)
    .optional()
    .describe('The routing number, sort code, or other country-appropriate institution number for the bank account.'),
});

export const createTokenParams = z.strictObject({
  account: accountParams.optional().describe('Information for the account this token represents.'),
  bank_account: z
    .union([bankAccountParams, z.string().min(1).max(100)])
    .optional()
    .describe('The bank account this token will represent.'),
  card: z
    .union([cardParams, z.string().min(1).max(100)])
    .optional()
    .describe('The card this token will represent. If you also pass in a customer, the card must be the ID of a card belonging to the customer.'),
  customer: idParam().max(100).optional().describe("Create a token for the customer, which is owned by the application's account."),
  cvc_update: z
    .strictObject({ cvc: z.string().max(20).describe('The CVC value, in string form.') })
    .optional()
    .describe('The updated CVC value this token represents.'),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
  person: personParams.optional().describe('Information for the person this token represents.'),
  pii: z
    .strictObject({ id_number: identityNumber.describe('The `id_number` for the PII, in string form.') })
    .optional()
    .describe('The PII this token represents.'),
});

export const retrieveTokenParams = z.strictObject({ expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.') });

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
