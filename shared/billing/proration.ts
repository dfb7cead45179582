/**
 * The reference's proration arithmetic, pure: a change at `at` inside a billing period credits the unused
 * time of what was billed and charges the remaining time of what replaces it, each line on its own, as the
 * fraction of the period left, to the second (the reference's times are whole seconds), times the line's
 * full amount, rounded once to a whole minor unit, half away from zero.
 *
 * Exact: amounts are computed as integers (`bigint`), never floats, from the price's `unit_amount_decimal`
 * (up to 12 decimal places of a minor unit). The rounding is the small one written here until helper B's
 * shared/billing/money.ts lands (at the merge this module takes its decimal parsing and rounding from there).
 */

/** A billing period, epoch ms (`end` excluded). */
export interface Period {
  start: number;
  end: number;
}

/** What a subscription item bills per period: its price's unit amount (a decimal string of minor units) and quantity. */
export interface Billed {
  unitAmountDecimal: string;
  quantity: number;
}

/** One proration line: a credit (negative `amount`) or a charge, for the part of the period from the change to its end. */
export interface ProrationLine {
  /** Integer minor units: negative for the credit of unused time. */
  amount: number;
  quantity: number;
  unitAmountDecimal: string;
  /** From the change to the end of the period (epoch ms, whole seconds). */
  period: Period;
}

const seconds = (ms: number): bigint => BigInt(Math.floor(ms / 1000));

/** A decimal string of minor units as an exact fraction `numerator / 10^scale`. */
function parseDecimal(value: string): { numerator: bigint; denominator: bigint } {
  const match = /^(-?)(\d+)(?:\.(\d{1,12}))?$/.exec(value);
  if (!match) throw new RangeError(`Not a decimal amount: '${value}'`);
  const fraction = match[3] ?? '';
  const numerator = BigInt(`${match[2]}${fraction}`) * (match[1] === '-' ? -1n : 1n);
  return { numerator, denominator: 10n ** BigInt(fraction.length) };
}

/** `numerator / denominator` rounded to the nearest integer, halves away from zero (denominator > 0). */
export function roundHalfAwayFromZero(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const rounded = (2n * magnitude + denominator) / (2n * denominator);
  return negative ? -rounded : rounded;
}

/** The whole seconds of `period` left at `at`, and the period's length in seconds. Throws when `at` is outside it. */
export function remainingFraction(period: Period, at: number): { remaining: bigint; total: bigint } {
  const start = seconds(period.start);
  const end = seconds(period.end);
  const now = seconds(at);
  if (end <= start) throw new RangeError('A billing period must end after it starts.');
  if (now < start || now > end) throw new RangeError('A proration happens inside the billing period.');
  return { remaining: end - now, total: end - start };
}

/** What `billed` comes to for the part of `period` left at `at`: unit amount × quantity × remaining / total, rounded once. */
export function proratedAmount(billed: Billed, period: Period, at: number): number {
  const { remaining, total } = remainingFraction(period, at);
  const { numerator, denominator } = parseDecimal(billed.unitAmountDecimal);
  return Number(roundHalfAwayFromZero(numerator * BigInt(billed.quantity) * remaining, denominator * total));
}

/**
 * The proration lines of a change at `at` from `from` to `to` (either null: an item added or removed): the
 * credit for the unused time of `from` and the charge for the remaining time of `to`. Nothing when no time
 * is left (a change at the period's end prorates nothing) or when price and quantity are unchanged.
 */
export function prorateChange(change: { period: Period; at: number; from: Billed | null; to: Billed | null }): ProrationLine[] {
  const { period, at, from, to } = change;
  const { remaining } = remainingFraction(period, at);
  if (remaining === 0n) return [];
  if (from && to && from.unitAmountDecimal === to.unitAmountDecimal && from.quantity === to.quantity) return [];
  const linePeriod = { start: Number(seconds(at)) * 1000, end: Number(seconds(period.end)) * 1000 };
  const lines: ProrationLine[] = [];
  if (from)
    lines.push({ amount: 0 - proratedAmount(from, period, at), quantity: from.quantity, unitAmountDecimal: from.unitAmountDecimal, period: linePeriod });
  if (to) lines.push({ amount: proratedAmount(to, period, at), quantity: to.quantity, unitAmountDecimal: to.unitAmountDecimal, period: linePeriod });
  return lines;
}
