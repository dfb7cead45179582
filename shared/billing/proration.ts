import { fractionOfAmount } from './money.ts';
import { exactAmount, type PriceTerms, proratedPriceAmount, shownUnitAmount } from './pricing.ts';

/**
 * The reference's proration arithmetic, pure: a change at `at` inside a billing period credits the unused
 * time of what was billed and charges the remaining time of what replaces it, each line on its own, as the
 * fraction of the period left "down to the second" (the reference's words: its times are whole seconds),
 * times the line's full amount (shared/billing/pricing.ts: unit × quantity, or a tiered price's whole amount
 * for the quantity), rounded once to a whole minor unit, half away from zero (exact with decimal.js, never floats).
 *
 * Two ways to count a credit, as the reference's billing modes do:
 * - classic: from the item's current price and quantity over the whole period (`proratedAmount`);
 * - flexible: from what was actually debited for the item and the time that debit covered
 *   (`proratedDebit`), so a credit never exceeds what was billed, whatever happened in between.
 */

/** A billing period, epoch ms (`end` excluded). */
export interface Period {
  start: number;
  end: number;
}

/** What a subscription item bills per period: its price's terms (shared/billing/pricing.ts `termsOf`) and quantity. */
export interface Billed {
  terms: PriceTerms;
  quantity: number;
}

/** What was debited for an item: an integer amount for the part `period` of a billing period (a whole period, or the rest of one). */
export interface Debit {
  amount: number;
  period: Period;
}

/** One proration line: the credit for unused time (negative `amount`) or the charge for remaining time. */
export interface ProrationLine {
  kind: 'unused' | 'remaining';
  /** Integer minor units: negative for the credit of unused time. */
  amount: number;
  quantity: number;
  /** The price's unit amount, null for a tiered (or transformed) price, whose amount is not unit × quantity. */
  unitAmountDecimal: string | null;
  /** From the change to the end of the period (epoch ms, whole seconds). */
  period: Period;
}

const seconds = (ms: number): number => Math.floor(ms / 1000);

/** The whole seconds of `period` left at `at`, and the period's length in seconds. Throws when `at` is outside it. */
export function remainingFraction(period: Period, at: number): { remaining: number; total: number } {
  const start = seconds(period.start);
  const end = seconds(period.end);
  const now = seconds(at);
  if (end <= start) throw new RangeError('A billing period must end after it starts.');
  if (now < start || now > end) throw new RangeError('A proration happens inside the billing period.');
  return { remaining: end - now, total: end - start };
}

/** What `billed` comes to for the part of `period` left at `at`: its full amount × remaining / total, rounded once. */
export function proratedAmount(billed: Billed, period: Period, at: number): number {
  const { remaining, total } = remainingFraction(period, at);
  return proratedPriceAmount(billed.terms, billed.quantity, remaining, total);
}

/** Whether two billings come to the same: the same quantity at the same full amount (a change of price id alone prorates nothing). */
const sameBilling = (from: Billed, to: Billed): boolean =>
  from.quantity === to.quantity && exactAmount(from.terms, from.quantity).equals(exactAmount(to.terms, to.quantity));

/** The part of a debit left at `at` (the flexible mode's credit): amount × remaining / the time it covered, rounded once; never more than the debit. */
export function proratedDebit(debit: Debit, at: number): number {
  const { remaining, total } = remainingFraction(debit.period, at);
  return fractionOfAmount(String(debit.amount), 1, remaining, total);
}

/**
 * The proration lines of a change at `at` from `from` to `to` (either null: an item added or removed): the
 * credit for the unused time of `from` and the charge for the remaining time of `to`, both covering
 * `[at, period.end)`. With `debit` (the flexible mode) the credit is counted from what was debited instead
 * of `from`'s price. Nothing when no time is left (a change at the period's end), when quantity and full
 * amount are unchanged, and no line of zero (a free price prorates nothing).
 */
export function prorateChange(change: { period: Period; at: number; from: Billed | null; to: Billed | null; debit?: Debit }): ProrationLine[] {
  const { period, at, from, to, debit } = change;
  const { remaining } = remainingFraction(period, at);
  if (remaining === 0) return [];
  if (from && to && sameBilling(from, to)) return [];
  const linePeriod = { start: seconds(at) * 1000, end: seconds(period.end) * 1000 };
  const lines: ProrationLine[] = [];
  if (from) {
    // A proration date before the debit began (a backdated change) credits all of it.
    const credit = debit ? proratedDebit(debit, Math.max(at, debit.period.start)) : proratedAmount(from, period, at);
    if (credit !== 0)
      lines.push({ kind: 'unused', amount: 0 - credit, quantity: from.quantity, unitAmountDecimal: shownUnitAmount(from.terms), period: linePeriod });
  }
  if (to) {
    const charge = proratedAmount(to, period, at);
    if (charge !== 0)
      lines.push({ kind: 'remaining', amount: charge, quantity: to.quantity, unitAmountDecimal: shownUnitAmount(to.terms), period: linePeriod });
  }
  return lines;
}

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A proration line's description as the reference writes it: "Unused time on 2 × Gold after 26 Nov 2026",
 * "Remaining time on Gold after 26 Nov 2026" (the quantity shown when it is not 1; the date in UTC).
 */
export function prorationDescription(kind: ProrationLine['kind'], quantity: number, name: string, at: number): string {
  const date = new Date(at);
  const day = String(date.getUTCDate()).padStart(2, '0');
  const when = `${day} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
  return `${kind === 'unused' ? 'Unused' : 'Remaining'} time on ${quantity === 1 ? '' : `${quantity} × `}${name} after ${when}`;
}
