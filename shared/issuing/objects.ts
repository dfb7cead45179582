import * as z from 'zod';
import { addressObject, metadataObject, nullableString, unixTime } from '#shared/wire/objects.ts';

const nullableInt = z.int().nullable();

const nullableNumber = z.number().nullable();

const promptData = {
  driver_id: nullableString.describe('Driver ID.'),
  odometer: nullableNumber.describe('Odometer reading.'),
  unspecified_id: nullableString.describe(
    'An alphanumeric ID. This field is used when a vehicle ID, driver ID, or generic ID is entered by the cardholder, but the merchant or card network did not specify the prompt type.',
  ),
  user_id: nullableString.describe('User ID.'),
  vehicle_number: nullableString.describe('Vehicle number.'),
};

const individualObject = z.object({
  card_issuing: z
    .object({
      user_terms_acceptance: z
        .object({
          date: unixTime.nullable().describe('The Unix timestamp marking when the cardholder accepted the Authorized User Terms.'),
          ip: nullableString.describe('The IP address from which the cardholder accepted the Authorized User Terms.'),
          user_agent: nullableString.describe('The user agent of the browser from which the cardholder accepted the Authorized User Terms.'),
        })
        .nullable()
        .describe('Information about cardholder acceptance of Celtic Authorized User Terms.'),
    })
    .nullable()
    .describe('Information related to the card_issuing program for this cardholder.'),
  dob: z
    .object({
      day: nullableInt.describe('The day of birth, between 1 and 31.'),
      month: nullableInt.describe('The month of birth, between 1 and 12.'),
      year: nullableInt.describe('The four-digit year of birth.'),
    })
    .nullable()
    .describe('The date of birth of this cardholder.'),
  first_name: nullableString.describe('The first name of this cardholder. Required before activating Cards.'),
  last_name: nullableString.describe('The last name of this cardholder. Required before activating Cards.'),
  verification: z.null().describe('Government-issued ID document for this cardholder.'),
});

const reportedBreakdownObject = z
  .object({
    fuel: z
      .object({
        gross_amount_decimal: nullableString.describe('Gross fuel amount that should equal Fuel Quantity multiplied by Fuel Unit Cost, inclusive of taxes.'),
      })
      .nullable()
      .describe('Breakdown of fuel portion of the purchase.'),
    non_fuel: z
      .object({ gross_amount_decimal: nullableString.describe('Gross non-fuel amount that should equal the sum of the line items, inclusive of taxes.') })
      .nullable()
      .describe('Breakdown of non-fuel portion of the purchase.'),
    tax: z
      .object({
        local_amount_decimal: nullableString.describe('Amount of state or provincial Sales Tax included in the transaction amount.'),
        national_amount_decimal: nullableString.describe('Amount of national Sales Tax or VAT included in the transaction amount.'),
      })
      .nullable()
      .describe('Information about tax included in this transaction.'),
  })
  .nullable();

const fleetObject = <P extends z.ZodObject>(prompt: P) =>
  z.object({
    cardholder_prompt_data: prompt.nullable().describe('Answers to prompts presented to the cardholder at the point of sale.'),
    purchase_type: nullableString.describe('The type of purchase.'),
    reported_breakdown: reportedBreakdownObject.describe(
      'More information about the total amount. Typically this information is received from the merchant after the authorization has been approved and the fuel dispensed.',
    ),
    service_type: nullableString.describe('The type of fuel service.'),
  });

const fuelObject = z.object({
  industry_product_code: nullableString.describe('Conexxus Payment System Product Code identifying the primary fuel product purchased.'),
  quantity_decimal: nullableString.describe(
    'The quantity of `unit`s of fuel that was dispensed, represented as a decimal string with at most 12 decimal places.',
  ),
  type: nullableString.describe('The type of fuel that was purchased.'),
  unit: nullableString.describe('The units for `quantity_decimal`.'),
  unit_cost_decimal: nullableString.describe('The cost in cents per each unit of fuel, represented as a decimal string with at most 12 decimal places.'),
});

const purchaseDetailsObject = z.object({
  fleet: fleetObject(z.object(promptData)).nullable().describe('Fleet-specific information for transactions using Fleet cards.'),
  flight: z
    .object({
      departure_at: unixTime.nullable().describe('The time that the flight departed.'),
      passenger_name: nullableString.describe('The name of the passenger.'),
      refundable: z.boolean().nullable().describe('Whether the ticket is refundable.'),
      segments: z
        .array(
          z.object({
            arrival_airport_code: nullableString.describe("The three-letter IATA airport code of the flight's destination."),
            carrier: nullableString.describe('The delivery company that shipped a card.'),
            departure_airport_code: nullableString.describe('The three-letter IATA airport code that the flight departed from.'),
            flight_number: nullableString.describe('The flight number.'),
            service_class: nullableString.describe("The flight's service class."),
            stopover_allowed: z.boolean().nullable().describe('Whether a stopover is allowed on this flight.'),
          }),
        )
        .nullable()
        .describe('The legs of the trip.'),
      travel_agency: nullableString.describe('The travel agency that issued the ticket.'),
    })
    .nullable()
    .describe('Information about the flight that was purchased with this transaction.'),
  fuel: fuelObject.nullable().describe('Information about fuel that was purchased with this transaction.'),
  lodging: z
    .object({
      check_in_at: unixTime.nullable().describe('The time of checking into the lodging.'),
      nights: nullableInt.describe('The number of nights stayed at the lodging.'),
    })
    .nullable()
    .describe('Information about lodging that was purchased with this transaction.'),
  receipt: z
    .array(
      z.object({
        description: nullableString.describe('The description of the item. The maximum length of this field is 26 characters.'),
        quantity: nullableNumber.describe('The quantity of the item.'),
        total: nullableInt.describe('The total for this line item in cents.'),
        unit_cost: nullableInt.describe('The unit cost of the item in cents.'),
      }),
    )
    .nullable()
    .describe('The line items in the purchase.'),
  reference: nullableString.describe('A merchant-specific order number.'),
});

const verificationDataObject = z.object({
  address_line1_check: z.string().describe("Whether the cardholder provided an address first line and if it matched the cardholder's `billing.address.line1`."),
  address_postal_code_check: z
    .string()
    .describe("Whether the cardholder provided a postal code and if it matched the cardholder's `billing.address.postal_code`."),
  authentication_exemption: z
    .object({
      claimed_by: z.string().describe('The entity that requested the exemption, either the acquiring merchant or the Issuing user.'),
      type: z.string().describe('The specific exemption claimed for this authorization.'),
    })
    .nullable()
    .describe('The exemption applied to this authorization.'),
  cvc_check: z.string().describe("Whether the cardholder provided a CVC and if it matched the service's record."),
  expiry_check: z.string().describe("Whether the cardholder provided an expiry date and if it matched the service's record."),
  postal_code: nullableString.describe('ZIP or postal code.'),
  three_d_secure: z
    .object({ result: z.string().describe('The outcome of the 3D Secure authentication request.') })
    .nullable()
    .describe('3D Secure details.'),
});

const spendingControlsObject = z.object({
  allowed_card_presences: z.null().describe('Array of card presence statuses from which authorizations will be allowed.'),
  allowed_categories: z.null().describe('Array of strings containing categories of authorizations to allow.'),
  allowed_merchant_countries: z.null().describe('Array of strings containing representing countries from which authorizations will be allowed.'),
  blocked_card_presences: z.null().describe('Array of card presence statuses from which authorizations will be declined.'),
  blocked_categories: z.null().describe('Array of strings containing categories of authorizations to decline.'),
  blocked_merchant_countries: z.null().describe('Array of strings containing representing countries from which authorizations will be declined.'),
  spending_limits: z.array(z.unknown()).describe("Limit spending with amount-based rules that apply across this cardholder's cards."),
  spending_limits_currency: z.null().describe('Currency of the amounts within `spending_limits`.'),
});

export const cardholderObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('issuing.cardholder').describe("String representing the object's type. Objects of the same type share the same value."),
    billing: z.object({ address: addressObject.describe("The cardholder's billing address.") }).describe("The cardholder's billing address."),
    company: z
      .object({ tax_id_provided: z.boolean().describe("Whether the company's business ID number was provided.") })
      .nullable()
      .describe('Additional information about a `company` cardholder.'),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    email: nullableString.describe("The cardholder's email address."),
    individual: individualObject.nullable().describe('Additional information about an `individual` cardholder.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    name: z.string().describe("The cardholder's name. This will be printed on cards issued to them."),
    phone_number: nullableString.describe("The cardholder's phone number. This is required for all cardholders who will be creating EU cards."),
    preferred_locales: z.array(z.string()).nullable().describe("The cardholder's preferred locales (languages), ordered by preference."),
    requirements: z
      .object({
        disabled_reason: z
          .null()
          .describe('If `disabled_reason` is present, all cards will decline authorizations with `cardholder_verification_required` reason.'),
        past_due: z.array(z.string()).describe('Array of fields that need to be collected in order to verify and re-enable the cardholder.'),
      })
      .describe('What the cardholder still needs before its cards can be activated.'),
    spending_controls: spendingControlsObject.describe("Rules that control spending across this cardholder's cards."),
    status: z.enum(['active', 'inactive', 'blocked']).describe("Specifies whether to permit authorizations on this cardholder's cards."),
    type: z.enum(['individual', 'company']).describe('One of `individual` or `company`.'),
  })
  .meta({ id: 'IssuingCardholder' });

export const issuingCardObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('issuing.card').describe("String representing the object's type. Objects of the same type share the same value."),
    brand: z.literal('Visa').describe('The brand of the card.'),
    cancellation_reason: z.enum(['lost', 'stolen']).nullable().describe('The reason why the card was canceled.'),
    cardholder: cardholderObject.describe('The cardholder the card is issued to.'),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    currency: z
      .string()
      .describe('Three-letter ISO currency code, in lowercase. Supported currencies are `usd` in the US, `eur` in the EU, and `gbp` in the UK.'),
    exp_month: z.int().describe('The expiration month of the card.'),
    exp_year: z.int().describe('The expiration year of the card.'),
    financial_account: z.null().describe('The financial account this card is attached to.'),
    last4: z.string().describe('The last 4 digits of the card number.'),
    latest_fraud_warning: z.null().describe("The service's assessment of whether this card's details have been compromised."),
    lifecycle_controls: z.null().describe('Rules that control the lifecycle of this card, such as automatic cancellation.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    personalization_design: z.null().describe('The personalization design object belonging to this card.'),
    replaced_by: z.null().describe('The latest card that replaces this card, if any.'),
    replacement_for: z.null().describe('The card this card replaces, if any.'),
    replacement_reason: z.null().describe('The reason why the previous card needed to be replaced.'),
    second_line: nullableString.describe('Text separate from cardholder name, printed on the card.'),
    shipping: z.null().describe('Where and how the card will be shipped.'),
    spending_controls: spendingControlsObject.describe("Rules that control spending across this cardholder's cards."),
    status: z.enum(['active', 'inactive', 'canceled']).describe('Whether authorizations can be approved on this card.'),
    type: z.enum(['virtual', 'physical']).describe('The type of the card.'),
    wallets: z.null().describe('Information relating to digital wallets (like Apple Pay and Google Pay).'),
  })
  .meta({ id: 'IssuingCard' });

const amountDetailsFields = z.object({
  atm_fee: z.int().nullable().describe('The fee charged by the ATM for the cash withdrawal.'),
  cashback_amount: z.int().nullable().describe('The amount of cash requested by the cardholder.'),
});

const amountDetailsObject = amountDetailsFields.nullable();

const merchantDataObject = z.object({
  category: z.string().describe("A categorization of the seller's type of business."),
  category_code: z.string().describe("The merchant category code for the seller's business."),
  city: nullableString.describe('City, district, suburb, town, or village.'),
  country: nullableString.describe('Two-letter country code (ISO 3166-1 alpha-2).'),
  name: nullableString.describe('Name of the seller.'),
  network_id: z.string().describe('Identifier assigned to the seller by the card network.'),
  postal_code: nullableString.describe('ZIP or postal code.'),
  state: nullableString.describe('State, county, province, or region.'),
  tax_id: nullableString.describe("The seller's tax identification number. Currently populated for French merchants only."),
  terminal_id: nullableString.describe('An ID assigned by the seller to the location of the sale.'),
  url: nullableString.describe('URL provided by the merchant on a 3DS request.'),
});

export const issuingTransactionObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('issuing.transaction').describe("String representing the object's type. Objects of the same type share the same value."),
    amount: z.int().describe('The transaction amount, which will be reflected in your balance.'),
    amount_details: amountDetailsObject.describe(
      'Detailed breakdown of amount components. These amounts are denominated in `currency` and in the smallest currency unit.',
    ),
    /** The authorization's id (null for a capture or refund without one), or the authorization when expanded. */
    get authorization() {
      return z
        .union([z.string(), issuingAuthorizationObject])
        .nullable()
        .describe('The `Authorization` object that led to this transaction: its id, or the authorization when expanded.');
    },
    balance_transaction: z.null().describe('ID of the balance transaction associated with this transaction.'),
    /** The card's id, or the card when expanded. */
    card: z.union([z.string(), issuingCardObject]).describe("The card used to make this transaction. The card's id, or the card when expanded."),
    /** The cardholder's id, or the cardholder when expanded. */
    cardholder: z
      .union([z.string(), cardholderObject])
      .nullable()
      .describe("The cardholder to whom this transaction belongs. The cardholder's id, or the cardholder when expanded."),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    currency: z.string().describe('Three-letter ISO currency code, in lowercase. Must be a supported currency.'),
    dispute: z.null().describe("If you've disputed the transaction, the ID of the dispute."),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    merchant_amount: z.int().describe('The amount that the merchant will receive, denominated in `merchant_currency` and in the smallest currency unit.'),
    merchant_currency: z.string().describe('The currency with which the merchant is taking payment.'),
    merchant_data: merchantDataObject.describe('Details about the seller (grocery store, e-commerce website, etc.) where the card authorization happened.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    network_data: z
      .object({
        authorization_code: nullableString.describe('A code created by the service which is shared with the merchant to validate the authorization.'),
        processing_date: nullableString.describe('The date the transaction was processed by the card network.'),
        transaction_id: nullableString.describe(
          'Unique identifier for the authorization assigned by the card network used to match subsequent messages, disputes, and transactions.',
        ),
      })
      .describe('Details about the transaction, such as processing dates, set by the card network.'),
    /** What the merchant reported with the capture. */
    purchase_details: purchaseDetailsObject
      .nullable()
      .describe('Additional purchase information that is optionally provided by the merchant. What the merchant reported with the capture.'),
    token: z.null().describe('Token object used for this transaction. If a network token was not used for this transaction, this field will be null.'),
    treasury: z
      .null()
      .describe('Treasury details related to this transaction if it was created on a [FinancialAccount](/docs/api/treasury/financial_accounts.'),
    type: z.enum(['capture', 'refund']).describe('The nature of the transaction.'),
    wallet: nullableString.describe('The digital wallet used for this transaction. One of `apple_pay`, `google_pay`, or `samsung_pay`.'),
  })
  .meta({ id: 'IssuingTransaction' });

export const issuingAuthorizationObject = z
  .object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal('issuing.authorization').describe("String representing the object's type. Objects of the same type share the same value."),
    amount: z.int().describe('The total amount that was authorized or rejected. This amount is in `currency` and in the smallest currency unit.'),
    /** Always an object, as the spec has it (the finalize helper's authorization): its parts null when none was given. */
    amount_details: amountDetailsFields.describe(
      'Detailed breakdown of amount components. These amounts are denominated in `currency` and in the smallest currency unit.',
    ),
    approved: z.boolean().describe('Whether the authorization has been approved.'),
    authorization_method: z.string().describe('How the card details were provided.'),
    balance_transactions: z.array(z.unknown()).describe('List of balance transactions associated with this authorization.'),
    card: z.union([z.string(), issuingCardObject]).describe("The card's id, or the card when expanded."),
    card_presence: z.enum(['present', 'not_present']).describe('Whether the card was present at the point of sale for the authorization.'),
    cardholder: z.union([z.string(), cardholderObject]).nullable().describe('The cardholder to whom this authorization belongs.'),
    created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
    currency: z
      .string()
      .describe(
        'The currency of the cardholder. This currency can be different from the currency presented at authorization and the `merchant_currency` field on this authorization.',
      ),
    fleet: fleetObject(
      z.object({
        alphanumeric_id: nullableString.describe('[Deprecated] An alphanumeric ID, though typical point of sales only support numeric entry.'),
        ...promptData,
      }),
    )
      .nullable()
      .describe('Fleet-specific information for authorizations using Fleet cards.'),
    fraud_challenges: z.null().describe('Fraud challenges sent to the cardholder, if this authorization was declined for fraud risk reasons.'),
    fuel: fuelObject.nullable().describe('Information about fuel that was purchased with this transaction.'),
    livemode: z.boolean().describe('If the object exists in live mode, the value is `true`.'),
    merchant_amount: z
      .int()
      .describe('The total amount that was authorized or rejected. This amount is in the `merchant_currency` and in the smallest currency unit.'),
    merchant_currency: z.string().describe('The local currency that was presented to the cardholder for the authorization.'),
    merchant_data: merchantDataObject.describe('Details about the seller (grocery store, e-commerce website, etc.) where the card authorization happened.'),
    metadata: metadataObject.describe('Set of key-value pairs that you can attach to an object.'),
    network_data: z
      .object({
        acquiring_institution_id: nullableString.describe('Identifier assigned to the acquirer by the card network.'),
        system_trace_audit_number: nullableString.describe('The System Trace Audit Number (STAN) is a 6-digit identifier assigned by the acquirer.'),
        transaction_id: nullableString.describe(
          'Unique identifier for the authorization assigned by the card network used to match subsequent messages, disputes, and transactions.',
        ),
      })
      .describe('Details about the authorization, such as identifiers, set by the card network.'),
    pending_request: z
      .null()
      .describe('The pending authorization request. This field will only be non-null during an `issuing_authorization.request` webhook.'),
    redaction: z.null().describe("Details on the redaction of the authorization's data, if redacted."),
    request_history: z
      .array(
        z.object({
          amount: z
            .int()
            .describe(
              "The `pending_request.amount` at the time of the request, presented in your card's currency and in the smallest currency unit. the service held this amount from your account to fund the authorization if the request was approved.",
            ),
          amount_details: amountDetailsObject.describe(
            'Detailed breakdown of amount components. These amounts are denominated in `currency` and in the smallest currency unit.',
          ),
          approved: z.boolean().describe('Whether this request was approved.'),
          authorization_code: nullableString.describe('A code created by the service which is shared with the merchant to validate the authorization.'),
          created: unixTime.describe('Time at which the object was created. Measured in seconds since the Unix epoch.'),
          currency: z.string().describe('Three-letter ISO currency code, in lowercase. Must be a supported currency.'),
          merchant_amount: z
            .int()
            .describe(
              'The `pending_request.merchant_amount` at the time of the request, presented in the `merchant_currency` and in the smallest currency unit.',
            ),
          merchant_currency: z.string().describe('The currency that was collected by the merchant and presented to the cardholder for the authorization.'),
          network_risk_score: z.number().nullable().describe("The card network's estimate of the likelihood that an authorization is fraudulent."),
          reason: z
            .string()
            .describe(
              'When an authorization is approved or declined by you or by the service, this field provides additional detail on the reason for the outcome.',
            ),
          reason_message: nullableString.describe(
            'If the `request_history.reason` is `webhook_error` because the direct webhook response is invalid (for example, parsing errors or missing parameters), we surface a more detailed error message via this field.',
          ),
          requested_at: unixTime.nullable().describe('Time when the card network received an authorization request from the acquirer in UTC.'),
        }),
      )
      .describe(
        'History of every time a `pending_request` authorization was approved/declined, either by you directly or by the service (e.g. based on your spending_controls).',
      ),
    status: z.enum(['pending', 'closed', 'expired', 'reversed']).describe('The current status of the authorization in its lifecycle.'),
    token: z.null().describe('Token object used for this authorization. If a network token was not used for this authorization, this field will be null.'),
    transactions: z.array(issuingTransactionObject).describe('List of transactions associated with this authorization.'),
    treasury: z.null().describe('Treasury details related to this authorization if it was created on a FinancialAccount.'),
    verification_data: verificationDataObject.describe('Verifications that the service performed on information that the cardholder provided to the merchant.'),
    verified_by_fraud_challenge: z
      .null()
      .describe(
        'Whether the authorization bypassed fraud risk checks because the cardholder has previously completed a fraud challenge on a similar high-risk authorization from the same merchant.',
      ),
    wallet: nullableString.describe('The digital wallet used for this transaction. One of `apple_pay`, `google_pay`, or `samsung_pay`.'),
  })
  .meta({ id: 'IssuingAuthorization' });
