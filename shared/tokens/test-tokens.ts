import type { Scope } from '#shared/platform/types.ts';
import type { Token, TokenRepository } from './token.ts';

/**
 * The reference's test tokens (`tok_visa`, `tok_chargeDeclined`, …), usable in test mode wherever a card
 * token is (`source`), any number of times: each use mints a fresh single-use card token from the card
 * number the reference documents for it, so the card's outcome (card-numbers.ts) and every rule of a real
 * token apply. Live mode has none (they are "No such token" there, as in the reference).
 */
export const testTokenCards: ReadonlyMap<string, string> = new Map([
  ['tok_visa', '4242424242424242'],
  ['tok_visa_debit', '4000056655665556'],
  ['tok_mastercard', '5555555555554444'],
  ['tok_mastercard_debit', '5200828282828210'],
  ['tok_mastercard_prepaid', '5105105105105100'],
  ['tok_amex', '378282246310005'],
  ['tok_discover', '6011111111111117'],
  ['tok_diners', '3056930009020004'],
  ['tok_jcb', '3566002020360505'],
  ['tok_unionpay', '6200000000000005'],
  ['tok_chargeDeclined', '4000000000000002'],
  ['tok_chargeDeclinedInsufficientFunds', '4000000000009995'],
  ['tok_chargeDeclinedLostCard', '4000000000009987'],
  ['tok_chargeDeclinedStolenCard', '4000000000009979'],
  ['tok_chargeDeclinedExpiredCard', '4000000000000069'],
  ['tok_chargeDeclinedIncorrectCvc', '4000000000000127'],
  ['tok_chargeDeclinedProcessingError', '4000000000000119'],
  ['tok_chargeCustomerFail', '4000000000000341'],
  ['tok_riskLevelHighest', '4100000000000019'],
  ['tok_cvcCheckFail', '4000000000000101'],
]);

/** The card a test token stands for: its number, an expiry a year ahead, and a CVC (so CVC checks run). */
export interface TestTokenCard {
  number: string;
  exp_month: string;
  exp_year: string;
  cvc: string;
}

/**
 * Reads tokens from `tokens`, and in test mode answers a test token's id with a card token minted by
 * `mint` (a real, stored, unused token: the write that attaches it uses that one up).
 */
export function withTestTokens(
  tokens: Pick<TokenRepository, 'get'>,
  mint: (scope: Scope, card: TestTokenCard) => Promise<Token>,
): Pick<TokenRepository, 'get'> {
  return {
    async get(scope, id, now) {
      const number = scope.livemode ? undefined : testTokenCards.get(id);
      if (number === undefined) return tokens.get(scope, id, now);
      const next = new Date(now);
      return mint(scope, {
        number,
        exp_month: String(next.getUTCMonth() + 1),
        exp_year: String(next.getUTCFullYear() + 1),
        cvc: number.startsWith('34') || number.startsWith('37') ? '1234' : '123',
      });
    },
  };
}
