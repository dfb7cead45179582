import * as z from 'zod';
import { booleanParam, idParam, integerParam } from '#shared/http/params.ts';
import { customerCapabilities, merchantCapabilities } from './capabilities.ts';

/**
 * v2 account and person parameters (JSON bodies), strict at every level: an unknown field is a 400 that
 * names it. Shapes follow the reference's AccountCreateParams / PersonCreateParams.
 */

const text = (max = 5000) => z.string().max(max);
const country = z
  .string()
  .regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO country code')
  .transform((code) => code.toUpperCase());
const email = z
  .string()
  .max(800)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address');
const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO currency code')
  .transform((code) => code.toLowerCase());
const metadata = z
  .record(z.string().min(1).max(40), z.string().max(500).nullable())
  .refine((map) => Object.keys(map).length <= 50, 'metadata can have at most 50 keys');

const addressFields = {
  city: text(200).optional(),
  line1: text(200).optional(),
  line2: text(200).optional(),
  postal_code: text(20).optional(),
  state: text(200).optional(),
};
/** An address; `country` is required on create and optional on update. */
const address = (countryRequired: boolean) =>
  z.strictObject({ ...addressFields, town: text(200).optional(), country: countryRequired ? country : country.optional() });
const purposedAddress = (countryRequired: boolean) => address(countryRequired).extend({ purpose: z.enum(['registered']) });

const dateOfBirth = z
  .strictObject({ day: integerParam(1, 31), month: integerParam(1, 12), year: integerParam(1900, 2100) })
  .refine(({ day, month, year }) => new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day, 'is not a calendar date');
const attestation = (required: boolean) =>
  z.strictObject({
    date: required ? z.iso.datetime({ offset: true }) : z.iso.datetime({ offset: true }).optional(),
    ip: required ? z.ipv4().or(z.ipv6()) : z.ipv4().or(z.ipv6()).optional(),
    user_agent: text(1000).optional(),
  });
const filesDocument = z.strictObject({ files: z.array(idParam()).min(1).max(10).max(10), type: z.literal('files') });
const frontBackDocument = (required: boolean) =>
  z.strictObject({
    type: z.literal('front_back'),
    front_back: z.strictObject({ front: required ? z.string().min(1) : z.string().min(1).optional(), back: z.string().min(1).optional() }),
  });
/** An id number: the value is accepted and checked, then dropped; only the type is kept. */
const idNumber = z.strictObject({
  type: z.string().regex(/^[a-z]{2}_[a-z0-9_]+$/, 'must be an id number type such as us_ssn'),
  value: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9 .\-/]+$/, 'must be letters, digits, spaces, dots, dashes or slashes'),
  registrar: text(200).optional(),
});
const amount = z.strictObject({ value: integerParam(0, 1e15), currency });

const relationship = z.strictObject({
  authorizer: z.boolean().optional(),
  director: z.boolean().optional(),
  executive: z.boolean().optional(),
  legal_guardian: z.boolean().optional(),
  owner: z.boolean().optional(),
  percent_ownership: z
    .string()
    .regex(/^\d{1,3}(\.\d{1,4})?$/, 'must be a decimal string between 0 and 100')
    .refine((value) => Number(value) <= 100, 'must be at most 100')
    .optional(),
  representative: z.boolean().optional(),
  title: text(200).optional(),
});

const scriptNames = z.strictObject({
  kana: z.strictObject({ given_name: text(200).optional(), surname: text(200).optional() }).optional(),
  kanji: z.strictObject({ given_name: text(200).optional(), surname: text(200).optional() }).optional(),
});

/** The members a person and an account's `identity.individual` share. */
const personFields = (create: boolean) => ({
  additional_addresses: z.array(purposedAddress(create)).max(10).optional(),
  additional_names: z
    .array(
      z.strictObject({
        full_name: text(300).optional(),
        given_name: text(200).optional(),
        purpose: z.enum(['alias', 'maiden']),
        surname: text(200).optional(),
      }),
    )
    .max(10)
    .optional(),
  address: address(create).optional(),
  date_of_birth: dateOfBirth.optional(),
  documents: z
    .strictObject({
      company_authorization: filesDocument.optional(),
      passport: filesDocument.optional(),
      primary_verification: frontBackDocument(create).optional(),
      secondary_verification: frontBackDocument(create).optional(),
      visa: filesDocument.optional(),
    })
    .optional(),
  email: email.optional(),
  given_name: text(200).optional(),
  id_numbers: z
    .array(idNumber.omit({ registrar: true }))
    .max(5)
    .optional(),
  legal_gender: z.enum(['female', 'male']).optional(),
  metadata: metadata.optional(),
  nationalities: z.array(country).max(5).optional(),
  phone: text(40).optional(),
  political_exposure: z.enum(['existing', 'none']).optional(),
  relationship: relationship.optional(),
  script_addresses: z.strictObject({ kana: address(create).optional(), kanji: address(create).optional() }).optional(),
  script_names: scriptNames.optional(),
  surname: text(200).optional(),
});

const businessDocuments = (create: boolean) =>
  z.strictObject({
    bank_account_ownership_verification: filesDocument.optional(),
    company_license: filesDocument.optional(),
    company_memorandum_of_association: filesDocument.optional(),
    company_ministerial_decree: filesDocument.optional(),
    company_registration_verification: filesDocument.optional(),
    company_tax_id_verification: filesDocument.optional(),
    primary_verification: frontBackDocument(create).optional(),
    proof_of_address: filesDocument.optional(),
    proof_of_registration: z
      .strictObject({ files: z.array(idParam()).min(1).max(10), signer: z.strictObject({ person: idParam() }).optional(), type: z.literal('files') })
      .optional(),
    proof_of_ultimate_beneficial_ownership: z
      .strictObject({ files: z.array(idParam()).min(1).max(10), signer: z.strictObject({ person: idParam() }).optional(), type: z.literal('files') })
      .optional(),
  });

const entityType = z.enum(['company', 'government_entity', 'individual', 'non_profit']);
const personsProvided = z.strictObject({
  directors: z.boolean().optional(),
  executives: z.boolean().optional(),
  owners: z.boolean().optional(),
  ownership_exemption_reason: z.enum(['qualified_entity_exceeds_ownership_threshold', 'qualifies_as_financial_institution']).optional(),
});

/** What a business is: the same members on create, update and in an account token (address `country` optional but on create). */
const businessDetails = (create: boolean) =>
  z.strictObject({
    additional_addresses: z.array(purposedAddress(create)).max(10).optional(),
    address: address(create).optional(),
    annual_revenue: z
      .strictObject({
        amount: amount.optional(),
        fiscal_year_end: z
          .string()
          .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date such as 2025-12-31')
          .optional(),
      })
      .optional(),
    documents: businessDocuments(create).optional(),
    estimated_worker_count: integerParam(0, 10_000_000).optional(),
    id_numbers: z.array(idNumber).max(5).optional(),
    monthly_estimated_revenue: z.strictObject({ amount: amount.optional() }).optional(),
    phone: text(40).optional(),
    registered_name: text(300).optional(),
    registration_date: dateOfBirth.optional(),
    script_addresses: z.strictObject({ kana: address(create).optional(), kanji: address(create).optional() }).optional(),
    script_names: z
      .strictObject({
        kana: z.strictObject({ registered_name: text(300).optional() }).optional(),
        kanji: z.strictObject({ registered_name: text(300).optional() }).optional(),
      })
      .optional(),
    structure: z
      .string()
      .regex(/^[a-z_]+$/, 'must be a business structure such as private_corporation')
      .optional(),
  });

const identity = (create: boolean) =>
  z.strictObject({
    attestations: z
      .strictObject({
        directorship_declaration: attestation(create).optional(),
        ownership_declaration: attestation(create).optional(),
        persons_provided: personsProvided.optional(),
        representative_declaration: attestation(create).optional(),
        terms_of_service: z
          .strictObject({
            account: attestation(create).optional(),
            ...(create ? {} : { crypto_money_manager: attestation(false).optional(), money_manager: attestation(false).optional() }),
          })
          .optional(),
      })
      .optional(),
    business_details: businessDetails(create).optional(),
    country: country.optional(),
    entity_type: entityType.optional(),
    individual: z.strictObject(personFields(create)).optional(),
  });

const requested = (create: boolean) => z.strictObject({ requested: create ? z.boolean() : z.boolean().optional() });
const capabilityMap = <K extends string>(names: readonly K[], create: boolean) =>
  z.strictObject(Object.fromEntries(names.map((name) => [name, requested(create).optional()])) as Record<K, z.ZodOptional<ReturnType<typeof requested>>>);

const configuration = (create: boolean) => {
  const applied = create ? {} : { applied: z.boolean().optional() };
  return z.strictObject({
    customer: z
      .strictObject({
        ...applied,
        automatic_indirect_tax: z
          .strictObject({
            exempt: z.enum(['exempt', 'none', 'reverse']).optional(),
            ip_address: z.ipv4().or(z.ipv6()).optional(),
            ...(create ? {} : { validate_location: z.enum(['auto', 'deferred', 'immediately']).optional() }),
          })
          .optional(),
        billing: z
          .strictObject({
            ...(create ? {} : { default_payment_method: idParam().optional() }),
            invoice: z
              .strictObject({
                custom_fields: z
                  .array(z.strictObject({ name: text(40), value: text(140) }))
                  .max(4)
                  .optional(),
                footer: text(5000).optional(),
                next_sequence: integerParam(1, 1_000_000_000).optional(),
                prefix: z
                  .string()
                  .regex(/^[A-Z0-9]{3,12}$/, 'must be 3 to 12 uppercase letters or digits')
                  .optional(),
                rendering: z
                  .strictObject({ amount_tax_display: z.enum(['exclude_tax', 'include_inclusive_tax']).optional(), template: text(200).optional() })
                  .optional(),
              })
              .optional(),
          })
          .optional(),
        capabilities: capabilityMap(customerCapabilities, create).optional(),
        shipping: z.strictObject({ address: address(false).optional(), name: text(300).optional(), phone: text(40).optional() }).optional(),
        test_clock: idParam().optional(),
      })
      .optional(),
    merchant: z
      .strictObject({
        ...applied,
        bacs_debit_payments: z.strictObject({ display_name: text(200).optional() }).optional(),
        branding: z
          .strictObject({
            icon: text(200).optional(),
            logo: text(200).optional(),
            primary_color: z
              .string()
              .regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour such as #0a2540')
              .optional(),
            secondary_color: z
              .string()
              .regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour such as #0a2540')
              .optional(),
          })
          .optional(),
        capabilities: capabilityMap(merchantCapabilities, create).optional(),
        card_payments: z
          .strictObject({ decline_on: z.strictObject({ avs_failure: z.boolean().optional(), cvc_failure: z.boolean().optional() }).optional() })
          .optional(),
        konbini_payments: z
          .strictObject({
            support: z
              .strictObject({
                email: email.optional(),
                hours: z.strictObject({ end_time: text(5).optional(), start_time: text(5).optional() }).optional(),
                phone: text(40).optional(),
              })
              .optional(),
          })
          .optional(),
        mcc: z
          .string()
          .regex(/^\d{4}$/, 'must be a four-digit merchant category code')
          .optional(),
        script_statement_descriptor: z
          .strictObject({
            kana: z.strictObject({ descriptor: text(22).optional(), prefix: text(10).optional() }).optional(),
            kanji: z.strictObject({ descriptor: text(22).optional(), prefix: text(10).optional() }).optional(),
          })
          .optional(),
        sepa_debit_payments: z.strictObject({ creditor_id: text(35).optional() }).optional(),
        statement_descriptor: z.strictObject({ descriptor: z.string().min(5).max(22).optional(), prefix: z.string().min(2).max(10).optional() }).optional(),
        support: z
          .strictObject({ address: address(create).optional(), email: email.optional(), phone: text(40).optional(), url: z.url().optional() })
          .optional(),
      })
      .optional(),
    recipient: z
      .strictObject({
        ...applied,
        capabilities: z
          .strictObject({
            bank_accounts: capabilityMap(['ach', 'fedwire', 'fps', 'local', 'rtp', 'sepa', 'swift'] as const, create).optional(),
            cards: requested(create).optional(),
            service_balance: z.strictObject({ service_transfers: requested(create).optional() }).optional(),
          })
          .optional(),
      })
      .optional(),
  });
};

const defaults = (create: boolean) =>
  z.strictObject({
    currency: currency.optional(),
    locales: z
      .array(z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a locale such as en-US'))
      .max(10)
      .optional(),
    ...(create
      ? {}
      : {
          payout_methods: z
            .record(z.string().min(1).max(100), idParam())
            .refine((map) => Object.keys(map).length <= 20, 'payout_methods can have at most 20 entries')
            .optional(),
        }),
    profile: z
      .strictObject({ business_url: z.url().max(5000).optional(), doing_business_as: text(300).optional(), product_description: text(5000).optional() })
      .optional(),
    responsibilities: z
      .strictObject({
        fees_collector: z.enum(['application', 'application_custom', 'application_express', 'service']),
        losses_collector: z.enum(['application', 'service']),
      })
      .optional(),
  });

export const includeValues = [
  'configuration.customer',
  'configuration.merchant',
  'configuration.recipient',
  'defaults',
  'future_requirements',
  'identity',
  'requirements',
] as const;
export type AccountInclude = (typeof includeValues)[number];
const include = z
  .array(z.enum(includeValues))
  .max(includeValues.length * 2)
  .optional();
const configurationName = z.enum(['customer', 'merchant', 'recipient']);

const accountFields = (create: boolean) => ({
  account_token: idParam().optional(),
  configuration: configuration(create).optional(),
  contact_email: email.optional(),
  contact_phone: text(40).optional(),
  dashboard: z.enum(['express', 'full', 'none']).optional(),
  defaults: defaults(create).optional(),
  display_name: text(300).optional(),
  identity: identity(create).optional(),
  include,
  metadata: metadata.optional(),
});

export const createAccountParams = z.strictObject(accountFields(true));
export const updateAccountParams = z.strictObject(accountFields(false));
export const retrieveAccountParams = z.strictObject({ include });
export const listAccountsParams = z.strictObject({
  applied_configurations: z.array(configurationName).max(6).optional(),
  // A query string: the text booleans of v1 query strings (v2-era stripe-python sends `closed=True` too).
  closed: booleanParam().optional(),
  limit: integerParam(1, 100).optional(),
});
export const closeAccountParams = z.strictObject({ applied_configurations: z.array(configurationName).max(6).optional() });

export const createPersonParams = z.strictObject({
  ...personFields(true),
  additional_terms_of_service: z.strictObject({ account: attestation(true).optional() }).optional(),
  person_token: idParam().optional(),
});
export const updatePersonParams = z.strictObject({
  ...personFields(false),
  additional_terms_of_service: z.strictObject({ account: attestation(false).optional() }).optional(),
  person_token: idParam().optional(),
});
export const listPersonsParams = z.strictObject({ limit: integerParam(1, 100).optional() });

/**
 * Account and person tokens (`POST /v2/core/account_tokens`, `…/accounts/:id/person_tokens`): the same
 * members and checks as the inline parameters (on update, where address `country` and document `front`
 * are optional), except that attestations are only a yes (`attested`, `shown_and_accepted`): the date,
 * IP and user agent are those of the token's creation. No `identity.country`.
 */
const attested = z.strictObject({ attested: z.boolean().optional() });
const shownAndAccepted = z.strictObject({ account: z.strictObject({ shown_and_accepted: z.boolean().optional() }).optional() });
export const createAccountTokenParams = z.strictObject({
  contact_email: email.optional(),
  contact_phone: text(40).optional(),
  display_name: text(300).optional(),
  identity: z
    .strictObject({
      attestations: z
        .strictObject({
          directorship_declaration: attested.optional(),
          ownership_declaration: attested.optional(),
          persons_provided: personsProvided.optional(),
          representative_declaration: attested.optional(),
          terms_of_service: shownAndAccepted.optional(),
        })
        .optional(),
      business_details: businessDetails(false).optional(),
      entity_type: entityType.optional(),
      individual: z.strictObject(personFields(false)).optional(),
    })
    .optional(),
});
export const createPersonTokenParams = z.strictObject({ ...personFields(false), additional_terms_of_service: shownAndAccepted.optional() });

export type CreateAccountParams = z.output<typeof createAccountParams>;
export type UpdateAccountParams = z.output<typeof updateAccountParams>;
export type PersonParams = z.output<typeof updatePersonParams>;
export type CreateAccountTokenParams = z.output<typeof createAccountTokenParams>;
export type CreatePersonTokenParams = z.output<typeof createPersonTokenParams>;
