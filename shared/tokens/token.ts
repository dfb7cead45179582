import type { Scope } from '#shared/platform/types.ts';
import type { CardBrand, CardFunding, CardOutcome } from './card-numbers.ts';
import type { AccountTokenData, PersonTokenData } from './schemas.ts';

/** v1 token types (`POST /v1/tokens`), and the v2 account and person tokens (`v2_account`, `v2_person`). */
export type TokenType = 'card' | 'bank_account' | 'cvc_update' | 'person' | 'pii' | 'account' | 'v2_account' | 'v2_person';

/** The token types `POST /v1/tokens` makes and `GET /v1/tokens/:id` shows. */
export const v1TokenTypes = ['card', 'bank_account', 'cvc_update', 'person', 'pii', 'account'] as const;
export type V1TokenType = (typeof v1TokenTypes)[number];

/** The card of a card token: what the API object shows, never the number or the CVC. */
export interface TokenCard {
  id: string;
  brand: CardBrand;
  last4: string;
  expMonth: number;
  expYear: number;
  funding: CardFunding;
  country: string | null;
  /** Keyed HMAC of the number (see fingerprint.ts): the same card gives the same value within one account. */
  fingerprint: string;
  cvcProvided: boolean;
  /**
   * What attaching and charging this card does (decided from the test card number when tokenized); null in
   * live mode, where no payment network decides (docs/billing.md, Payments).
   */
  outcome: CardOutcome | null;
  name: string | null;
  currency: string | null;
  preferredNetwork: string | null;
  address: {
    city: string | null;
    country: string | null;
    line1: string | null;
    line2: string | null;
    state: string | null;
    zip: string | null;
  };
}

/** The bank account of a bank account token: last4 and routing number, never the account number. */
export interface TokenBankAccount {
  id: string;
  country: string;
  currency: string;
  last4: string;
  routingNumber: string | null;
  accountHolderName: string | null;
  accountHolderType: 'company' | 'individual' | null;
  accountType: 'checking' | 'futsu' | 'savings' | 'toza' | null;
  fingerprint: string;
}

interface TokenBase {
  id: string;
  scope: Scope;
  /** Milliseconds. */
  created: number;
  /** Milliseconds: after this the token can be neither retrieved nor used, and the table's TTL removes it. */
  expiresAt: number;
  clientIp: string | null;
  used: boolean;
}

/**
 * A v2 account or person token's data: its create parameters as their schema validated them (the same
 * schemas as the inline account and person parameters), id number values dropped (only their type kept).
 * The client's IP and user agent stand in for the attestations' `ip` and `user_agent`.
 */
export interface V2TokenData {
  params: Record<string, unknown>;
  userAgent: string | null;
}

/** A token as stored. Sensitive inputs are kept only as flags (`id_number_provided`, `cvcProvided`) or types (v2 id numbers). */
export type Token = TokenBase &
  (
    | { type: 'card'; card: TokenCard }
    | { type: 'bank_account'; bankAccount: TokenBankAccount }
    | { type: 'cvc_update'; cvcUpdate: { cvcProvided: true } }
    | { type: 'pii'; pii: { id_number_provided: boolean } }
    | { type: 'person'; person: PersonTokenData }
    | { type: 'account'; account: AccountTokenData }
    | { type: 'v2_account'; v2: V2TokenData }
    /** A person token belongs to the account it was made for, besides its platform and mode. */
    | { type: 'v2_person'; accountId: string; v2: V2TokenData }
  );

export type TokenOf<T extends TokenType> = Extract<Token, { type: T }>;
export type V1Token = TokenOf<V1TokenType>;

/**
 * A token an account or person write uses up in its own transaction: the write happens only if the token
 * is still unused and unexpired then, and marks it used (so a failed write leaves it usable, and of two
 * concurrent writes only one can succeed). `param` names the request parameter that carried it.
 */
export interface TokenUse {
  scope: Scope;
  id: string;
  type: TokenType;
  now: number;
  param: string;
}

/** Storage port for tokens. Using one up is part of the write that uses it (`TokenUse`), not a call of its own. */
export interface TokenRepository {
  create(token: Token): Promise<void>;
  /** The token, unless it does not exist in `scope` or has expired by `now`. */
  get(scope: Scope, id: string, now: number): Promise<Token | undefined>;
}
