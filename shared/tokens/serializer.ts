import * as z from 'zod';
import { metadataObject, unixTime } from '#shared/http/objects.ts';
import { unixSeconds } from '#shared/http/timestamps.ts';
import type { TokenBankAccount, TokenCard, V1Token } from './token.ts';

const nullableString = z.string().nullable();

export const cardObject = z
  .object({
    id: z.string(),
    object: z.literal('card'),
    account: z.null(),
    address_city: nullableString,
    address_country: nullableString,
    address_line1: nullableString,
    address_line1_check: z.enum(['unchecked']).nullable(),
    address_line2: nullableString,
    address_state: nullableString,
    address_zip: nullableString,
    address_zip_check: z.enum(['unchecked']).nullable(),
    allow_redisplay: z.literal('unspecified'),
    available_payout_methods: z.null(),
    brand: z.enum(['Visa', 'MasterCard', 'American Express', 'Discover', 'Diners Club', 'JCB', 'UnionPay', 'Unknown']),
    country: nullableString,
    currency: nullableString,
    customer: nullableString,
    cvc_check: z.enum(['unchecked']).nullable(),
    default_for_currency: z.null(),
    dynamic_last4: z.null(),
    exp_month: z.int(),
    exp_year: z.int(),
    fingerprint: z.string(),
    funding: z.enum(['credit', 'debit', 'prepaid', 'unknown']),
    last4: z.string(),
    metadata: metadataObject,
    name: nullableString,
    networks: z.object({ preferred: nullableString }),
    regulated_status: z.null(),
    status: z.null(),
    tokenization_method: z.null(),
  })
  .meta({ id: 'Card' });

export const bankAccountObject = z
  .object({
    id: z.string(),
    object: z.literal('bank_account'),
    account_holder_name: nullableString,
    account_holder_type: z.enum(['company', 'individual']).nullable(),
    account_type: z.enum(['checking', 'futsu', 'savings', 'toza']).nullable(),
    bank_name: z.null(),
    country: z.string(),
    currency: z.string(),
    /** Attached to a customer only. */
    customer: z.string().optional(),
    fingerprint: z.string(),
    last4: z.string(),
    /** Attached to a customer only. */
    metadata: metadataObject.optional(),
    routing_number: nullableString,
    status: z.enum(['new', 'verified']),
  })
  .meta({ id: 'BankAccount' });

export const tokenObject = z
  .object({
    id: z.string(),
    object: z.literal('token'),
    bank_account: bankAccountObject.optional(),
    card: cardObject.optional(),
    client_ip: nullableString,
    created: unixTime,
    livemode: z.boolean(),
    type: z.enum(['card', 'bank_account', 'cvc_update', 'person', 'pii', 'account']),
    used: z.boolean(),
  })
  .meta({ id: 'Token' });

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
