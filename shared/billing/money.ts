import { Decimal } from 'decimal.js';

/**
 * Money as the reference keeps it: integer amounts in a currency's smallest unit. Decimal inputs
 * (`unit_amount_decimal`, which may carry up to 12 decimal places of that unit) go through decimal.js, never
 * floats, and become integers only where an amount is charged.
 */

/** The largest amount, in absolute value, one invoice line or invoice item may carry (12 digits, as the reference). */
export const maxLineAmount = 999_999_999_999;

/** Currencies without a minor unit (an amount of 500 JPY is `500`), as the reference lists them. */
export const zeroDecimalCurrencies: ReadonlySet<string> = new Set([
  'bif',
  'clp',
  'djf',
  'gnf',
  'jpy',
  'kmf',
  'krw',
  'mga',
  'pyg',
  'rwf',
  'ugx',
  'vnd',
  'vuv',
  'xaf',
  'xof',
  'xpf',
]);

/** Currencies with three decimals (an amount of 5.124 KWD is `5124`), as the reference lists them. */
export const threeDecimalCurrencies: ReadonlySet<string> = new Set(['bhd', 'jod', 'kwd', 'omr', 'tnd']);

/** How many decimals a currency's major unit has: the power of ten between it and the amounts the API takes. */
export function currencyExponent(currency: string): 0 | 2 | 3 {
  const code = currency.toLowerCase();
  if (zeroDecimalCurrencies.has(code)) return 0;
  if (threeDecimalCurrencies.has(code)) return 3;
  return 2;
}

/**
 * decimal.js at a precision no product of the API's inputs reaches (24-digit unit amounts × quantities ×
 * seconds of a period stay exact), so an amount is rounded once, from its exact value.
 */
export const Exact = Decimal.clone({ precision: 80 });

/**
 * A unit amount in the currency's smallest unit (a decimal string of up to 12 places) times a quantity,
 * rounded to an integer amount half away from zero, as the reference rounds line amounts: `0.5` × 3 = 1.5 → 2.
 * Exact for every input the API accepts (12 + 12 digits of unit amount, quantities up to 10^8).
 */
export function lineAmount(unitAmountDecimal: string, quantity: number): number {
  return fractionOfAmount(unitAmountDecimal, quantity, 1, 1);
}

/**
 * `unit × quantity × numerator / denominator` (a proration: the seconds left of a period over its length),
 * computed exactly and rounded once to an integer amount, half away from zero, as `lineAmount`.
 */
export function fractionOfAmount(unitAmountDecimal: string, quantity: number, numerator: number, denominator: number): number {
  if (!(denominator > 0)) throw new RangeError('A fraction needs a positive denominator.');
  return roundAmount(new Exact(unitAmountDecimal).times(quantity).times(numerator).dividedBy(denominator));
}

/** An exact amount rounded once to an integer amount, half away from zero; throws beyond what an integer amount holds exactly. */
export function roundAmount(exact: Decimal): number {
  const rounded = exact.toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
  if (!rounded.abs().lte(Number.MAX_SAFE_INTEGER)) throw new RangeError(`Amount out of range: ${exact.toFixed()}`);
  return rounded.toNumber();
}

/** `amount / quantity` as the reference shows an item's `unit_amount_decimal` when only its `amount` was given (exact, at most 12 places). */
export function unitAmountOf(amount: number, quantity: number): string {
  if (quantity === 0) return String(amount);
  return new Decimal(amount).dividedBy(quantity).toDecimalPlaces(12, Decimal.ROUND_HALF_UP).toFixed();
}

/** The integer of a decimal string with no fraction (`12`, `12.000`), else null: the `unit_amount` of a decimal unit amount. */
export function wholeUnitAmount(unitAmountDecimal: string): number | null {
  const value = new Decimal(unitAmountDecimal);
  return value.isInteger() ? value.toNumber() : null;
}

/** The sum of integer amounts; throws beyond the range an integer amount can hold exactly. */
export function sumAmounts(amounts: readonly number[]): number {
  let total = 0;
  for (const amount of amounts) {
    if (!Number.isSafeInteger(amount)) throw new RangeError(`Not an integer amount: ${amount}`);
    total += amount;
  }
  if (!Number.isSafeInteger(total)) throw new RangeError('Amount out of range');
  return total;
}

/**
 * How a customer's balance applies to an invoice of `total` at finalization: a debit balance (positive) is
 * added to what is due; a credit (negative) pays what it can. `amountDue + endingBalance === startingBalance + total`
 * always, and neither a due amount nor a left-over debit is negative.
 */
export function applyBalance(total: number, startingBalance: number): { amountDue: number; endingBalance: number } {
  const owed = total + startingBalance;
  return owed > 0 ? { amountDue: owed, endingBalance: 0 } : { amountDue: 0, endingBalance: owed };
}
