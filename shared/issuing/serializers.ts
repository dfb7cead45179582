import { unixSeconds } from '#shared/http/timestamps.ts';
import type { AmountDetails, Authorization, Fleet, Fuel, MerchantData, RequestHistoryEntry, VerificationData } from './authorization.ts';
import type { IssuingCard } from './card.ts';
import type { Cardholder, CardholderIndividual, IssuingAddress } from './cardholder.ts';

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
    reported_breakdown: f.reported_breakdown && {
      fuel: f.reported_breakdown.fuel && { gross_amount_decimal: f.reported_breakdown.fuel.gross_amount_decimal },
      non_fuel: f.reported_breakdown.non_fuel && { gross_amount_decimal: f.reported_breakdown.non_fuel.gross_amount_decimal },
      tax: f.reported_breakdown.tax && {
        local_amount_decimal: f.reported_breakdown.tax.local_amount_decimal,
        national_amount_decimal: f.reported_breakdown.tax.national_amount_decimal,
      },
    },
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
export function serializeCardholder(cardholder: Cardholder) {
  return {
    id: cardholder.id,
    object: 'issuing.cardholder' as const,
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
export function serializeCard(card: IssuingCard, cardholder: Cardholder) {
  return {
    id: card.id,
    object: 'issuing.card' as const,
    brand: card.brand,
    cancellation_reason: null,
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

export type SerializedCard = ReturnType<typeof serializeCard>;
export type SerializedCardholder = ReturnType<typeof serializeCardholder>;

/** Expanded objects that replace the ids of `card` and `cardholder` (only when the request asked). */
export interface AuthorizationExpansions {
  card?: SerializedCard;
  cardholder?: SerializedCardholder | null;
}

/**
 * The v1 `issuing.authorization` object. `card` and `cardholder` are ids unless expanded; events always
 * carry the ids. Balance transactions and transactions are not modelled, so both lists stay empty.
 */
export function serializeAuthorization(authorization: Authorization, expanded: AuthorizationExpansions = {}) {
  return {
    id: authorization.id,
    object: 'issuing.authorization' as const,
    amount: authorization.amount,
    amount_details: amountDetails(authorization.amountDetails),
    approved: authorization.approved,
    authorization_method: authorization.authorizationMethod,
    balance_transactions: [],
    card: expanded.card ?? authorization.cardId,
    card_presence: authorization.cardPresence,
    cardholder: expanded.cardholder !== undefined ? expanded.cardholder : authorization.cardholderId,
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
    transactions: [],
    treasury: null,
    verification_data: verificationData(authorization.verificationData),
    verified_by_fraud_challenge: null,
    wallet: authorization.wallet,
  };
}
