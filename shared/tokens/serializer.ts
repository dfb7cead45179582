import type * as z from 'zod';
import { unixSeconds } from '#shared/wire/timestamps.ts';
import type { TokenBankAccount, TokenCard, V1Token } from './token.ts';
import type { cardObject, bankAccountObject, tokenObject } from './objects.ts';

/** What a card or bank account shows once attached to a customer. */
export interface Attachment {
  customer: string;
  metadata: Record<string, string>;
}

/** The v1 card object: every field of the reference's Card, `null` where this service has none; `attached` to a customer or (in a token) not. */
export function serializeCard(card: TokenCard, attached?: Attachment): z.input<typeof cardObject> {
  return {
    id: card.id,
    object: 'card',
    account: null,
    address_city: card.address.city,
    address_country: card.address.country,
    address_line1: card.address.line1,
    address_line1_check: card.address.line1 === null ? null : 'unchecked',
    address_line2: card.address.line2,
    address_state: card.address.state,
    address_zip: card.address.zip,
    address_zip_check: card.address.zip === null ? null : 'unchecked',
    allow_redisplay: 'unspecified',
    available_payout_methods: null,
    brand: card.brand,
    country: card.country,
    currency: card.currency,
    customer: attached?.customer ?? null,
    cvc_check: card.cvcProvided ? 'unchecked' : null,
    default_for_currency: null,
    dynamic_last4: null,
    exp_month: card.expMonth,
    exp_year: card.expYear,
    fingerprint: card.fingerprint,
    funding: card.funding,
    last4: card.last4,
    metadata: attached?.metadata ?? {},
    name: card.name,
    networks: { preferred: card.preferredNetwork },
    regulated_status: null,
    status: null,
    tokenization_method: null,
  };
}

/** The v1 bank account object; a token's shows no `customer` or `metadata`, an attached one its customer's and its status. */
export function serializeBankAccount(bankAccount: TokenBankAccount, attached?: Attachment & { status: 'new' | 'verified' }): z.input<typeof bankAccountObject> {
  return {
    id: bankAccount.id,
    object: 'bank_account',
    account_holder_name: bankAccount.accountHolderName,
    account_holder_type: bankAccount.accountHolderType,
    account_type: bankAccount.accountType,
    bank_name: null,
    country: bankAccount.country,
    currency: bankAccount.currency,
    ...(attached && { customer: attached.customer }),
    fingerprint: bankAccount.fingerprint,
    last4: bankAccount.last4,
    ...(attached && { metadata: attached.metadata }),
    routing_number: bankAccount.routingNumber,
    status: attached?.status ?? 'new',
  };
}

/** The v1 token object. Person, PII, account and CVC tokens carry no data back, as in the reference. */
export function serializeToken(token: V1Token): z.input<typeof tokenObject> {
  return {
    id: token.id,
    object: 'token',
    ...(token.type === 'bank_account' && { bank_account: serializeBankAccount(token.bankAccount) }),
    ...(token.type === 'card' && { card: serializeCard(token.card) }),
    client_ip: token.clientIp,
    created: unixSeconds(token.created),
    livemode: token.scope.livemode,
    type: token.type,
    used: token.used,
  };
}
