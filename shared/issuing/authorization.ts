import { InvalidRequestError } from '#shared/core/errors.ts';
import type { OwnedResource } from '#shared/platform/owned-resource.ts';
import type { IssuingCard } from './card.ts';
import type { Cardholder } from './cardholder.ts';
import type { IssuingRepository } from './repository.ts';

export type AuthorizationStatus = 'pending' | 'closed' | 'expired' | 'reversed';

export interface AmountDetails {
  atm_fee: number | null;
  cashback_amount: number | null;
}

/** `merchant_data` in API shape. */
export interface MerchantData {
  category: string;
  category_code: string;
  city: string | null;
  country: string | null;
  name: string | null;
  network_id: string;
  postal_code: string | null;
  state: string | null;
  tax_id: string | null;
  terminal_id: string | null;
  url: string | null;
}

/** `verification_data` in API shape. */
export interface VerificationData {
  address_line1_check: string;
  address_postal_code_check: string;
  authentication_exemption: { claimed_by: string; type: string } | null;
  cvc_check: string;
  expiry_check: string;
  postal_code: string | null;
  three_d_secure: { result: string } | null;
}

/** `fleet` in API shape; `*_decimal` values are decimal strings as given. */
export interface Fleet {
  cardholder_prompt_data: {
    alphanumeric_id: string | null;
    driver_id: string | null;
    odometer: number | null;
    unspecified_id: string | null;
    user_id: string | null;
    vehicle_number: string | null;
  } | null;
  purchase_type: string | null;
  reported_breakdown: {
    fuel: { gross_amount_decimal: string | null } | null;
    non_fuel: { gross_amount_decimal: string | null } | null;
    tax: { local_amount_decimal: string | null; national_amount_decimal: string | null } | null;
  } | null;
  service_type: string | null;
}

/** `fuel` in API shape. */
export interface Fuel {
  industry_product_code: string | null;
  quantity_decimal: string | null;
  type: string | null;
  unit: string | null;
  unit_cost_decimal: string | null;
}

/** One `request_history` entry in API shape. */
export interface RequestHistoryEntry {
  amount: number;
  amount_details: AmountDetails | null;
  approved: boolean;
  authorization_code: string | null;
  created: number;
  currency: string;
  merchant_amount: number;
  merchant_currency: string;
  network_risk_score: number | null;
  reason: string;
  reason_message: string | null;
  requested_at: number | null;
}

/** An issuing authorization as the service keeps it. Nested objects are kept in API shape. */
export interface Authorization extends OwnedResource {
  created: number;
  cardId: string;
  cardholderId: string | null;
  status: AuthorizationStatus;
  approved: boolean;
  /** Held amount in `currency`, minor units; changed by increment, reverse, finalize and partial captures. */
  amount: number;
  currency: string;
  merchantAmount: number;
  merchantCurrency: string;
  amountDetails: AmountDetails | null;
  authorizationMethod: string;
  cardPresence: 'present' | 'not_present';
  merchantData: MerchantData;
  networkData: { acquiring_institution_id: string | null; system_trace_audit_number: string | null; transaction_id: string | null };
  verificationData: VerificationData;
  wallet: string | null;
  fleet: Fleet | null;
  fuel: Fuel | null;
  requestHistory: RequestHistoryEntry[];
  metadata: Record<string, string>;
  /** The code given to the merchant when the authorization was approved (null when declined). */
  authorizationCode: string | null;
  /** Whether the merchant may have the amount partially approved (the last request's `is_amount_controllable`). */
  isAmountControllable: boolean;
  /** Made on an estimated amount, so its final amount may be set once (see `isEstimatedAmountCategory`). */
  estimatedAmount: boolean;
  amountFinalized: boolean;
  /** The transactions its captures and their refunds made, oldest first (`transactions` shows them). */
  transactionIds: string[];
  /** What its refunds took of their room as they were created (see `refundBytesPerAuthorization`). */
  refundBytes: number;
}

export type AuthorizationRepository = IssuingRepository<Authorization>;

/**
 * The rule for authorizations made on an **estimated amount**, the only ones `finalize_amount` applies to:
 * the merchant category says so at creation. At an automated fuel dispenser (MCC 5542) the pump asks for an
 * estimated hold before dispensing and learns the real amount only afterwards; an electric vehicle
 * charger (MCC 5552) works the same way, which is why `fuel.unit` has `kilowatt_hour` and
 * `charging_minute`. The reference's create parameters have no explicit "estimated" flag
 * (`is_amount_controllable` is about partial approval, not estimation), so the category is the marker.
 */
const estimatedAmountCategories: ReadonlySet<string> = new Set(['automated_fuel_dispensers', 'electric_vehicle_charging']);

export const isEstimatedAmountCategory = (category: string): boolean => estimatedAmountCategories.has(category);

export interface Decision {
  approved: boolean;
  reason: string;
}

/**
 * Approves unless the card or its cardholder cannot be used; the `request_history` reason names why.
 * There is no real-time authorization webhook here, so an approval carries `card_active`.
 */
export function decide(card: IssuingCard, cardholder: Cardholder | undefined, now: Date): Decision {
  if (card.status === 'canceled') return { approved: false, reason: 'card_canceled' };
  if (card.status === 'inactive') return { approved: false, reason: 'card_inactive' };
  const expired = card.expYear < now.getUTCFullYear() || (card.expYear === now.getUTCFullYear() && card.expMonth < now.getUTCMonth() + 1);
  if (expired) return { approved: false, reason: 'card_expired' };
  if (cardholder?.status === 'blocked') return { approved: false, reason: 'cardholder_blocked' };
  if (cardholder?.status === 'inactive') return { approved: false, reason: 'cardholder_inactive' };
  return { approved: true, reason: 'card_active' };
}

/**
 * The merchant amount that goes with `amount`: the same when both currencies are the same, else in the
 * proportion the authorization was created with (the service does no currency conversion of its own).
 * An authorization created for 0 in another merchant currency has no proportion: only 0 goes with it,
 * so it cannot be incremented or over-captured (400).
 */
export function merchantAmountFor(authorization: Pick<Authorization, 'id' | 'currency' | 'merchantCurrency' | 'requestHistory'>, amount: number): number {
  if (authorization.currency === authorization.merchantCurrency || amount === 0) return amount;
  const first = authorization.requestHistory[0];
  if (!first || first.amount === 0) {
    throw new InvalidRequestError(
      `The authorization ${authorization.id} was made for 0 in another merchant currency, so it has no exchange rate to convert ${amount} with: it cannot be incremented or captured for more than 0.`,
      'parameter_invalid',
    );
  }
  return Math.round((amount * first.merchant_amount) / first.amount);
}
