import * as z from 'zod';
import { listOf } from '#shared/expansion/plan.ts';
import {
  addressParam,
  booleanParam,
  countryParam,
  createdParam,
  currencyParam,
  dateOfBirthParam,
  emailParam,
  expandParam,
  idParam,
  ipParam,
  integerParam,
  maxEmailLength,
  metadataParam,
  stringParam,
  unixTimeParam,
  v1ListParams,
} from '#shared/wire/params.ts';
import { merchantCategories } from './merchant-categories.ts';

/** A closed set of values; an unknown one is a 400 naming the parameter (e.g. `fuel[type]`). */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, `must be one of: ${values.join(', ')}`);

/** Amounts in minor units, up to the reference's eight digits. */
const amountParam = (min = 0) => integerParam(min, 99_999_999);

/**
 * A v1 `*_decimal` value: a plain non-negative decimal string with at most 12 decimal places (the
 * reference's precision). The official SDK sends its `Decimal` values in exactly this notation.
 */
export const decimalParam = () =>
  z
    .string()
    .max(40, 'must be at most 40 characters')
    .regex(/^\d+(\.\d+)?$/, 'must be a non-negative decimal number such as 12.5')
    .refine((value) => (value.split('.')[1]?.length ?? 0) <= 12, 'must have at most 12 decimal places');

const unixTime = unixTimeParam();

export const fuelTypes = ['diesel', 'other', 'unleaded_plus', 'unleaded_regular', 'unleaded_super'] as const;
export const fuelUnits = ['charging_minute', 'imperial_gallon', 'kilogram', 'kilowatt_hour', 'liter', 'other', 'pound', 'us_gallon'] as const;

/** `fuel` of create, finalize_amount and capture's `purchase_details`. */
export const fuelParam = () =>
  z.strictObject({
    industry_product_code: stringParam(100).optional().describe('Conexxus Payment System Product Code identifying the primary fuel product purchased.'),
    quantity_decimal: decimalParam()
      .optional()
      .describe('The quantity of `unit`s of fuel that was dispensed, represented as a decimal string with at most 12 decimal places.'),
    type: oneOf(fuelTypes)
      .optional()
      .describe('The type of fuel that was purchased. One of `diesel`, `unleaded_plus`, `unleaded_regular`, `unleaded_super`, or `other`.'),
    unit: oneOf(fuelUnits)
      .optional()
      .describe(
        'The units for `quantity_decimal`. One of `charging_minute`, `imperial_gallon`, `kilogram`, `kilowatt_hour`, `liter`, `pound`, `us_gallon`, or `other`.',
      ),
    unit_cost_decimal: decimalParam()
      .optional()
      .describe('The cost in cents per each unit of fuel, represented as a decimal string with at most 12 decimal places.'),
  });

/** `fleet` of create, finalize_amount and capture's `purchase_details`. */
export const fleetParam = () =>
  z.strictObject({
    cardholder_prompt_data: z
      .strictObject({
        driver_id: stringParam(100).optional().describe('Driver ID.'),
        odometer: integerParam(0, 99_999_999).optional().describe('Odometer reading.'),
        unspecified_id: z
          .string()
          .max(100)
          .regex(/^[A-Za-z0-9]+$/, 'must be alphanumeric')
          .optional()
          .describe(
            'An alphanumeric ID. This field is used when a vehicle ID, driver ID, or generic ID is entered by the cardholder, but the merchant or card network did not specify the prompt type.',
          ),
        user_id: stringParam(100).optional().describe('User ID.'),
        vehicle_number: stringParam(100).optional().describe('Vehicle number.'),
      })
      .optional()
      .describe('Answers to prompts presented to the cardholder at the point of sale.'),
    purchase_type: oneOf(['fuel_and_non_fuel_purchase', 'fuel_purchase', 'non_fuel_purchase'])
      .optional()
      .describe('The type of purchase. One of `fuel_purchase`, `non_fuel_purchase`, or `fuel_and_non_fuel_purchase`.'),
    reported_breakdown: z
      .strictObject({
        fuel: z
          .strictObject({
            gross_amount_decimal: decimalParam()
              .optional()
              .describe('Gross fuel amount that should equal Fuel Volume multiplied by Fuel Unit Cost, inclusive of taxes.'),
          })
          .optional()
          .describe('Breakdown of fuel portion of the purchase.'),
        non_fuel: z
          .strictObject({
            gross_amount_decimal: decimalParam().optional().describe('Gross non-fuel amount that should equal the sum of the line items, inclusive of taxes.'),
          })
          .optional()
          .describe('Breakdown of non-fuel portion of the purchase.'),
        tax: z
          .strictObject({
            local_amount_decimal: decimalParam().optional().describe('Amount of state or provincial Sales Tax included in the transaction amount.'),
            national_amount_decimal: decimalParam().optional().describe('Amount of national Sales Tax or VAT included in the transaction amount.'),
          })
          .optional()
          .describe('Information about tax included in this transaction.'),
      })
      .optional()
      .describe('More information about the total amount. This information is not guaranteed to be accurate as some merchants may provide unreliable data.'),
    service_type: oneOf(['full_service', 'non_fuel_transaction', 'self_service'])
      .optional()
      .describe('The type of fuel service. One of `non_fuel_transaction`, `full_service`, or `self_service`.'),
  });

export type FleetParams = z.output<ReturnType<typeof fleetParam>>;
export type FuelParams = z.output<ReturnType<typeof fuelParam>>;

// Cardholders

/** A cardholder's billing address: the reference requires its city, country, first line and postal code. */
const billingAddress = addressParam().extend({
  city: stringParam(200).min(1).describe('City, district, suburb, town, or village.'),
  country: countryParam().describe('Two-letter country code (ISO 3166-1 alpha-2).'),
  line1: stringParam(200).min(1).describe('Address line 1 (e.g., street, PO Box, or company name).'),
  postal_code: stringParam(20).min(1).describe('ZIP or postal code.'),
});

/** What a cardholder's create and update both take. */
const cardholderFields = {
  company: z
    .strictObject({ tax_id: stringParam(100).optional().describe("The entity's business ID number.") })
    .optional()
    .describe('Additional information about a `company` cardholder.'),
  email: emailParam().optional().describe("The cardholder's email address."),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
  individual: z
    .strictObject({
      first_name: stringParam(100).optional().describe('The first name of this cardholder. Required before activating Cards.'),
      last_name: stringParam(100).optional().describe('The last name of this cardholder. Required before activating Cards.'),
      dob: dateOfBirthParam().optional().describe('The date of birth of this cardholder. Cardholders must be older than 13 years old.'),
      card_issuing: z
        .strictObject({
          user_terms_acceptance: z
            .strictObject({
              date: unixTime.optional().describe('The Unix timestamp marking when the cardholder accepted the Authorized User Terms.'),
              ip: ipParam().optional().describe('The IP address from which the cardholder accepted the Authorized User Terms.'),
              user_agent: stringParam(5000).optional().describe('The user agent of the browser from which the cardholder accepted the Authorized User Terms.'),
            })
            .optional()
            .describe('Information about cardholder acceptance of Celtic Authorized User Terms.'),
        })
        .optional()
        .describe('Information related to the card_issuing program for this cardholder.'),
    })
    .optional()
    .describe('Additional information about an `individual` cardholder.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  phone_number: z
    .string()
    .regex(/^\+[1-9]\d{1,14}$/, 'must be in E.164 format, such as +15555550123')
    .optional()
    .describe("The cardholder's phone number. This will be transformed to E.164 if it is not provided in that format already."),
  preferred_locales: z
    .array(oneOf(['de', 'en', 'es', 'fr', 'it']))
    .max(5)
    .optional()
    .describe("The cardholder's preferred locales (languages), ordered by preference."),
  status: oneOf(['active', 'inactive']).optional().describe("Specifies whether to permit authorizations on this cardholder's cards."),
};

export const createCardholderParams = z.strictObject({
  ...cardholderFields,
  billing: z.strictObject({ address: billingAddress.describe("The cardholder's billing address.") }).describe("The cardholder's billing address."),
  // Printed on the card: at most 24 characters, letters and a few separators only (as the reference).
  name: z
    .string()
    .min(1)
    .max(24, 'must be at most 24 characters')
    .regex(/^[\p{L} .'-]+$/u, "may contain only letters, spaces and . ' -")
    .describe("The cardholder's name. This will be printed on cards issued to them."),
  type: oneOf(['company', 'individual']).optional().describe('One of `individual` or `company`.'),
});

/** The reference's update takes neither `name` nor `type`: both stay as created. */
export const updateCardholderParams = z.strictObject({
  ...cardholderFields,
  billing: z
    .strictObject({ address: billingAddress.describe("The cardholder's billing address.") })
    .optional()
    .describe("The cardholder's billing address."),
});

export const retrieveCardholderParams = z.strictObject({
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export const listCardholdersParams = z.strictObject({
  ...v1ListParams,
  created: createdParam().optional().describe('Only return cardholders that were created during the given date interval.'),
  email: z.string().min(1).max(maxEmailLength).optional().describe('Only return cardholders that have the given email address.'),
  phone_number: z.string().min(1).optional().describe('Only return cardholders that have the given phone number.'),
  status: oneOf(['active', 'blocked', 'inactive']).optional().describe('Only return cardholders that have the given status.'),
  type: oneOf(['company', 'individual']).optional().describe('Only return cardholders that have the given type. One of `individual` or `company`.'),
});

export type CreateCardholderParams = z.output<typeof createCardholderParams>;
export type UpdateCardholderParams = z.output<typeof updateCardholderParams>;
/** `individual` as create and update take it. */
export type IndividualParams = NonNullable<CreateCardholderParams['individual']>;
export type ListCardholdersParams = z.output<typeof listCardholdersParams>;

// Cards

export const createCardParams = z.strictObject({
  // Optional in the reference only for replacements (`replacement_for`), which this service does not make.
  cardholder: idParam().describe('The Cardholder object with which the card will be associated.'),
  currency: currencyParam().describe('The currency for the card.'),
  type: oneOf(['physical', 'virtual']).describe('The type of card to issue. Possible values are `physical` or `virtual`.'),
  exp_month: integerParam(1, 12).optional().describe('The desired expiration month (1-12) for this card if specifying a custom expiration date.'),
  exp_year: integerParam(2000, 2100).optional().describe('The desired 4-digit expiration year for this card if specifying a custom expiration date.'),
  expand: expandParam('issuing.card').optional().describe('Specifies which fields in the response should be expanded.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  second_line: stringParam(24).optional().describe('The second line to print on the card. Max length: 24 characters.'),
  status: oneOf(['active', 'inactive']).optional().describe('Whether authorizations can be approved on this card.'),
});

/** `canceled` is one way; `cancellation_reason` goes with it. */
export const updateCardParams = z.strictObject({
  cancellation_reason: oneOf(['lost', 'stolen']).optional().describe('Reason why the `status` of this card is `canceled`.'),
  expand: expandParam('issuing.card').optional().describe('Specifies which fields in the response should be expanded.'),
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
  status: oneOf(['active', 'canceled', 'inactive']).optional().describe('Dictates whether authorizations can be approved on this card.'),
});

export const retrieveCardParams = z.strictObject({
  expand: expandParam('issuing.card').optional().describe('Specifies which fields in the response should be expanded.'),
});

export const listCardsParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('issuing.card')).optional().describe('Specifies which fields in the response should be expanded.'),
  cardholder: idParam().optional().describe('Only return cards belonging to the Cardholder with the provided ID.'),
  created: createdParam().optional().describe('Only return cards that were issued during the given date interval.'),
  status: oneOf(['active', 'canceled', 'inactive'])
    .optional()
    .describe('Only return cards that have the given status. One of `active`, `inactive`, or `canceled`.'),
  type: oneOf(['physical', 'virtual']).optional().describe('Only return cards that have the given type. One of `virtual` or `physical`.'),
});

export type CreateCardParams = z.output<typeof createCardParams>;
export type UpdateCardParams = z.output<typeof updateCardParams>;
export type ListCardsParams = z.output<typeof listCardsParams>;

// Authorizations

const checkResult = () => oneOf(['match', 'mismatch', 'not_provided']);
/** A number from 0 to 100; v1 form values arrive as strings. */
const percentParam = () =>
  z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d+(\.\d+)?$/, 'must be a number')
        .transform(Number),
    ])
    .pipe(z.number().min(0).max(100));
const riskLevel = () => oneOf(['elevated', 'highest', 'low', 'normal', 'not_assessed', 'unknown']);

/** `merchant_data` of a test authorization, force capture or unlinked refund: where the card was used. */
const merchantDataParam = () =>
  z.strictObject({
    category: oneOf(merchantCategories).optional().describe("A categorization of the seller's type of business."),
    city: stringParam(200).optional().describe('City, district, suburb, town, or village.'),
    country: countryParam().optional().describe('Two-letter country code (ISO 3166-1 alpha-2).'),
    name: stringParam(200).optional().describe('Name of the seller.'),
    network_id: stringParam(100).optional().describe('Identifier assigned to the seller by the card network.'),
    postal_code: stringParam(20).optional().describe('ZIP or postal code.'),
    state: stringParam(200).optional().describe('State, county, province, or region.'),
    terminal_id: stringParam(100).optional().describe('An ID assigned by the seller to the location of the sale.'),
    url: stringParam(2048).optional().describe('URL provided by the merchant on a 3DS request.'),
  });

/** What a merchant reports with a capture (`purchase_details`), kept on the transaction it makes. */
const purchaseDetailsParam = () =>
  z.strictObject({
    fleet: fleetParam().optional().describe('Fleet-specific information for transactions using Fleet cards.'),
    flight: z
      .strictObject({
        departure_at: unixTime.optional().describe('The time that the flight departed.'),
        passenger_name: stringParam(200).optional().describe('The name of the passenger.'),
        refundable: booleanParam().optional().describe('Whether the ticket is refundable.'),
        segments: z
          .array(
            z.strictObject({
              arrival_airport_code: stringParam(3).optional().describe("The three-letter IATA airport code of the flight's destination."),
              carrier: stringParam(100).optional().describe('The airline carrier code.'),
              departure_airport_code: stringParam(3).optional().describe('The three-letter IATA airport code that the flight departed from.'),
              flight_number: stringParam(20).optional().describe('The flight number.'),
              service_class: stringParam(100).optional().describe("The flight's service class."),
              stopover_allowed: booleanParam().optional().describe('Whether a stopover is allowed on this flight.'),
            }),
          )
          .max(20)
          .optional()
          .describe('The legs of the trip.'),
        travel_agency: stringParam(200).optional().describe('The travel agency that issued the ticket.'),
      })
      .optional()
      .describe('Information about the flight that was purchased with this transaction.'),
    fuel: fuelParam().optional().describe('Information about fuel that was purchased with this transaction.'),
    lodging: z
      .strictObject({
        check_in_at: unixTime.optional().describe('The time of checking into the lodging.'),
        nights: integerParam(1, 365).optional().describe('The number of nights stayed at the lodging.'),
      })
      .optional()
      .describe('Information about lodging that was purchased with this transaction.'),
    receipt: z
      .array(
        z.strictObject({
          description: stringParam(200).optional().describe('The description of the item. The maximum length of this field is 26 characters.'),
          quantity: decimalParam().optional().describe('The quantity of the item.'),
          total: amountParam().optional().describe('The total for this line item in cents.'),
          unit_cost: amountParam().optional().describe('The unit cost of the item in cents.'),
        }),
      )
      .max(100)
      .optional()
      .describe('The line items in the purchase.'),
    reference: stringParam(200).optional().describe('A merchant-specific order number.'),
  });

export type MerchantDataParams = z.output<ReturnType<typeof merchantDataParam>>;
export type PurchaseDetailsParams = z.output<ReturnType<typeof purchaseDetailsParam>>;

export const createAuthorizationParams = z.strictObject({
  card: idParam().describe('The card to authorize a purchase on.'),
  amount: amountParam()
    .optional()
    .describe(
      "If the authorization's `pending_request.is_amount_controllable` property is `true`, you may provide this value to control how much to hold for the authorization.",
    ),
  amount_details: z
    .strictObject({
      atm_fee: amountParam().optional().describe('The ATM withdrawal fee.'),
      cashback_amount: amountParam().optional().describe('The amount of cash requested by the cardholder.'),
    })
    .optional()
    .describe('Detailed breakdown of amount components. These amounts are denominated in `currency` and in the smallest currency unit.'),
  authorization_method: oneOf(['chip', 'contactless', 'keyed_in', 'online', 'swipe'])
    .optional()
    .describe('How the card details were provided. Defaults to online.'),
  currency: currencyParam().optional().describe('The currency of the authorization. If not provided, defaults to the currency of the card.'),
  expand: expandParam('issuing.authorization').optional().describe('Specifies which fields in the response should be expanded.'),
  fleet: fleetParam().optional().describe('Fleet-specific information for authorizations using Fleet cards.'),
  fraud_disputability_likelihood: oneOf(['neutral', 'unknown', 'very_likely', 'very_unlikely'])
    .optional()
    .describe('Probability that this transaction can be disputed in the event of fraud.'),
  fuel: fuelParam().optional().describe('Information about fuel that was purchased with this transaction.'),
  is_amount_controllable: booleanParam().optional().describe('If set `true`, you may provide amount to control how much to hold for the authorization.'),
  merchant_amount: amountParam()
    .optional()
    .describe('The total amount to attempt to authorize. This amount is in the provided merchant currency, and in the smallest currency unit.'),
  merchant_currency: currencyParam().optional().describe('The currency of the authorization. If not provided, defaults to the currency of the card.'),
  merchant_data: merchantDataParam()
    .optional()
    .describe('Details about the seller (grocery store, e-commerce website, etc.) where the card authorization happened.'),
  network_data: z
    .strictObject({ acquiring_institution_id: stringParam(100).optional().describe('Identifier assigned to the acquirer by the card network.') })
    .optional()
    .describe('Details about the authorization, such as identifiers, set by the card network.'),
  risk_assessment: z
    .strictObject({
      card_testing_risk: z
        .strictObject({
          invalid_account_number_decline_rate_past_hour: integerParam(0, 100)
            .optional()
            .describe('The % of declines due to a card number not existing in the past hour, taking place at the same merchant.'),
          invalid_credentials_decline_rate_past_hour: integerParam(0, 100)
            .optional()
            .describe('The % of declines due to incorrect verification data (like CVV or expiry) in the past hour, taking place at the same merchant.'),
          level: riskLevel().describe('The likelihood that this authorization is associated with card testing activity.'),
        })
        .optional()
        .describe("The service's assessment of this authorization's likelihood of being card testing activity."),
      fraud_risk: z
        .strictObject({
          level: riskLevel().describe("The service's assessment of the likelihood of fraud on an authorization."),
          score: percentParam().optional().describe("The service's numerical model score assessing the likelihood of fraudulent activity."),
        })
        .optional()
        .describe("The service's assessment of this authorization's likelihood to be fraudulent."),
      merchant_dispute_risk: z
        .strictObject({
          dispute_rate: integerParam(0, 100).optional().describe('The dispute rate observed across all Issuing authorizations for this merchant.'),
          level: riskLevel().describe('The likelihood that authorizations from this merchant will result in a dispute based on their history on Issuing.'),
        })
        .optional()
        .describe('The dispute risk of the merchant (the seller on a purchase) on an authorization based on all Issuing activity.'),
    })
    .optional()
    .describe("The service's assessment of the fraud risk for this authorization."),
  verification_data: z
    .strictObject({
      address_line1_check: checkResult()
        .optional()
        .describe("Whether the cardholder provided an address first line and if it matched the cardholder's `billing.address.line1`."),
      address_postal_code_check: checkResult()
        .optional()
        .describe("Whether the cardholder provided a postal code and if it matched the cardholder's `billing.address.postal_code`."),
      authentication_exemption: z
        .strictObject({
          claimed_by: oneOf(['acquirer', 'issuer']).describe('The entity that requested the exemption, either the acquiring merchant or the Issuing user.'),
          type: oneOf(['low_value_transaction', 'transaction_risk_analysis', 'unknown']).describe('The specific exemption claimed for this authorization.'),
        })
        .optional()
        .describe('The exemption applied to this authorization.'),
      cvc_check: checkResult().optional().describe("Whether the cardholder provided a CVC and if it matched the service's record."),
      expiry_check: checkResult().optional().describe("Whether the cardholder provided an expiry date and if it matched the service's record."),
      three_d_secure: z
        .strictObject({
          result: oneOf(['attempt_acknowledged', 'authenticated', 'failed', 'required']).describe('The outcome of the 3D Secure authentication request.'),
        })
        .optional()
        .describe('3D Secure details.'),
    })
    .optional()
    .describe('Verifications that the service performed on information that the cardholder provided to the merchant.'),
  wallet: oneOf(['apple_pay', 'google_pay', 'samsung_pay'])
    .optional()
    .describe('The digital wallet used for this transaction. One of `apple_pay`, `google_pay`, or `samsung_pay`.'),
});

const authorizationExpand = { expand: expandParam('issuing.authorization').optional().describe('Specifies which fields in the response should be expanded.') };

export const captureAuthorizationParams = z.strictObject({
  ...authorizationExpand,
  capture_amount: amountParam(1)
    .optional()
    .describe('The amount to capture from the authorization. If not provided, the full amount of the authorization will be captured.'),
  close_authorization: booleanParam().optional().describe('Whether to close the authorization after capture. Defaults to true.'),
  // Kept on the capture's transaction (`purchase_details`).
  purchase_details: purchaseDetailsParam().optional().describe('Additional purchase information that is optionally provided by the merchant.'),
});

export const expireAuthorizationParams = z.strictObject(authorizationExpand);

export const finalizeAuthorizationAmountParams = z.strictObject({
  ...authorizationExpand,
  final_amount: amountParam().describe('The final authorization amount that will be captured by the merchant.'),
  fleet: fleetParam().optional().describe('Fleet-specific information for authorizations using Fleet cards.'),
  fuel: fuelParam().optional().describe('Information about fuel that was purchased with this transaction.'),
});

export const incrementAuthorizationParams = z.strictObject({
  ...authorizationExpand,
  increment_amount: amountParam(1).describe(
    'The amount to increment the authorization by. This amount is in the authorization currency and in the smallest currency unit.',
  ),
  is_amount_controllable: booleanParam().optional().describe('If set `true`, you may provide amount to control how much to hold for the authorization.'),
});

export const reverseAuthorizationParams = z.strictObject({
  ...authorizationExpand,
  reverse_amount: amountParam(1)
    .optional()
    .describe('The amount to reverse from the authorization. If not provided, the full amount of the authorization will be reversed.'),
});

export const retrieveAuthorizationParams = z.strictObject(authorizationExpand);

/** Metadata, the one thing an authorization takes from its platform (update, approve and decline). */
const authorizationMetadata = {
  ...authorizationExpand,
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
};

export const updateAuthorizationParams = z.strictObject(authorizationMetadata);

/** `amount`: a partial approval (positive; declining is `decline`). */
export const approveAuthorizationParams = z.strictObject({
  ...authorizationMetadata,
  amount: amountParam(1)
    .optional()
    .describe(
      "If the authorization's `pending_request.is_amount_controllable` property is `true`, you may provide this value to control how much to hold for the authorization.",
    ),
});

export const declineAuthorizationParams = z.strictObject(authorizationMetadata);

export const listAuthorizationsParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('issuing.authorization')).optional().describe('Specifies which fields in the response should be expanded.'),
  card: idParam().optional().describe('Only return authorizations that belong to the given card.'),
  cardholder: idParam().optional().describe('Only return authorizations that belong to the given cardholder.'),
  created: createdParam().optional().describe('Only return authorizations that were created during the given date interval.'),
  status: oneOf(['closed', 'expired', 'pending', 'reversed'])
    .optional()
    .describe('Only return authorizations with the given status. One of `pending`, `closed`, or `reversed`.'),
});

export type CreateAuthorizationParams = z.output<typeof createAuthorizationParams>;
export type CaptureAuthorizationParams = z.output<typeof captureAuthorizationParams>;
export type UpdateAuthorizationParams = z.output<typeof updateAuthorizationParams>;
export type FinalizeAuthorizationAmountParams = z.output<typeof finalizeAuthorizationAmountParams>;
export type IncrementAuthorizationParams = z.output<typeof incrementAuthorizationParams>;
export type ReverseAuthorizationParams = z.output<typeof reverseAuthorizationParams>;
export type ListAuthorizationsParams = z.output<typeof listAuthorizationsParams>;

// Transactions

const transactionExpand = { expand: expandParam('issuing.transaction').optional().describe('Specifies which fields in the response should be expanded.') };

export const retrieveTransactionParams = z.strictObject(transactionExpand);

export const updateTransactionParams = z.strictObject({
  ...transactionExpand,
  metadata: metadataParam().optional().describe('Set of key-value pairs that you can attach to an object.'),
});

export const listTransactionsParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('issuing.transaction')).optional().describe('Specifies which fields in the response should be expanded.'),
  card: idParam().optional().describe('Only return transactions that belong to the given card.'),
  cardholder: idParam().optional().describe('Only return transactions that belong to the given cardholder.'),
  created: createdParam().optional().describe('Only return transactions that were created during the given date interval.'),
  type: oneOf(['capture', 'refund']).optional().describe('Only return transactions that have the given type.'),
});

export const refundTransactionParams = z.strictObject({
  ...transactionExpand,
  refund_amount: amountParam(1)
    .optional()
    .describe(
      'The total amount to attempt to refund. This amount is in the provided currency, or defaults to the cards currency, and in the smallest currency unit.',
    ),
});

/**
 * A force capture or an unlinked refund: money that moves on a card without an authorization, `amount`
 * in the card's currency (the default), at the merchant of `merchant_data`.
 */
const unlinkedTransactionFields = {
  ...transactionExpand,
  amount: amountParam(1).describe("The transaction's amount, in the smallest unit of `currency`."),
  card: idParam().describe('The card the transaction is on.'),
  currency: currencyParam().optional().describe('The currency of the transaction. If not provided, defaults to the currency of the card.'),
  merchant_data: merchantDataParam()
    .optional()
    .describe('Details about the seller (grocery store, e-commerce website, etc.) where the card authorization happened.'),
  purchase_details: purchaseDetailsParam().optional().describe('Additional purchase information that is optionally provided by the merchant.'),
};

export const createForceCaptureParams = z.strictObject(unlinkedTransactionFields);

export const createUnlinkedRefundParams = z.strictObject(unlinkedTransactionFields);

export type UpdateTransactionParams = z.output<typeof updateTransactionParams>;
export type ListTransactionsParams = z.output<typeof listTransactionsParams>;
export type RefundTransactionParams = z.output<typeof refundTransactionParams>;
export type UnlinkedTransactionParams = z.output<typeof createForceCaptureParams>;
