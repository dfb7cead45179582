/**
 * The configurations of a v2 account and the capabilities each can request. Capabilities are kept flat,
 * by their dotted name (`bank_accounts.ach`), and rendered nested as the reference nests them.
 */
export const configurationNames = ['customer', 'merchant', 'recipient'] as const;
export type ConfigurationName = (typeof configurationNames)[number];

/** Every merchant capability a request may ask for (the reference's 48; `service_balance.payouts` is read-only). */
export const merchantCapabilities = [
  'ach_debit_payments',
  'acss_debit_payments',
  'affirm_payments',
  'afterpay_clearpay_payments',
  'alma_payments',
  'cloudone_pay_payments',
  'au_becs_debit_payments',
  'bacs_debit_payments',
  'bancontact_payments',
  'blik_payments',
  'blik_recurring_payments',
  'boleto_payments',
  'card_payments',
  'cartes_bancaires_payments',
  'cashapp_payments',
  'eps_payments',
  'fpx_payments',
  'gb_bank_transfer_payments',
  'grabpay_payments',
  'ideal_payments',
  'jcb_payments',
  'jp_bank_transfer_payments',
  'kakao_pay_payments',
  'klarna_payments',
  'konbini_payments',
  'kr_card_payments',
  'link_payments',
  'mobilepay_payments',
  'multibanco_payments',
  'mx_bank_transfer_payments',
  'naver_pay_payments',
  'oxxo_payments',
  'p24_payments',
  'pay_by_bank_payments',
  'payco_payments',
  'paynow_payments',
  'promptpay_payments',
  'revolut_pay_payments',
  'samsung_pay_payments',
  'satispay_payments',
  'sepa_bank_transfer_payments',
  'sepa_debit_payments',
  'sequra_payments',
  'sunbit_payments',
  'swish_payments',
  'twint_payments',
  'us_bank_transfer_payments',
  'zip_payments',
] as const;

export const recipientCapabilities = [
  'bank_accounts.ach',
  'bank_accounts.fedwire',
  'bank_accounts.fps',
  'bank_accounts.local',
  'bank_accounts.rtp',
  'bank_accounts.sepa',
  'bank_accounts.swift',
  'cards',
  'service_balance.service_transfers',
] as const;

export const customerCapabilities = ['automatic_indirect_tax'] as const;

export const capabilitiesOf: Record<ConfigurationName, readonly string[]> = {
  customer: customerCapabilities,
  merchant: merchantCapabilities,
  recipient: recipientCapabilities,
};

export type CapabilityStatus = 'active' | 'pending' | 'rejected' | 'restricted' | 'unsupported';

export interface CapabilityState {
  status: CapabilityStatus;
  status_details: { code: string; resolution: 'contact_service' | 'no_resolution' | 'provide_info' }[];
}

/** `{ 'bank_accounts.ach': x, cards: y }` → `{ bank_accounts: { ach: x }, cards: y }`. */
export function nestDotted<T>(flat: Record<string, T>): Record<string, unknown> {
  const nested: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(flat)) {
    const [head, tail] = name.split('.', 2) as [string, string | undefined];
    if (tail === undefined) nested[head] = value;
    else nested[head] = { ...((nested[head] as Record<string, unknown> | undefined) ?? {}), [tail]: value };
  }
  return nested;
}

/** The inverse of `nestDotted` for one level of nesting: `{ requested }` leaves become dotted names. */
export function flattenRequested(nested: Record<string, unknown> | undefined): Record<string, boolean> {
  const flat: Record<string, boolean> = {};
  for (const [name, value] of Object.entries(nested ?? {})) {
    if (value && typeof value === 'object' && 'requested' in value) flat[name] = Boolean((value as { requested: unknown }).requested);
    else if (value && typeof value === 'object') {
      for (const [inner, leaf] of Object.entries(value)) flat[`${name}.${inner}`] = Boolean((leaf as { requested?: unknown }).requested);
    }
  }
  return flat;
}
