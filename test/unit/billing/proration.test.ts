import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fractionOfAmount } from '#shared/billing/money.ts';
import { perUnitTerms, type PriceTerms } from '#shared/billing/pricing.ts';
import { type Billed, prorateChange, proratedAmount, proratedDebit, prorationDescription, remainingFraction } from '#shared/billing/proration.ts';

const day = 86_400_000;
// 2026-01-01T00:00:00Z to 2026-02-01T00:00:00Z: 31 days.
const january = { start: Date.UTC(2026, 0, 1), end: Date.UTC(2026, 1, 1) };

const whole = fc.integer({ min: 0, max: 99_999_999 }).map(String);
const decimal = fc
  .tuple(fc.integer({ min: 0, max: 99_999_999 }), fc.integer({ min: 0, max: 999_999_999_999 }))
  .map(([units, fraction]) => `${units}.${String(fraction).padStart(12, '0')}`);
/** A per_unit billing of a unit amount and a quantity. */
const perUnit = (unitAmountDecimal: string, quantity: number): Billed => ({ terms: perUnitTerms(unitAmountDecimal), quantity });
const unitOf = (line: Billed) => Number(line.terms.unitAmountDecimal);
const billed: fc.Arbitrary<Billed> = fc
  .record({ unitAmountDecimal: fc.oneof(whole, decimal), quantity: fc.integer({ min: 0, max: 1_000_000 }) })
  .map(({ unitAmountDecimal, quantity }) => perUnit(unitAmountDecimal, quantity));
/** A period of whole seconds, from 1 second to 5 years, and a change inside it. */
const periodAndChange = fc
  .tuple(fc.integer({ min: 1_500_000_000, max: 2_000_000_000 }), fc.integer({ min: 1, max: 5 * 366 * 86_400 }), fc.double({ min: 0, max: 1, noNaN: true }))
  .map(([start, length, where]) => ({ period: { start: start * 1000, end: (start + length) * 1000 }, at: (start + Math.floor(length * where)) * 1000 }));

/** The exact value of a line, as a float only for comparing within the rounding. */
const exact = (line: Billed, fraction: number) => unitOf(line) * line.quantity * fraction;

describe('proration arithmetic', () => {
  it('Given a change halfway through a 31-day month from 1000 to 2000 (the reference docs example: half of $10 credited, half of $20 charged), when prorated, then it credits 500 and charges 1000', () => {
    const at = january.start + 15.5 * day;
    expect(prorateChange({ period: january, at, from: perUnit('1000', 1), to: perUnit('2000', 1) })).toEqual([
      { kind: 'unused', amount: -500, quantity: 1, unitAmountDecimal: '1000', period: { start: at, end: january.end } },
      { kind: 'remaining', amount: 1000, quantity: 1, unitAmountDecimal: '2000', period: { start: at, end: january.end } },
    ]);
  });

  it('Given the fraction left, when it is computed, then it counts whole seconds (milliseconds dropped)', () => {
    expect(remainingFraction(january, january.start + 10 * day + 999)).toEqual({ remaining: 21 * 86_400, total: 31 * 86_400 });
  });

  it('Given a third of a period left on 1000, when prorated, then 333.33… rounds to 333, and a half rounds away from zero either way', () => {
    expect(proratedAmount(perUnit('1000', 1), { start: 0, end: 3000 }, 2000)).toBe(333);
    expect(proratedAmount(perUnit('1', 1), { start: 0, end: 2000 }, 1000)).toBe(1);
    expect(fractionOfAmount('-1', 1, 1, 2)).toBe(-1);
    expect(fractionOfAmount('-4', 1, 1, 3)).toBe(-1);
  });

  it('Given a zero-decimal (JPY) and a three-decimal (KWD) price, when prorated, then the amounts are whole units of each currency’s smallest unit', () => {
    const at = january.start + 21 * day; // 10 of 31 days left
    // ¥1,000 a month: 1000 × 10/31 = 322.58 → ¥323.
    expect(proratedAmount(perUnit('1000', 1), january, at)).toBe(323);
    // 5.124 KWD a month (5124 fils) × 3: 15372 × 10/31 = 4958.71 → 4959 fils.
    expect(proratedAmount(perUnit('5124', 3), january, at)).toBe(4959);
  });

  it('Given a unit_amount_decimal of a fraction of a cent, when prorated by quantity, then the line is rounded once, not per unit', () => {
    // 0.5 cent × 3 units × the whole period is 1.5: 2, where rounding each unit first would give 3.
    expect(proratedAmount(perUnit('0.5', 3), january, january.start)).toBe(2);
  });

  it('Given a 24-digit unit amount just under a half, when prorated over a whole period, then it is rounded from its exact value (down)', () => {
    expect(proratedAmount(perUnit('123456789012.499999999999', 1), january, january.start)).toBe(123_456_789_012);
  });

  it('Given a change at the very end of the period, one that changes nothing, or a free price, when prorated, then there are no lines', () => {
    const same = perUnit('1000', 2);
    expect(prorateChange({ period: january, at: january.end, from: same, to: perUnit('5', 1) })).toEqual([]);
    expect(prorateChange({ period: january, at: january.start + day, from: same, to: { ...same } })).toEqual([]);
    expect(prorateChange({ period: january, at: january.start + day, from: perUnit('0', 1), to: perUnit('0', 5) })).toEqual([]);
  });

  it('Given a change outside its period, when prorated, then it is refused', () => {
    expect(() => prorateChange({ period: january, at: january.end + 1000, from: null, to: perUnit('1', 1) })).toThrow(RangeError);
    expect(() => remainingFraction({ start: 1000, end: 1000 }, 1000)).toThrow(RangeError);
  });

  it('Given an item removed or added, when prorated, then only the credit or only the charge is made', () => {
    const at = january.start + 10 * day;
    expect(prorateChange({ period: january, at, from: perUnit('3100', 1), to: null }).map((line) => line.amount)).toEqual([-2100]);
    expect(prorateChange({ period: january, at, from: null, to: perUnit('3100', 2) }).map((line) => line.amount)).toEqual([4200]);
  });

  it('Given a debit (the flexible mode), when credited, then the credit is counted from what was debited over the time it covered, and a backdated change credits all of it', () => {
    const at = january.start + 10 * day;
    const debit = { amount: 1001, period: { start: at, end: january.end } };
    // 21 days were debited 1001; 11 of them left: 1001 × 11/21 = 524.33 → 524, whatever the price is now.
    expect(proratedDebit(debit, january.start + 20 * day)).toBe(524);
    const lines = prorateChange({
      period: january,
      at: january.start + 5 * day,
      from: perUnit('9999', 1),
      to: null,
      debit,
    });
    expect(lines.map((line) => line.amount)).toEqual([-1001]);
  });

  it('Given seats on a graduated price (5 at 700, then 650) going from 6 to 12 halfway through January, when prorated, then each line is half of the tiered amount for its quantity, with no unit amount shown', () => {
    const graduated: PriceTerms = {
      billingScheme: 'tiered',
      tiersMode: 'graduated',
      tiers: [
        { upTo: 5, unitAmount: 700, unitAmountDecimal: '700', flatAmount: null, flatAmountDecimal: null },
        { upTo: null, unitAmount: 650, unitAmountDecimal: '650', flatAmount: null, flatAmountDecimal: null },
      ],
      unitAmountDecimal: null,
      transformQuantity: null,
    };
    const at = january.start + 15.5 * day;
    // 6 seats: 3500 + 650 = 4150, half 2075; 12 seats: 3500 + 7 × 650 = 8050, half 4025.
    expect(prorateChange({ period: january, at, from: { terms: graduated, quantity: 6 }, to: { terms: graduated, quantity: 12 } })).toEqual([
      { kind: 'unused', amount: -2075, quantity: 6, unitAmountDecimal: null, period: { start: at, end: january.end } },
      { kind: 'remaining', amount: 4025, quantity: 12, unitAmountDecimal: null, period: { start: at, end: january.end } },
    ]);
  });

  it('Given lines of a change, when described, then they read as the reference writes them, the quantity shown unless it is 1', () => {
    const at = Date.UTC(2026, 10, 6, 23, 59);
    expect(prorationDescription('unused', 2, 'Gold', at)).toBe('Unused time on 2 × Gold after 06 Nov 2026');
    expect(prorationDescription('remaining', 1, 'Gold', at)).toBe('Remaining time on Gold after 06 Nov 2026');
  });

  it('Given any change at the start of a period, when prorated, then credit plus charge is exactly the price difference', () => {
    fc.assert(
      fc.property(periodAndChange, billed, billed, ({ period }, from, to) => {
        const lines = prorateChange({ period, at: period.start, from, to });
        const full = (line: Billed) => proratedAmount(line, period, period.start);
        const sum = lines.reduce((total, line) => total + line.amount, 0);
        const same = from.terms.unitAmountDecimal === to.terms.unitAmountDecimal && from.quantity === to.quantity;
        expect(sum).toBe(same ? 0 : full(to) - full(from));
      }),
    );
  });

  it('Given any change anywhere in a period, when prorated, then each line is an integer within half a unit of the exact amount, credits negative, charges positive, both to the period end', () => {
    fc.assert(
      fc.property(periodAndChange, billed, billed, ({ period, at }, from, to) => {
        const lines = prorateChange({ period, at, from, to });
        const { remaining, total } = remainingFraction(period, at);
        const fraction = remaining / total;
        // A float check of an exact computation: the tolerance covers the float's own error on large amounts.
        const slack = (value: number) => 0.5 + Math.abs(value) * 1e-12;
        for (const line of lines) {
          const source = line.kind === 'unused' ? from : to;
          const value = exact(source, fraction);
          expect(Number.isInteger(line.amount)).toBe(true);
          expect(Math.abs(Math.abs(line.amount) - value)).toBeLessThanOrEqual(slack(value));
          expect(line.kind === 'unused' ? line.amount < 0 : line.amount > 0).toBe(true);
          expect(line.period).toEqual({ start: Math.floor(at / 1000) * 1000, end: period.end });
        }
      }),
    );
  });

  it('Given a change undone at the same moment, when both are prorated, then they cancel out exactly', () => {
    fc.assert(
      fc.property(periodAndChange, billed, billed, ({ period, at }, from, to) => {
        const there = prorateChange({ period, at, from, to });
        const back = prorateChange({ period, at, from: to, to: from });
        expect([...there, ...back].reduce((total, line) => total + line.amount, 0)).toBe(0);
      }),
    );
  });

  it('Given any debit and any later moment, when credited, then the credit is between zero and the debit', () => {
    fc.assert(
      fc.property(periodAndChange, fc.integer({ min: 0, max: 999_999_999_999 }), ({ period, at }, amount) => {
        const credit = proratedDebit({ amount, period }, at);
        expect(credit).toBeGreaterThanOrEqual(0);
        expect(credit).toBeLessThanOrEqual(amount);
      }),
    );
  });

  it('Given later and later changes of one price, when prorated, then the charge never grows as less time is left', () => {
    fc.assert(
      fc.property(periodAndChange, fc.double({ min: 0, max: 1, noNaN: true }), billed, ({ period, at }, later, to) => {
        const second = at + Math.floor(((period.end - at) * later) / 1000) * 1000;
        expect(proratedAmount(to, period, second)).toBeLessThanOrEqual(proratedAmount(to, period, at));
      }),
    );
  });
});
