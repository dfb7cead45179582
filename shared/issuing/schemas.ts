import * as z from 'zod';
import { listOf } from '#shared/expansion/plan.ts';
import { booleanParam, expandParam, idParam, integerParam, metadataParam, stringParam, v1ListParams } from '#shared/http/params.ts';
import { merchantCategories } from './merchant-categories.ts';

/** A closed set of values; an unknown one is a 400 naming the parameter (e.g. `fuel[type]`). */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, `must be one of: ${values.join(', ')}`);

const currencyParam = () =>
  z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO currency code')
    .transform((code) => code.toLowerCase());

const countryParam = () => z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter ISO country code');

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

const unixTime = integerParam(0, 253402300799);

/** v1 `created`: Unix seconds, or a range of them. */
const createdParam = () =>
  z.union([
    unixTime.transform((seconds) => ({ gte: seconds, lte: seconds })),
    z.strictObject({ gt: unixTime.optional(), gte: unixTime.optional(), lt: unixTime.optional(), lte: unixTime.optional() }),
  ]);

export const fuelTypes = ['diesel', 'other', 'unleaded_plus', 'unleaded_regular', 'unleaded_super'] as const;
export const fuelUnits = ['charging_minute', 'imperial_gallon', 'kilogram', 'kilowatt_hour', 'liter', 'other', 'pound', 'us_gallon'] as const;

/** `fuel` of create, finalize_amount and capture's `purchase_details`. */
export const fuelParam = () =>
  z.strictObject({
    industry_product_code: stringParam(100).optional(),
    quantity_decimal: decimalParam().optional(),
    type: oneOf(fuelTypes).optional(),
    unit: oneOf(fuelUnits).optional(),
    unit_cost_decimal: decimalParam().optional(),
  });

/** `fleet` of create, finalize_amount and capture's `purchase_details`. */
export const fleetParam = () =>
  z.strictObject({
    cardholder_prompt_data: z
      .strictObject({
        driver_id: stringParam(100).optional(),
        odometer: integerParam(0, 99_999_999).optional(),
        unspecified_id: z
          .string()
          .max(100)
          .regex(/^[A-Za-z0-9]+$/, 'must be alphanumeric')
          .optional(),
        user_id: stringParam(100).optional(),
        vehicle_number: stringParam(100).optional(),
      })
      .optional(),
    purchase_type: oneOf(['fuel_and_non_fuel_purchase', 'fuel_purchase', 'non_fuel_purchase']).optional(),
    reported_breakdown: z
      .strictObject({
        fuel: z.strictObject({ gross_amount_decimal: decimalParam().optional() }).optional(),
        non_fuel: z.strictObject({ gross_amount_decimal: decimalParam().optional() }).optional(),
        tax: z.strictObject({ local_amount_decimal: decimalParam().optional(), national_amount_decimal: decimalParam().optional() }).optional(),
      })
      .optional(),
    service_type: oneOf(['full_service', 'non_fuel_transaction', 'self_service']).optional(),
  });

export type FleetParams = z.output<ReturnType<typeof fleetParam>>;
export type FuelParams = z.output<ReturnType<typeof fuelParam>>;

// Cardholders

const billingAddress = z.strictObject({
  city: z.string().min(1).max(200),
  country: countryParam(),
  line1: z.string().min(1).max(200),
  line2: stringParam(200).optional(),
  postal_code: z.string().min(1).max(20),
  state: stringParam(200).optional(),
});

const dayOfMonth = integerParam(1, 31);

/** What a cardholder's create and update both take. */
const cardholderFields = {
  company: z.strictObject({ tax_id: stringParam(100).optional() }).optional(),
  email: z
    .string()
    .max(512)
    .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address')
    .optional(),
  expand: expandParam().optional(),
  individual: z
    .strictObject({
      first_name: stringParam(100).optional(),
      last_name: stringParam(100).optional(),
      dob: z.strictObject({ day: dayOfMonth, month: integerParam(1, 12), year: integerParam(1900, 9999) }).optional(),
      card_issuing: z
        .strictObject({
          user_terms_acceptance: z
            .strictObject({ date: unixTime.optional(), ip: stringParam(45).optional(), user_agent: stringParam(5000).optional() })
            .optional(),
        })
        .optional(),
    })
    .optional(),
  metadata: metadataParam().optional(),
  phone_number: z
    .string()
    .regex(/^\+[1-9]\d{1,14}$/, 'must be in E.164 format, such as +15555550123')
    .optional(),
  preferred_locales: z
    .array(oneOf(['de', 'en', 'es', 'fr', 'it']))
    .max(5)
    .optional(),
  status: oneOf(['active', 'inactive']).optional(),
};

export const createCardholderParams = z.strictObject({
  ...cardholderFields,
  billing: z.strictObject({ address: billingAddress }),
  // Printed on the card: at most 24 characters, letters and a few separators only (as the reference).
  name: z
    .string()
    .min(1)
    .max(24, 'must be at most 24 characters')
    .regex(/^[\p{L} .'-]+$/u, "may contain only letters, spaces and . ' -"),
  type: oneOf(['company', 'individual']).optional(),
});

/** The reference's update takes neither `name` nor `type`: both stay as created. */
export const updateCardholderParams = z.strictObject({ ...cardholderFields, billing: z.strictObject({ address: billingAddress }).optional() });

export const retrieveCardholderParams = z.strictObject({ expand: expandParam().optional() });

export const listCardholdersParams = z.strictObject({
  ...v1ListParams,
  created: createdParam().optional(),
  email: z.string().min(1).optional(),
  phone_number: z.string().min(1).optional(),
  status: oneOf(['active', 'blocked', 'inactive']).optional(),
  type: oneOf(['company', 'individual']).optional(),
});

export type CreateCardholderParams = z.output<typeof createCardholderParams>;
export type UpdateCardholderParams = z.output<typeof updateCardholderParams>;
/** `individual` as create and update take it. */
export type IndividualParams = NonNullable<CreateCardholderParams['individual']>;
export type ListCardholdersParams = z.output<typeof listCardholdersParams>;

// Cards

export const createCardParams = z.strictObject({
  // Optional in the reference only for replacements (`replacement_for`), which this service does not make.
  cardholder: idParam(),
  currency: currencyParam(),
  type: oneOf(['physical', 'virtual']),
  exp_month: integerParam(1, 12).optional(),
  exp_year: integerParam(2000, 2100).optional(),
  expand: expandParam('issuing.card').optional(),
  metadata: metadataParam().optional(),
  second_line: stringParam(24).optional(),
  status: oneOf(['active', 'inactive']).optional(),
});

/** `canceled` is one way; `cancellation_reason` goes with it. */
export const updateCardParams = z.strictObject({
  cancellation_reason: oneOf(['lost', 'stolen']).optional(),
  expand: expandParam('issuing.card').optional(),
  metadata: metadataParam().optional(),
  status: oneOf(['active', 'canceled', 'inactive']).optional(),
});

export const retrieveCardParams = z.strictObject({ expand: expandParam('issuing.card').optional() });

export const listCardsParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('issuing.card')).optional(),
  cardholder: idParam().optional(),
  created: createdParam().optional(),
  status: oneOf(['active', 'canceled', 'inactive']).optional(),
  type: oneOf(['physical', 'virtual']).optional(),
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
    category: oneOf(merchantCategories).optional(),
    city: stringParam(200).optional(),
    country: countryParam().optional(),
    name: stringParam(200).optional(),
    network_id: stringParam(100).optional(),
    postal_code: stringParam(20).optional(),
    state: stringParam(200).optional(),
    terminal_id: stringParam(100).optional(),
    url: stringParam(2048).optional(),
  });

/** What a merchant reports with a capture (`purchase_details`), kept on the transaction it makes. */
const purchaseDetailsParam = () =>
  z.strictObject({
    fleet: fleetParam().optional(),
    flight: z
      .strictObject({
        departure_at: unixTime.optional(),
        passenger_name: stringParam(200).optional(),
        refundable: booleanParam().optional(),
        segments: z
          .array(
            z.strictObject({
              arrival_airport_code: stringParam(3).optional(),
              carrier: stringParam(100).optional(),
              departure_airport_code: stringParam(3).optional(),
              flight_number: stringParam(20).optional(),
              service_class: stringParam(100).optional(),
              stopover_allowed: booleanParam().optional(),
            }),
          )
          .max(20)
          .optional(),
        travel_agency: stringParam(200).optional(),
      })
      .optional(),
    fuel: fuelParam().optional(),
    lodging: z.strictObject({ check_in_at: unixTime.optional(), nights: integerParam(1, 365).optional() }).optional(),
    receipt: z
      .array(
        z.strictObject({
          description: stringParam(200).optional(),
          quantity: decimalParam().optional(),
          total: amountParam().optional(),
          unit_cost: amountParam().optional(),
        }),
      )
      .max(100)
      .optional(),
    reference: stringParam(200).optional(),
  });

export type MerchantDataParams = z.output<ReturnType<typeof merchantDataParam>>;
export type PurchaseDetailsParams = z.output<ReturnType<typeof purchaseDetailsParam>>;

export const createAuthorizationParams = z.strictObject({
  card: idParam(),
  amount: amountParam().optional(),
  amount_details: z.strictObject({ atm_fee: amountParam().optional(), cashback_amount: amountParam().optional() }).optional(),
  authorization_method: oneOf(['chip', 'contactless', 'keyed_in', 'online', 'swipe']).optional(),
  currency: currencyParam().optional(),
  expand: expandParam('issuing.authorization').optional(),
  fleet: fleetParam().optional(),
  fraud_disputability_likelihood: oneOf(['neutral', 'unknown', 'very_likely', 'very_unlikely']).optional(),
  fuel: fuelParam().optional(),
  is_amount_controllable: booleanParam().optional(),
  merchant_amount: amountParam().optional(),
  merchant_currency: currencyParam().optional(),
  merchant_data: merchantDataParam().optional(),
  network_data: z.strictObject({ acquiring_institution_id: stringParam(100).optional() }).optional(),
  risk_assessment: z
    .strictObject({
      card_testing_risk: z
        .strictObject({
          invalid_account_number_decline_rate_past_hour: integerParam(0, 100).optional(),
          invalid_credentials_decline_rate_past_hour: integerParam(0, 100).optional(),
          level: riskLevel(),
        })
        .optional(),
      fraud_risk: z.strictObject({ level: riskLevel(), score: percentParam().optional() }).optional(),
      merchant_dispute_risk: z.strictObject({ dispute_rate: integerParam(0, 100).optional(), level: riskLevel() }).optional(),
    })
    .optional(),
  verification_data: z
    .strictObject({
      address_line1_check: checkResult().optional(),
      address_postal_code_check: checkResult().optional(),
      authentication_exemption: z
        .strictObject({ claimed_by: oneOf(['acquirer', 'issuer']), type: oneOf(['low_value_transaction', 'transaction_risk_analysis', 'unknown']) })
        .optional(),
      cvc_check: checkResult().optional(),
      expiry_check: checkResult().optional(),
      three_d_secure: z.strictObject({ result: oneOf(['attempt_acknowledged', 'authenticated', 'failed', 'required']) }).optional(),
    })
    .optional(),
  wallet: oneOf(['apple_pay', 'google_pay', 'samsung_pay']).optional(),
});

const authorizationExpand = { expand: expandParam('issuing.authorization').optional() };

export const captureAuthorizationParams = z.strictObject({
  ...authorizationExpand,
  capture_amount: amountParam(1).optional(),
  close_authorization: booleanParam().optional(),
  // Kept on the capture's transaction (`purchase_details`).
  purchase_details: purchaseDetailsParam().optional(),
});

export const expireAuthorizationParams = z.strictObject(authorizationExpand);

export const finalizeAuthorizationAmountParams = z.strictObject({
  ...authorizationExpand,
  final_amount: amountParam(),
  fleet: fleetParam().optional(),
  fuel: fuelParam().optional(),
});

export const incrementAuthorizationParams = z.strictObject({
  ...authorizationExpand,
  increment_amount: amountParam(1),
  is_amount_controllable: booleanParam().optional(),
});

export const reverseAuthorizationParams = z.strictObject({ ...authorizationExpand, reverse_amount: amountParam(1).optional() });

export const retrieveAuthorizationParams = z.strictObject(authorizationExpand);

/** Metadata, the one thing an authorization takes from its platform (update, approve and decline). */
const authorizationMetadata = { ...authorizationExpand, metadata: metadataParam().optional() };

export const updateAuthorizationParams = z.strictObject(authorizationMetadata);

/** `amount`: a partial approval (positive; declining is `decline`). */
export const approveAuthorizationParams = z.strictObject({ ...authorizationMetadata, amount: amountParam(1).optional() });

export const declineAuthorizationParams = z.strictObject(authorizationMetadata);

export const listAuthorizationsParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('issuing.authorization')).optional(),
  card: idParam().optional(),
  cardholder: idParam().optional(),
  created: createdParam().optional(),
  status: oneOf(['closed', 'expired', 'pending', 'reversed']).optional(),
});

export type CreateAuthorizationParams = z.output<typeof createAuthorizationParams>;
export type CaptureAuthorizationParams = z.output<typeof captureAuthorizationParams>;
export type UpdateAuthorizationParams = z.output<typeof updateAuthorizationParams>;
export type FinalizeAuthorizationAmountParams = z.output<typeof finalizeAuthorizationAmountParams>;
export type IncrementAuthorizationParams = z.output<typeof incrementAuthorizationParams>;
export type ReverseAuthorizationParams = z.output<typeof reverseAuthorizationParams>;
export type ListAuthorizationsParams = z.output<typeof listAuthorizationsParams>;

// Transactions

const transactionExpand = { expand: expandParam('issuing.transaction').optional() };

export const retrieveTransactionParams = z.strictObject(transactionExpand);

export const updateTransactionParams = z.strictObject({ ...transactionExpand, metadata: metadataParam().optional() });

export const listTransactionsParams = z.strictObject({
  ...v1ListParams,
  expand: expandParam(listOf('issuing.transaction')).optional(),
  card: idParam().optional(),
  cardholder: idParam().optional(),
  created: createdParam().optional(),
  type: oneOf(['capture', 'refund']).optional(),
});

export const refundTransactionParams = z.strictObject({ ...transactionExpand, refund_amount: amountParam(1).optional() });

/**
 * A force capture or an unlinked refund: money that moves on a card without an authorization, `amount`
 * in the card's currency (the default), at the merchant of `merchant_data`.
 */
const unlinkedTransactionFields = {
  ...transactionExpand,
  amount: amountParam(1),
  card: idParam(),
  currency: currencyParam().optional(),
  merchant_data: merchantDataParam().optional(),
  purchase_details: purchaseDetailsParam().optional(),
};

export const createForceCaptureParams = z.strictObject(unlinkedTransactionFields);

export const createUnlinkedRefundParams = z.strictObject(unlinkedTransactionFields);

export type UpdateTransactionParams = z.output<typeof updateTransactionParams>;
export type ListTransactionsParams = z.output<typeof listTransactionsParams>;
export type RefundTransactionParams = z.output<typeof refundTransactionParams>;
export type UnlinkedTransactionParams = z.output<typeof createForceCaptureParams>;
