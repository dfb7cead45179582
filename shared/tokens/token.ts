import type { Scope } from '#shared/platform/types.ts';
import type { CardBrand, CardFunding } from './card-numbers.ts';
import type { AccountTokenData, PersonTokenData } from './schemas.ts';

export type TokenType = 'card' | 'bank_account' | 'cvc_update' | 'person' | 'pii' | 'account';

/** The token types a v2 account or person create/update can consume. */
export type ConsumableTokenType = 'account' | 'person';

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

/** A token as stored. Sensitive inputs are kept only as flags (`id_number_provided`, `cvcProvided`). */
export type Token = TokenBase &
  (
    | { type: 'card'; card: TokenCard }
    | { type: 'bank_account'; bankAccount: TokenBankAccount }
    | { type: 'cvc_update'; cvcUpdate: { cvcProvided: true } }
    | { type: 'pii'; pii: { id_number_provided: boolean } }
    | { type: 'person'; person: PersonTokenData }
    | { type: 'account'; account: AccountTokenData }
  );

export type TokenOf<T extends TokenType> = Extract<Token, { type: T }>;

/** Why a conditional consumption did not happen (an expired token is `missing`). */
export type ConsumeOutcome<T extends ConsumableTokenType> =
  | { outcome: 'consumed'; token: TokenOf<T> }
  | { outcome: 'missing' }
  | { outcome: 'used' }
  | { outcome: 'wrong_type'; actualType: TokenType };

/** Storage port for tokens. */
export interface TokenRepository {
  create(token: Token): Promise<void>;
  /** The token, unless it does not exist in `scope` or has expired by `now`. */
  get(scope: Scope, id: string, now: number): Promise<Token | undefined>;
  /**
   * Marks the token used in one conditional write: it must exist in `scope`, be of `type` and be unused.
   * On failure, the item as it was tells which of the three failed.
   */
  consume<T extends ConsumableTokenType>(scope: Scope, id: string, type: T, now: number): Promise<ConsumeOutcome<T>>;
}
