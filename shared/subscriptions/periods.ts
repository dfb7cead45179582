import type { Cadence } from '#shared/catalogue/catalogue.ts';

/**
 * Billing periods, counted from a subscription's billing cycle anchor as the reference counts them: days and
 * weeks are fixed lengths; months and years keep the anchor's day of the month, clamped to the month's end
 * (an anchor on 31 January renews on 28 or 29 February, then on 31 March), and its time of day. Each
 * period end is counted from the anchor, never from the previous end, so a clamped month does not drift.
 */

const day = 86_400_000;

/** The anchor moved forward by `count` intervals (UTC). */
export function addIntervals(anchor: number, recurring: Cadence, count: number): number {
  const steps = recurring.intervalCount * count;
  if (recurring.interval === 'day') return anchor + steps * day;
  if (recurring.interval === 'week') return anchor + steps * 7 * day;
  const date = new Date(anchor);
  const months = recurring.interval === 'month' ? steps : steps * 12;
  const target = new Date(
    Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + months, 1, date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()),
  );
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return target.getTime();
}

/** A rough upper bound of one interval's length, to count whole periods without walking them one by one. */
const longestInterval = (recurring: Cadence) => recurring.intervalCount * { day: day, week: 7 * day, month: 31 * day, year: 366 * day }[recurring.interval];

/**
 * The period counted from `anchor` that contains `at` (start ≤ at < end). Before the anchor it is the
 * period that ends at the anchor (the stub a backdated or future anchor leaves is the caller's to name).
 */
export function currentPeriod(anchor: number, recurring: Cadence, at: number): { start: number; end: number } {
  if (at < anchor) return { start: at, end: anchor };
  // Start a little before the answer (the estimate never overshoots), then step to it.
  let index = Math.max(0, Math.floor((at - anchor) / longestInterval(recurring)) - 1);
  while (addIntervals(anchor, recurring, index + 1) <= at) index++;
  return { start: addIntervals(anchor, recurring, index), end: addIntervals(anchor, recurring, index + 1) };
}

/** The first period end counted from `anchor` that is later than `after`. */
export const nextPeriodEnd = (anchor: number, recurring: Cadence, after: number): number => currentPeriod(anchor, recurring, after).end;
