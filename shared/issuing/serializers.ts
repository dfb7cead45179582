import * as z from 'zod';
import { addressObject, metadataObject, unixTime } from '#shared/http/objects.ts';
import { unixSeconds } from '#shared/http/timestamps.ts';
import type { AmountDetails, Authorization, Fleet, Fuel, MerchantData, RequestHistoryEntry, VerificationData } from './authorization.ts';
import type { IssuingCard } from './card.ts';
import type { Cardholder, CardholderIndividual, IssuingAddress } from './cardholder.ts';
import type { IssuingTransaction, PurchaseDetails } from './transaction.ts';

const nullableString = z.string().nullable();
const nullableInt = z.int().nullable();
const nullableNumber = z.number().nullable();

const individualObject = z.object({
  card_issuing: z
    .object({ user_terms_acceptance: z.object({ date: unixTime.nullable(), ip: nullableString, user_agent: nullableString }).nullable() })
    .nullable(),
  dob: z.object({ day: nullableInt, month: nullableInt, year: nullableInt }).nullable(),
  first_name: nullableString,
  last_name: nullableString,
  verification: z.null(),
});

const reportedBreakdownObject = z
  .object({
    fuel: z.object({ gross_amount_decimal: nullableString }).nullable(),
    non_fuel: z.object({ gross_amount_decimal: nullableString }).nullable(),
    tax: z.object({ local_amount_decimal: nullableString, national_amount_decimal: nullableString }).nullable(),
  })
  .nullable();

const promptData = {
  driver_id: nullableString,
  odometer: nullableNumber,
  unspecified_id: nullableString,
  user_id: nullableString,
  vehicle_number: nullableString,
};

const fleetObject = <P extends z.ZodObject>(prompt: P) =>
  z.object({
    cardholder_prompt_data: prompt.nullable(),
    purchase_type: nullableString,
    reported_breakdown: reportedBreakdownObject,
    service_type: nullableString,
  });

const fuelObject = z.object({
  industry_product_code: nullableString,
  quantity_decimal: nullableString,
  type: nullableString,
  unit: nullableString,
  unit_cost_decimal: nullableString,
});

const purchaseDetailsObject = z.object({
  fleet: fleetObject(z.object(promptData)).nullable(),
  flight: z
    .object({
      departure_at: unixTime.nullable(),
      passenger_name: nullableString,
      refundable: z.boolean().nullable(),
      segments: z
        .array(
          z.object({
            arrival_airport_code: nullableString,
            carrier: nullableString,
            departure_airport_code: nullableString,
            flight_number: nullableString,
            service_class: nullableString,
            stopover_allowed: z.boolean().nullable(),
          }),
        )
        .nullable(),
      travel_agency: nullableString,
    })
    .nullable(),
  fuel: fuelObject.nullable(),
  lodging: z.object({ check_in_at: unixTime.nullable(), nights: nullableInt }).nullable(),
  receipt: z.array(z.object({ description: nullableString, quantity: nullableNumber, total: nullableInt, unit_cost: nullableInt })).nullable(),
  reference: nullableString,
});

const verificationDataObject = z.object({
  address_line1_check: z.string(),
  address_postal_code_check: z.string(),
  authentication_exemption: z.object({ claimed_by: z.string(), type: z.string() }).nullable(),
  cvc_check: z.string(),
  expiry_check: z.string(),
  postal_code: nullableString,
  three_d_secure: z.object({ result: z.string() }).nullable(),
});

const spendingControlsObject = z.object({
  allowed_card_presences: z.null(),
  allowed_categories: z.null(),
  allowed_merchant_countries: z.null(),
  blocked_card_presences: z.null(),
  blocked_categories: z.null(),
  blocked_merchant_countries: z.null(),
  spending_limits: z.array(z.unknown()),
  spending_limits_currency: z.null(),
});

export const cardholderObject = z
  .object({
    id: z.string(),
    object: z.literal('issuing.cardholder'),
    billing: z.object({ address: addressObject }),
    company: z.object({ tax_id_provided: z.boolean() }).nullable(),
    created: unixTime,
    email: nullableString,
    individual: individualObject.nullable(),
    livemode: z.boolean(),
    metadata: metadataObject,
    name: z.string(),
    phone_number: nullableString,
    preferred_locales: z.array(z.string()).nullable(),
    requirements: z.object({ disabled_reason: z.null(), past_due: z.array(z.string()) }),
    spending_controls: spendingControlsObject,
    status: z.enum(['active', 'inactive', 'blocked']),
    type: z.enum(['individual', 'company']),
  })
  .meta({ id: 'IssuingCardholder' });

export const issuingCardObject = z
  .object({
    id: z.string(),
    object: z.literal('issuing.card'),
    brand: z.literal('Visa'),
    cancellation_reason: z.enum(['lost', 'stolen']).nullable(),
    cardholder: cardholderObject,
    created: unixTime,
    currency: z.string(),
    exp_month: z.int(),
    exp_year: z.int(),
    financial_account: z.null(),
    last4: z.string(),
    latest_fraud_warning: z.null(),
    lifecycle_controls: z.null(),
    livemode: z.boolean(),
    metadata: metadataObject,
    personalization_design: z.null(),
    replaced_by: z.null(),
    replacement_for: z.null(),
    replacement_reason: z.null(),
    second_line: nullableString,
    shipping: z.null(),
    spending_controls: spendingControlsObject,
    status: z.enum(['active', 'inactive', 'canceled']),
    type: z.enum(['virtual', 'physical']),
    wallets: z.null(),
  })
  .meta({ id: 'IssuingCard' });

const amountDetailsObject = z.object({ atm_fee: z.int().nullable(), cashback_amount: z.int().nullable() }).nullable();

const merchantDataObject = z.object({
  category: z.string(),
  category_code: z.string(),
  city: nullableString,
  country: nullableString,
  name: nullableString,
  network_id: z.string(),
  postal_code: nullableString,
  state: nullableString,
  tax_id: nullableString,
  terminal_id: nullableString,
  url: nullableString,
});

export const issuingTransactionObject = z
  .object({
    id: z.string(),
    object: z.literal('issuing.transaction'),
    amount: z.int(),
    amount_details: amountDetailsObject,
    /** The authorization's id (null for a capture or refund without one), or the authorization when expanded. */
    get authorization() {
      return z.union([z.string(), issuingAuthorizationObject]).nullable();
    },
    balance_transaction: z.null(),
    /** The card's id, or the card when expanded. */
    card: z.union([z.string(), issuingCardObject]),
    /** The cardholder's id, or the cardholder when expanded. */
    cardholder: z.union([z.string(), cardholderObject]).nullable(),
    created: unixTime,
    currency: z.string(),
    dispute: z.null(),
    livemode: z.boolean(),
    merchant_amount: z.int(),
    merchant_currency: z.string(),
    merchant_data: merchantDataObject,
    metadata: metadataObject,
    network_data: z.object({ authorization_code: nullableString, processing_date: nullableString, transaction_id: nullableString }),
    /** What the merchant reported with the capture. */
    purchase_details: purchaseDetailsObject.nullable(),
    token: z.null(),
    treasury: z.null(),
    type: z.enum(['capture', 'refund']),
    wallet: nullableString,
  })
  .meta({ id: 'IssuingTransaction' });

export const issuingAuthorizationObject = z
  .object({
    id: z.string(),
    object: z.literal('issuing.authorization'),
    amount: z.int(),
    amount_details: amountDetailsObject,
    approved: z.boolean(),
    authorization_method: z.string(),
    balance_transactions: z.array(z.unknown()),
    card: z.union([z.string(), issuingCardObject]),
    card_presence: z.enum(['present', 'not_present']),
    cardholder: z.union([z.string(), cardholderObject]).nullable(),
    created: unixTime,
    currency: z.string(),
    fleet: fleetObject(z.object({ alphanumeric_id: nullableString, ...promptData })).nullable(),
    fraud_challenges: z.null(),
    fuel: fuelObject.nullable(),
    livemode: z.boolean(),
    merchant_amount: z.int(),
    merchant_currency: z.string(),
    merchant_data: merchantDataObject,
    metadata: metadataObject,
    network_data: z.object({ acquiring_institution_id: nullableString, system_trace_audit_number: nullableString, transaction_id: nullableString }),
    pending_request: z.null(),
    redaction: z.null(),
    request_history: z.array(
      z.object({
        amount: z.int(),
        amount_details: amountDetailsObject,
        approved: z.boolean(),
        authorization_code: nullableString,
        created: unixTime,
        currency: z.string(),
        merchant_amount: z.int(),
        merchant_currency: z.string(),
        network_risk_score: z.number().nullable(),
        reason: z.string(),
        reason_message: nullableString,
        requested_at: unixTime.nullable(),
      }),
    ),
    status: z.enum(['pending', 'closed', 'expired', 'reversed']),
    token: z.null(),
    transactions: z.array(issuingTransactionObject),
    treasury: z.null(),
    verification_data: verificationDataObject,
    verified_by_fraud_challenge: z.null(),
    wallet: nullableString,
  })
  .meta({ id: 'IssuingAuthorization' });

// Nested objects are rebuilt field by field: stored maps come back from DynamoDB in no particular key
// order, and the API shows a stable one.

const address = (a: IssuingAddress) => ({ city: a.city, country: a.country, line1: a.line1, line2: a.line2, postal_code: a.postal_code, state: a.state });

const individual = (i: CardholderIndividual | null) =>
  i && {
    card_issuing: i.card_issuing && {
      user_terms_acceptance: i.card_issuing.user_terms_acceptance && {
        date: i.card_issuing.user_terms_acceptance.date,
        ip: i.card_issuing.user_terms_acceptance.ip,
        user_agent: i.card_issuing.user_terms_acceptance.user_agent,
      },
    },
    dob: i.dob && { day: i.dob.day, month: i.dob.month, year: i.dob.year },
    first_name: i.first_name,
    last_name: i.last_name,
    verification: i.verification,
  };

const amountDetails = (d: AmountDetails | null) => d && { atm_fee: d.atm_fee, cashback_amount: d.cashback_amount };

const merchantData = (m: MerchantData) => ({
  category: m.category,
  category_code: m.category_code,
  city: m.city,
  country: m.country,
  name: m.name,
  network_id: m.network_id,
  postal_code: m.postal_code,
  state: m.state,
  tax_id: m.tax_id,
  terminal_id: m.terminal_id,
  url: m.url,
});

const verificationData = (v: VerificationData) => ({
  address_line1_check: v.address_line1_check,
  address_postal_code_check: v.address_postal_code_check,
  authentication_exemption: v.authentication_exemption && { claimed_by: v.authentication_exemption.claimed_by, type: v.authentication_exemption.type },
  cvc_check: v.cvc_check,
  expiry_check: v.expiry_check,
  postal_code: v.postal_code,
  three_d_secure: v.three_d_secure && { result: v.three_d_secure.result },
});

const reportedBreakdown = (r: Fleet['reported_breakdown']) =>
  r && {
    fuel: r.fuel && { gross_amount_decimal: r.fuel.gross_amount_decimal },
    non_fuel: r.non_fuel && { gross_amount_decimal: r.non_fuel.gross_amount_decimal },
    tax: r.tax && { local_amount_decimal: r.tax.local_amount_decimal, national_amount_decimal: r.tax.national_amount_decimal },
  };

const fleet = (f: Fleet | null) =>
  f && {
    cardholder_prompt_data: f.cardholder_prompt_data && {
      alphanumeric_id: f.cardholder_prompt_data.alphanumeric_id,
      driver_id: f.cardholder_prompt_data.driver_id,
      odometer: f.cardholder_prompt_data.odometer,
      unspecified_id: f.cardholder_prompt_data.unspecified_id,
      user_id: f.cardholder_prompt_data.user_id,
      vehicle_number: f.cardholder_prompt_data.vehicle_number,
    },
    purchase_type: f.purchase_type,
    reported_breakdown: reportedBreakdown(f.reported_breakdown),
    service_type: f.service_type,
  };

const fuel = (f: Fuel | null) =>
  f && {
    industry_product_code: f.industry_product_code,
    quantity_decimal: f.quantity_decimal,
    type: f.type,
    unit: f.unit,
    unit_cost_decimal: f.unit_cost_decimal,
  };

const requestHistoryEntry = (e: RequestHistoryEntry) => ({
  amount: e.amount,
  amount_details: amountDetails(e.amount_details),
  approved: e.approved,
  authorization_code: e.authorization_code,
  created: e.created,
  currency: e.currency,
  merchant_amount: e.merchant_amount,
  merchant_currency: e.merchant_currency,
  network_risk_score: e.network_risk_score,
  reason: e.reason,
  reason_message: e.reason_message,
  requested_at: e.requested_at,
});

/** Spending controls are not configurable here: every card and cardholder shows the empty set. */
const noSpendingControls = () => ({
  allowed_card_presences: null,
  allowed_categories: null,
  allowed_merchant_countries: null,
  blocked_card_presences: null,
  blocked_categories: null,
  blocked_merchant_countries: null,
  spending_limits: [],
  spending_limits_currency: null,
});

/** The v1 `issuing.cardholder` object. */
export function serializeCardholder(cardholder: Cardholder): z.input<typeof cardholderObject> {
  return {
    id: cardholder.id,
    object: 'issuing.cardholder',
    billing: { address: address(cardholder.billingAddress) },
    company: cardholder.company && { tax_id_provided: cardholder.company.tax_id_provided },
    created: unixSeconds(cardholder.created),
    email: cardholder.email,
    individual: individual(cardholder.individual),
    livemode: cardholder.scope.livemode,
    metadata: cardholder.metadata,
    name: cardholder.name,
    phone_number: cardholder.phoneNumber,
    preferred_locales: cardholder.preferredLocales,
    // Verification requirements are not modelled: nothing is ever past due.
    requirements: { disabled_reason: null, past_due: [] },
    spending_controls: noSpendingControls(),
    status: cardholder.status,
    type: cardholder.type,
  };
}

/** The v1 `issuing.card` object, with its cardholder embedded as the reference does. */
export function serializeCard(card: IssuingCard, cardholder: Cardholder): z.input<typeof issuingCardObject> {
  return {
    id: card.id,
    object: 'issuing.card',
    brand: card.brand,
    cancellation_reason: card.cancellationReason,
    cardholder: serializeCardholder(cardholder),
    created: unixSeconds(card.created),
    currency: card.currency,
    exp_month: card.expMonth,
    exp_year: card.expYear,
    financial_account: null,
    last4: card.last4,
    latest_fraud_warning: null,
    lifecycle_controls: null,
    livemode: card.scope.livemode,
    metadata: card.metadata,
    personalization_design: null,
    replaced_by: null,
    replacement_for: null,
    replacement_reason: null,
    second_line: card.secondLine,
    shipping: null,
    spending_controls: noSpendingControls(),
    status: card.status,
    type: card.type,
    wallets: null,
  };
}

const purchaseDetails = (p: PurchaseDetails | null) =>
  p && {
    fleet: p.fleet && {
      cardholder_prompt_data: p.fleet.cardholder_prompt_data && {
        driver_id: p.fleet.cardholder_prompt_data.driver_id,
        odometer: p.fleet.cardholder_prompt_data.odometer,
        unspecified_id: p.fleet.cardholder_prompt_data.unspecified_id,
        user_id: p.fleet.cardholder_prompt_data.user_id,
        vehicle_number: p.fleet.cardholder_prompt_data.vehicle_number,
      },
      purchase_type: p.fleet.purchase_type,
      reported_breakdown: reportedBreakdown(p.fleet.reported_breakdown),
      service_type: p.fleet.service_type,
    },
    flight: p.flight && {
      departure_at: p.flight.departure_at,
      passenger_name: p.flight.passenger_name,
      refundable: p.flight.refundable,
      segments:
        p.flight.segments?.map((segment) => ({
          arrival_airport_code: segment.arrival_airport_code,
          carrier: segment.carrier,
          departure_airport_code: segment.departure_airport_code,
          flight_number: segment.flight_number,
          service_class: segment.service_class,
          stopover_allowed: segment.stopover_allowed,
        })) ?? null,
      travel_agency: p.flight.travel_agency,
    },
    fuel: p.fuel && {
      industry_product_code: p.fuel.industry_product_code,
      quantity_decimal: p.fuel.quantity_decimal,
      type: p.fuel.type,
      unit: p.fuel.unit,
      unit_cost_decimal: p.fuel.unit_cost_decimal,
    },
    lodging: p.lodging && { check_in_at: p.lodging.check_in_at, nights: p.lodging.nights },
    receipt: p.receipt?.map((line) => ({ description: line.description, quantity: line.quantity, total: line.total, unit_cost: line.unit_cost })) ?? null,
    reference: p.reference,
  };

/**
 * The v1 `issuing.transaction` object. `card` and `cardholder` are ids unless expanded; events and the
 * authorization's `transactions` always carry the ids. Balance transactions and disputes are not
 * modelled (`balance_transaction` and `dispute` are null).
 */
export function serializeTransaction(transaction: IssuingTransaction): z.input<typeof issuingTransactionObject> {
  return {
    id: transaction.id,
    object: 'issuing.transaction',
    amount: transaction.amount,
    amount_details: amountDetails(transaction.amountDetails),
    authorization: transaction.authorizationId,
    balance_transaction: null,
    card: transaction.cardId,
    cardholder: transaction.cardholderId,
    created: unixSeconds(transaction.created),
    currency: transaction.currency,
    dispute: null,
    livemode: transaction.scope.livemode,
    merchant_amount: transaction.merchantAmount,
    merchant_currency: transaction.merchantCurrency,
    merchant_data: merchantData(transaction.merchantData),
    metadata: transaction.metadata,
    network_data: {
      authorization_code: transaction.networkData.authorization_code,
      processing_date: transaction.networkData.processing_date,
      transaction_id: transaction.networkData.transaction_id,
    },
    purchase_details: purchaseDetails(transaction.purchaseDetails),
    token: null,
    treasury: null,
    type: transaction.type,
    wallet: transaction.wallet,
  };
}

/**
 * The v1 `issuing.authorization` object, with its `transactions` (oldest first, given in the order of
 * `transactionIds`). `card` and `cardholder` are ids unless expanded; events always carry the ids.
 * Balance transactions are not modelled, so that list stays empty.
 */
export function serializeAuthorization(authorization: Authorization, transactions: readonly IssuingTransaction[]): z.input<typeof issuingAuthorizationObject> {
  return {
    id: authorization.id,
    object: 'issuing.authorization',
    amount: authorization.amount,
    amount_details: amountDetails(authorization.amountDetails),
    approved: authorization.approved,
    authorization_method: authorization.authorizationMethod,
    balance_transactions: [],
    card: authorization.cardId,
    card_presence: authorization.cardPresence,
    cardholder: authorization.cardholderId,
    created: unixSeconds(authorization.created),
    currency: authorization.currency,
    fleet: fleet(authorization.fleet),
    fraud_challenges: null,
    fuel: fuel(authorization.fuel),
    livemode: authorization.scope.livemode,
    merchant_amount: authorization.merchantAmount,
    merchant_currency: authorization.merchantCurrency,
    merchant_data: merchantData(authorization.merchantData),
    metadata: authorization.metadata,
    network_data: {
      acquiring_institution_id: authorization.networkData.acquiring_institution_id,
      system_trace_audit_number: authorization.networkData.system_trace_audit_number,
      transaction_id: authorization.networkData.transaction_id,
    },
    pending_request: null,
    redaction: null,
    request_history: authorization.requestHistory.map(requestHistoryEntry),
    status: authorization.status,
    token: null,
    transactions: transactions.map((transaction) => serializeTransaction(transaction)),
    treasury: null,
    verification_data: verificationData(authorization.verificationData),
    verified_by_fraud_challenge: null,
    wallet: authorization.wallet,
  };
}
