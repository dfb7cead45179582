import type * as z from 'zod';
import { unixSeconds } from '#shared/wire/timestamps.ts';
import type { AmountDetails, Authorization, Fleet, Fuel, MerchantData, RequestHistoryEntry, VerificationData } from './authorization.ts';
import type { IssuingCard } from './card.ts';
import type { Cardholder, CardholderIndividual, IssuingAddress } from './cardholder.ts';
import type { IssuingTransaction, PurchaseDetails } from './transaction.ts';
import type { cardholderObject, issuingCardObject, issuingTransactionObject, issuingAuthorizationObject } from './objects.ts';

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
    amount_details: { atm_fee: authorization.amountDetails?.atm_fee ?? null, cashback_amount: authorization.amountDetails?.cashback_amount ?? null },
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
