import * as z from 'zod';
import {
  calendarDateParam,
  countryParam,
  currencyParam,
  dateOfBirthParam,
  emailParam,
  idParam,
  integerParam,
  ipParam,
  phoneParam,
  stringParam,
  townAddressParam,
  v2MetadataPatchParam,
} from '#shared/wire/params.ts';
import { customerCapabilities, merchantCapabilities } from './capabilities.ts';
import { include } from './read-schemas.ts';

/**
 * v2 account and person parameters (JSON bodies), strict at every level: an unknown field is a 400 that
 * names it. Shapes follow the reference's AccountCreateParams / PersonCreateParams.
 */

const country = countryParam();
const email = emailParam();
const currency = currencyParam();
const metadata = v2MetadataPatchParam();

/** A v2 address (every one has `town`); `country` is required on create and optional on update. */
const address = (countryRequired: boolean) => (countryRequired ? townAddressParam().extend({ country }) : townAddressParam());
const purposedAddress = (countryRequired: boolean) =>
  address(countryRequired).extend({ purpose: z.enum(['registered']).describe('Purpose of additional address.') });

const attestation = (required: boolean) =>
  z.strictObject({
    date: required
      ? z.iso.datetime({ offset: true })
      : z.iso.datetime({ offset: true }).optional().describe('The time marking when the director attestation was made.'),
    ip: required ? ipParam() : ipParam().optional().describe('The IP address from which the director attestation was made.'),
    user_agent: stringParam(1000).optional().describe('The user agent of the browser from which the director attestation was made.'),
  });
const filesDocument = z.strictObject({
  files: z
    .array(idParam())
    .min(1)
    .max(10)
    .max(10)
    .describe('One or more document IDs returned by a file upload with a purpose value of `account_requirement`.'),
  type: z.literal('files').describe('The ID number type of a business entity.'),
});
const frontBackDocument = (required: boolean) =>
  z.strictObject({
    type: z.literal('front_back').describe('The ID number type of a business entity.'),
    front_back: z
      .strictObject({
        front: required ? z.string().min(1) : z.string().min(1).optional().describe('A file upload token representing the front of the verification document.'),
        back: z.string().min(1).optional().describe('A file upload token representing the back of the verification document.'),
      })
      .describe('The file upload tokens referring to each side of the document.'),
  });
/** An id number: the value is accepted and checked, then dropped; only the type is kept. */
const idNumber = z.strictObject({
  type: z
    .string()
    .regex(/^[a-z]{2}_[a-z0-9_]+$/, 'must be an id number type such as us_ssn')
    .describe('The ID number type of a business entity.'),
  value: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[A-Za-z0-9 .\-/]+$/, 'must be letters, digits, spaces, dots, dashes or slashes')
    .describe('The value of the ID number.'),
  registrar: stringParam(200).optional().describe('The registrar of the ID number (Only valid for DE ID number types).'),
});
const amount = z.strictObject({ value: integerParam(0, 1e15).describe('The value of the ID number.'), currency });

const relationship = z.strictObject({
  authorizer: z.boolean().optional().describe("Whether the individual is an authorizer of the Account's identity."),
  director: z.boolean().optional().describe("Whether the person is a director of the account's identity."),
  executive: z.boolean().optional().describe('Whether the person has significant responsibility to control, manage, or direct the organization.'),
  legal_guardian: z.boolean().optional().describe("Whether the individual is the legal guardian of the Account's representative."),
  owner: z.boolean().optional().describe("Whether the person is an owner of the account's identity."),
  percent_ownership: z
    .string()
    .regex(/^\d{1,3}(\.\d{1,4})?$/, 'must be a decimal string between 0 and 100')
    .refine((value) => Number(value) <= 100, 'must be at most 100')
    .optional()
    .describe("The percent owned by the person of the account's legal entity."),
  representative: z.boolean().optional().describe('Whether the individual is authorized as the primary representative of the Account.'),
  title: stringParam(200).optional().describe("The person's title (e.g., CEO, Support Engineer)."),
});

const scriptNames = z.strictObject({
  kana: z
    .strictObject({
      given_name: stringParam(200).optional().describe("The person's first or given name."),
      surname: stringParam(200).optional().describe("The person's last or family name."),
    })
    .optional()
    .describe('Kana name.'),
  kanji: z
    .strictObject({
      given_name: stringParam(200).optional().describe("The person's first or given name."),
      surname: stringParam(200).optional().describe("The person's last or family name."),
    })
    .optional()
    .describe('Kanji name.'),
});

/** The members a person and an account's `identity.individual` share. */
const personFields = (create: boolean) => ({
  additional_addresses: z.array(purposedAddress(create)).max(10).optional().describe('Additional addresses associated with the business.'),
  additional_names: z
    .array(
      z.strictObject({
        full_name: stringParam(300).optional().describe("The person's full name."),
        given_name: stringParam(200).optional().describe("The individual's first name."),
        purpose: z.enum(['alias', 'maiden']).describe('Purpose of additional address.'),
        surname: stringParam(200).optional().describe("The individual's last name."),
      }),
    )
    .max(10)
    .optional()
    .describe('Additional names (e.g. aliases) associated with the individual.'),
  address: address(create).optional().describe("The person's residential address."),
  date_of_birth: dateOfBirthParam().optional().describe("The individual's date of birth."),
  documents: z
    .strictObject({
      company_authorization: filesDocument
        .optional()
        .describe('One or more documents that demonstrate proof that this person is authorized to represent the company.'),
      passport: filesDocument.optional().describe("One or more documents showing the person's passport page with photo and personal data."),
      primary_verification: frontBackDocument(create).optional().describe("A document verifying the person's identity."),
      secondary_verification: frontBackDocument(create)
        .optional()
        .describe('A document showing address, either a passport, local ID card, or utility bill from a well-known utility company.'),
      visa: filesDocument.optional().describe("One or more documents showing the person's visa required for living in the country where they are residing."),
    })
    .optional()
    .describe("Documents that verify the person's identity."),
  email: email
    .optional()
    .describe("The individual's email address. You can only set this field when the Account is configured as a `merchant` or `recipient`."),
  given_name: stringParam(200).optional().describe("The individual's first name."),
  id_numbers: z
    .array(idNumber.omit({ registrar: true }))
    .max(5)
    .optional()
    .describe("The person's identification numbers."),
  legal_gender: z.enum(['female', 'male']).optional().describe('The individual\'s gender (International regulations require either "male" or "female").'),
  metadata: metadata.optional().describe('Set of key-value pairs that you can attach to an object.'),
  nationalities: z.array(country).max(5).optional().describe('The countries where the individual is a national. Two-letter country code (ISO 3166-1 alpha-2).'),
  phone: phoneParam().optional().describe("The person's phone number."),
  political_exposure: z.enum(['existing', 'none']).optional().describe("The individual's political exposure."),
  relationship: relationship.optional().describe("The relationship that this individual has with the account's identity."),
  script_addresses: z
    .strictObject({ kana: address(create).optional().describe('Kana Address.'), kanji: address(create).optional().describe('Kanji Address.') })
    .optional()
    .describe("The person's residential address in non-Latin scripts (Kana, Kanji)."),
  script_names: scriptNames.optional().describe("The person's names in non-Latin scripts (Kana, Kanji)."),
  surname: stringParam(200).optional().describe("The individual's last name."),
});

const businessDocuments = (create: boolean) =>
  z.strictObject({
    bank_account_ownership_verification: filesDocument
      .optional()
      .describe('One or more documents that support the bank account ownership verification requirement.'),
    company_license: filesDocument.optional().describe("One or more documents that demonstrate proof of a company's license to operate."),
    company_memorandum_of_association: filesDocument.optional().describe("One or more documents showing the company's Memorandum of Association."),
    company_ministerial_decree: filesDocument
      .optional()
      .describe("Certain countries only: One or more documents showing the ministerial decree legalizing the company's establishment."),
    company_registration_verification: filesDocument
      .optional()
      .describe("One or more documents that demonstrate proof of a company's registration with the appropriate local authorities."),
    company_tax_id_verification: filesDocument.optional().describe("One or more documents that demonstrate proof of a company's tax ID."),
    primary_verification: frontBackDocument(create).optional().describe('A document verifying the business.'),
    proof_of_address: filesDocument.optional().describe('One or more documents that demonstrate proof of address.'),
    proof_of_registration: z
      .strictObject({
        files: z.array(idParam()).min(1).max(10).describe('One or more document IDs returned by a file upload with a purpose value of `account_requirement`.'),
        signer: z
          .strictObject({ person: idParam().describe('Person signing the document.') })
          .optional()
          .describe('Person that is signing the document.'),
        type: z.literal('files').describe('The format of the document. Currently supports `files` only.'),
      })
      .optional()
      .describe("One or more documents showing the company's proof of registration with the national business registry."),
    proof_of_ultimate_beneficial_ownership: z
      .strictObject({
        files: z.array(idParam()).min(1).max(10).describe('One or more document IDs returned by a file upload with a purpose value of `account_requirement`.'),
        signer: z
          .strictObject({ person: idParam().describe('Person signing the document.') })
          .optional()
          .describe('Person that is signing the document.'),
        type: z.literal('files').describe('The format of the document. Currently supports `files` only.'),
      })
      .optional()
      .describe('One or more documents that demonstrate proof of ultimate beneficial ownership.'),
  });

const entityType = z.enum(['company', 'government_entity', 'individual', 'non_profit']);
const personsProvided = z.strictObject({
  directors: z.boolean().optional().describe("Whether the company's directors have been provided."),
  executives: z.boolean().optional().describe("Whether the company's executives have been provided."),
  owners: z
    .boolean()
    .optional()
    .describe("Whether the company's owners have been provided. Set this Boolean to true after creating all the company's owners with the Persons API."),
  ownership_exemption_reason: z
    .enum(['qualified_entity_exceeds_ownership_threshold', 'qualifies_as_financial_institution'])
    .optional()
    .describe('Reason for why the company is exempt from providing ownership information.'),
});

/** What a business is: the same members on create, update and in an account token (address `country` optional but on create). */
const businessDetails = (create: boolean) =>
  z.strictObject({
    additional_addresses: z.array(purposedAddress(create)).max(10).optional().describe('Additional addresses associated with the business.'),
    address: address(create).optional().describe('The business registration address of the business entity.'),
    annual_revenue: z
      .strictObject({
        amount: amount.optional().describe('A non-negative integer representing the amount in the smallest currency unit.'),
        fiscal_year_end: z
          .string()
          .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date such as 2025-12-31')
          .optional()
          .describe('The close-out date of the preceding fiscal year in ISO 8601 format.'),
      })
      .optional()
      .describe('The business gross annual revenue for its preceding fiscal year.'),
    documents: businessDocuments(create).optional().describe('A document verifying the business.'),
    estimated_worker_count: integerParam(0, 10_000_000)
      .optional()
      .describe('Estimated maximum number of workers currently engaged by the business (including employees, contractors, and vendors).'),
    id_numbers: z.array(idNumber).max(5).optional().describe('The ID numbers of a business entity.'),
    monthly_estimated_revenue: z
      .strictObject({ amount: amount.optional().describe('A non-negative integer representing the amount in the smallest currency unit.') })
      .optional()
      .describe('An estimate of the monthly revenue of the business.'),
    phone: phoneParam().optional().describe('The phone number of the Business Entity.'),
    registered_name: stringParam(300).optional().describe('The business legal name.'),
    registration_date: calendarDateParam().optional().describe('When the business was incorporated or registered.'),
    script_addresses: z
      .strictObject({ kana: address(create).optional().describe('Kana Address.'), kanji: address(create).optional().describe('Kanji Address.') })
      .optional()
      .describe('The business registration address of the business entity in non latin script.'),
    script_names: z
      .strictObject({
        kana: z
          .strictObject({ registered_name: stringParam(300).optional().describe('Registered name of the business.') })
          .optional()
          .describe('Kana name.'),
        kanji: z
          .strictObject({ registered_name: stringParam(300).optional().describe('Registered name of the business.') })
          .optional()
          .describe('Kanji name.'),
      })
      .optional()
      .describe('The business legal name in non latin script.'),
    structure: z
      .string()
      .regex(/^[a-z_]+$/, 'must be a business structure such as private_corporation')
      .optional()
      .describe('The category identifying the legal structure of the business.'),
  });

const identity = (create: boolean) =>
  z.strictObject({
    attestations: z
      .strictObject({
        directorship_declaration: attestation(create)
          .optional()
          .describe('This hash is used to attest that the directors information provided to the service is both current and correct.'),
        ownership_declaration: attestation(create)
          .optional()
          .describe('This hash is used to attest that the beneficial owner information provided to the service is both current and correct.'),
        persons_provided: personsProvided.optional().describe('Attestation that all Persons with a specific Relationship value have been provided.'),
        representative_declaration: attestation(create)
          .optional()
          .describe('This hash is used to attest that the representative is authorized to act as the representative of their legal entity.'),
        terms_of_service: z
          .strictObject({
            account: attestation(create).optional().describe("Details on the Account's acceptance of the Services Agreement."),
            ...(create
              ? {}
              : {
                  crypto_money_manager: attestation(false).optional().describe("Details on the Account's acceptance of Crypto-specific terms of service."),
                  money_manager: attestation(false).optional().describe("Details on the Account's acceptance of Treasury-specific terms of service."),
                }),
          })
          .optional()
          .describe('Attestations of accepted terms of service agreements.'),
      })
      .optional()
      .describe("Attestations from the identity's key people, e.g. owners, executives, directors, representatives."),
    business_details: businessDetails(create).optional().describe('Information about the company or business.'),
    country: country.optional().describe('Two-letter country code (ISO 3166-1 alpha-2).'),
    entity_type: entityType
      .optional()
      .describe(
        'The entity type represented by the Account. Ensure this field is accurate before adding configurations that rely on identity information, as it determines which identity fields apply and how the Account is validated.',
      ),
    individual: z.strictObject(personFields(create)).optional().describe('Information about the person represented by the account.'),
  });

const requested = (create: boolean) =>
  z.strictObject({ requested: create ? z.boolean() : z.boolean().optional().describe('To request a new Capability for an account, pass true.') });
const capabilityMap = <K extends string>(names: readonly K[], create: boolean) =>
  z.strictObject(Object.fromEntries(names.map((name) => [name, requested(create).optional()])) as Record<K, z.ZodOptional<ReturnType<typeof requested>>>);

const configuration = (create: boolean) => {
  const applied = create
    ? {}
    : { applied: z.boolean().optional().describe('Represents the state of the configuration, and can be updated to deactivate or re-apply a configuration.') };
  return z.strictObject({
    customer: z
      .strictObject({
        ...applied,
        automatic_indirect_tax: z
          .strictObject({
            exempt: z
              .enum(['exempt', 'none', 'reverse'])
              .optional()
              .describe("Describes the customer's tax exemption status, which is `none`, `exempt`, or `reverse`."),
            ip_address: ipParam().optional().describe('A recent IP address of the customer used for tax reporting and tax location inference.'),
            ...(create
              ? {}
              : {
                  validate_location: z
                    .enum(['auto', 'deferred', 'immediately'])
                    .optional()
                    .describe('A per-request flag that indicates when the service should validate the customer tax location - defaults to `auto`.'),
                }),
          })
          .optional()
          .describe(
            "Automatic indirect tax settings to be used when automatic tax calculation is enabled on the customer's invoices, subscriptions, checkout sessions, or payment links.",
          ),
        billing: z
          .strictObject({
            ...(create
              ? {}
              : {
                  default_payment_method: idParam()
                    .optional()
                    .describe(
                      "The ID of a `PaymentMethod` attached to this Account's `customer` configuration, used as the default payment method for invoices and subscriptions.",
                    ),
                }),
            invoice: z
              .strictObject({
                custom_fields: z
                  .array(z.strictObject({ name: phoneParam().describe('Customer name.'), value: stringParam(140).describe('The value of the ID number.') }))
                  .max(4)
                  .optional()
                  .describe('The list of up to 4 default custom fields to be displayed on invoices for this customer.'),
                footer: stringParam(5000).optional().describe('Default invoice footer.'),
                next_sequence: integerParam(1, 1_000_000_000).optional().describe("Sequence number to use on the customer account's next invoice."),
                prefix: z
                  .string()
                  .regex(/^[A-Z0-9]{3,12}$/, 'must be 3 to 12 uppercase letters or digits')
                  .optional()
                  .describe('Prefix used to generate unique invoice numbers. Must be 3-12 uppercase letters or numbers.'),
                rendering: z
                  .strictObject({
                    amount_tax_display: z
                      .enum(['exclude_tax', 'include_inclusive_tax'])
                      .optional()
                      .describe('Indicates whether displayed line item prices and amounts on invoice PDFs include inclusive tax amounts.'),
                    template: stringParam(200).optional().describe('ID of the invoice rendering template to use for future invoices.'),
                  })
                  .optional()
                  .describe('Default invoice PDF rendering options.'),
              })
              .optional()
              .describe('Default invoice settings for the customer account.'),
          })
          .optional()
          .describe('Billing settings - default settings used for this customer in Billing flows such as Invoices and Subscriptions.'),
        capabilities: capabilityMap(customerCapabilities, create).optional().describe('Capabilities that have been requested on the Customer Configuration.'),
        shipping: z
          .strictObject({
            address: address(false).optional().describe('Customer shipping address.'),
            name: stringParam(300).optional().describe('Customer name.'),
            phone: phoneParam().optional().describe('Customer phone (including extension).'),
          })
          .optional()
          .describe("The customer's shipping information. Appears on invoices emailed to this customer."),
        test_clock: idParam()
          .optional()
          .describe(
            'ID of the test clock to attach to the customer. Can only be set on testmode Accounts, and when the Customer Configuration is first set on an Account.',
          ),
      })
      .optional()
      .describe('The Customer Configuration allows the Account to be used in inbound payment flows (i.e. customer-facing payment and billing flows).'),
    merchant: z
      .strictObject({
        ...applied,
        bacs_debit_payments: z
          .strictObject({ display_name: stringParam(200).optional().describe('Display name for Bacs Direct Debit payments.') })
          .optional()
          .describe('Settings used for Bacs debit payments.'),
        branding: z
          .strictObject({
            icon: stringParam(200).optional().describe('ID of a file upload: An icon for the merchant. Must be square and at least 128px x 128px.'),
            logo: stringParam(200)
              .optional()
              .describe(
                "ID of a file upload: A logo for the merchant that will be used in Checkout instead of the icon and without the merchant's name next to it if provided.",
              ),
            primary_color: z
              .string()
              .regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour such as #0a2540')
              .optional()
              .describe('A CSS hex color value representing the primary branding color for the merchant.'),
            secondary_color: z
              .string()
              .regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour such as #0a2540')
              .optional()
              .describe('A CSS hex color value representing the secondary branding color for the merchant.'),
          })
          .optional()
          .describe("Settings used to apply the merchant's branding to email receipts, invoices, Checkout, and other products."),
        capabilities: capabilityMap(merchantCapabilities, create).optional().describe('Capabilities to request on the Merchant Configuration.'),
        card_payments: z
          .strictObject({
            decline_on: z
              .strictObject({
                avs_failure: z.boolean().optional().describe('Whether the service automatically declines charges with an incorrect ZIP or postal code.'),
                cvc_failure: z.boolean().optional().describe('Whether the service automatically declines charges with an incorrect CVC.'),
              })
              .optional()
              .describe('Automatically declines certain charge types regardless of whether the card issuer accepted or declined the charge.'),
          })
          .optional()
          .describe('Card payments settings.'),
        konbini_payments: z
          .strictObject({
            support: z
              .strictObject({
                email: email.optional().describe('A publicly available email address for sending support issues to.'),
                hours: z
                  .strictObject({
                    end_time: stringParam(5).optional().describe('Support hours end time (JST time of day) for in `HH:MM` format.'),
                    start_time: stringParam(5).optional().describe('Support hours start time (JST time of day) for in `HH:MM` format.'),
                  })
                  .optional()
                  .describe('Support hours for Konbini payments.'),
                phone: phoneParam().optional().describe('A publicly available phone number to call with support issues.'),
              })
              .optional()
              .describe('Support for Konbini payments.'),
          })
          .optional()
          .describe('Settings specific to Konbini payments on the account.'),
        mcc: z
          .string()
          .regex(/^\d{4}$/, 'must be a four-digit merchant category code')
          .optional()
          .describe('The Merchant Category Code (MCC) for the Merchant Configuration.'),
        script_statement_descriptor: z
          .strictObject({
            kana: z
              .strictObject({
                descriptor: stringParam(22).optional().describe('The default text that appears on statements for non-card charges outside of Japan.'),
                prefix: stringParam(10)
                  .optional()
                  .describe(
                    'Default text that appears on statements for card charges outside of Japan, prefixing any dynamic statement_descriptor_suffix specified on the charge.',
                  ),
              })
              .optional()
              .describe('The Kana variation of statement_descriptor used for charges in Japan.'),
            kanji: z
              .strictObject({
                descriptor: stringParam(22).optional().describe('The default text that appears on statements for non-card charges outside of Japan.'),
                prefix: stringParam(10)
                  .optional()
                  .describe(
                    'Default text that appears on statements for card charges outside of Japan, prefixing any dynamic statement_descriptor_suffix specified on the charge.',
                  ),
              })
              .optional()
              .describe('The Kanji variation of statement_descriptor used for charges in Japan.'),
          })
          .optional()
          .describe('Settings for the default text that appears on statements for language variations.'),
        sepa_debit_payments: z
          .strictObject({ creditor_id: stringParam(35).optional().describe('Creditor ID for SEPA Direct Debit payments.') })
          .optional()
          .describe('Settings used for SEPA Direct Debit payments.'),
        statement_descriptor: z
          .strictObject({
            descriptor: z.string().min(5).max(22).optional().describe('The default text that appears on statements for non-card charges outside of Japan.'),
            prefix: z
              .string()
              .min(2)
              .max(10)
              .optional()
              .describe(
                'Default text that appears on statements for card charges outside of Japan, prefixing any dynamic statement_descriptor_suffix specified on the charge.',
              ),
          })
          .optional()
          .describe('Statement descriptor.'),
        support: z
          .strictObject({
            address: address(create).optional().describe('A publicly available mailing address for sending support issues to.'),
            email: email.optional().describe('A publicly available email address for sending support issues to.'),
            phone: phoneParam().optional().describe('A publicly available phone number to call with support issues.'),
            url: z.url().optional().describe('A publicly available website for handling support issues.'),
          })
          .optional()
          .describe('Publicly available contact information for sending support issues to.'),
      })
      .optional()
      .describe('Enables the Account to act as a connected account and collect payments facilitated by a Connect platform.'),
    recipient: z
      .strictObject({
        ...applied,
        capabilities: z
          .strictObject({
            bank_accounts: capabilityMap(['ach', 'fedwire', 'fps', 'local', 'rtp', 'sepa', 'swift'] as const, create)
              .optional()
              .describe('Capabilities that enable OutboundPayments to a bank account linked to this Account.'),
            cards: requested(create).optional().describe('Capabilities that enable OutboundPayments to a card linked to this Account.'),
            service_balance: z
              .strictObject({ service_transfers: requested(create).optional().describe('Allow the account to receive transfers from the platform.') })
              .optional()
              .describe('Capabilities that enable the recipient to manage its balance with this service.'),
          })
          .optional()
          .describe('Capabilities to be requested on the Recipient Configuration.'),
      })
      .optional()
      .describe('The Recipient Configuration allows the Account to receive funds.'),
  });
};

const defaults = (create: boolean) =>
  z.strictObject({
    currency: currency.optional().describe('Three-letter ISO currency code, in lowercase. Must be a supported currency.'),
    locales: z
      .array(z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'must be a locale such as en-US'))
      .max(10)
      .optional()
      .describe("The Account's preferred locales (languages), ordered by preference."),
    ...(create
      ? {}
      : {
          payout_methods: z
            .record(z.string().min(1).max(100), idParam())
            .refine((map) => Object.keys(map).length <= 20, 'payout_methods can have at most 20 entries')
            .optional()
            .describe('Default payout methods per currency. Keys are three-letter ISO currency codes, in lowercase.'),
        }),
    profile: z
      .strictObject({
        business_url: z.url().max(5000).optional().describe("The business's publicly-available website."),
        doing_business_as: stringParam(300).optional().describe('The name which is used by the business.'),
        product_description: stringParam(5000).optional().describe('Internal-only description of the product sold or service provided by the business.'),
      })
      .optional()
      .describe('Account profile information.'),
    responsibilities: z
      .strictObject({
        fees_collector: z
          .enum(['application', 'application_custom', 'application_express', 'service'])
          .describe('A value indicating the party responsible for collecting fees from this account.'),
        losses_collector: z
          .enum(['application', 'service'])
          .describe("A value indicating who is responsible for losses when this Account can't pay back negative balances from payments."),
      })
      .optional()
      .describe('Default responsibilities held by either the service or the platform.'),
  });

const accountFields = (create: boolean) => ({
  account_token: idParam().optional().describe('The account token generated by the account token API.'),
  configuration: configuration(create)
    .optional()
    .describe("An Account Configuration which allows the Account to take on a key persona across the service's products."),
  contact_email: email.optional().describe('The primary contact email address for the Account.'),
  contact_phone: phoneParam().optional().describe('The default contact phone for the Account.'),
  dashboard: z.enum(['express', 'full', 'none']).optional().describe('A value indicating the dashboard this Account has access to.'),
  defaults: defaults(create).optional().describe('Default values to be used on Account Configurations.'),
  display_name: stringParam(300)
    .optional()
    .describe('A descriptive name for the Account. This name will be surfaced in the Dashboard and on any invoices sent to the Account.'),
  identity: identity(create).optional().describe('Information about the company, individual, and business represented by the Account.'),
  include,
  metadata: metadata.optional().describe('Set of key-value pairs that you can attach to an object.'),
});

export const createAccountParams = z.strictObject(accountFields(true));
export const updateAccountParams = z.strictObject(accountFields(false));
export const createPersonParams = z.strictObject({
  ...personFields(true),
  additional_terms_of_service: z
    .strictObject({ account: attestation(true).optional().describe("Details on the Account's acceptance of the Services Agreement.") })
    .optional()
    .describe('Attestations of accepted terms of service agreements.'),
  person_token: idParam().optional().describe('A person token (`perstok_…`) whose details the person is made from.'),
});
export const updatePersonParams = z.strictObject({
  ...personFields(false),
  additional_terms_of_service: z
    .strictObject({ account: attestation(false).optional().describe("Details on the Account's acceptance of the Services Agreement.") })
    .optional()
    .describe('Attestations of accepted terms of service agreements.'),
  person_token: idParam().optional().describe('A person token (`perstok_…`) whose details are applied to the person.'),
});

/**
 * Account and person tokens (`POST /v2/core/account_tokens`, `…/accounts/:id/person_tokens`): the same
 * members and checks as the inline parameters (on update, where address `country` and document `front`
 * are optional), except that attestations are only a yes (`attested`, `shown_and_accepted`): the date,
 * IP and user agent are those of the token's creation. No `identity.country`.
 */
const attested = z.strictObject({ attested: z.boolean().optional().describe('A boolean indicating if the directors information has been attested.') });
const shownAndAccepted = z.strictObject({
  account: z
    .strictObject({ shown_and_accepted: z.boolean().optional().describe('The boolean value indicating if the terms of service have been accepted.') })
    .optional()
    .describe("Details on the Account's acceptance of the Services Agreement."),
});
export const createAccountTokenParams = z.strictObject({
  contact_email: email.optional().describe('The primary contact email address for the Account.'),
  contact_phone: phoneParam().optional().describe('The default contact phone for the Account.'),
  display_name: stringParam(300)
    .optional()
    .describe('A descriptive name for the Account. This name will be surfaced in the Dashboard and on any invoices sent to the Account.'),
  identity: z
    .strictObject({
      attestations: z
        .strictObject({
          directorship_declaration: attested
            .optional()
            .describe(
              'This hash is used to attest that the directors information provided to the service is both current and correct; IP, date, and User Agent are expanded by the service.',
            ),
          ownership_declaration: attested
            .optional()
            .describe(
              'This hash is used to attest that the beneficial owner information provided to the service is both current and correct; IP, date, and User Agent are expanded by the service.',
            ),
          persons_provided: personsProvided.optional().describe('Attestation that all Persons with a specific Relationship value have been provided.'),
          representative_declaration: attested
            .optional()
            .describe(
              'This hash is used to attest that the representative is authorized to act as the representative of their legal entity; IP, date, and User Agent are expanded by the service.',
            ),
          terms_of_service: shownAndAccepted.optional().describe('Attestations of accepted terms of service agreements.'),
        })
        .optional()
        .describe("Attestations from the identity's key people, e.g. owners, executives, directors, representatives."),
      business_details: businessDetails(false).optional().describe('Information about the company or business.'),
      entity_type: entityType.optional().describe('The entity type.'),
      individual: z.strictObject(personFields(false)).optional().describe('Information about the person represented by the account.'),
    })
    .optional()
    .describe('Information about the company, individual, and business represented by the Account.'),
});
export const createPersonTokenParams = z.strictObject({
  ...personFields(false),
  additional_terms_of_service: shownAndAccepted.optional().describe('Attestations of accepted terms of service agreements.'),
});

export type CreateAccountParams = z.output<typeof createAccountParams>;
export type UpdateAccountParams = z.output<typeof updateAccountParams>;
export type PersonParams = z.output<typeof updatePersonParams>;
export type CreateAccountTokenParams = z.output<typeof createAccountTokenParams>;
export type CreatePersonTokenParams = z.output<typeof createPersonTokenParams>;
