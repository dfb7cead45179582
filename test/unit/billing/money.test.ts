import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyBalance, currencyExponent, lineAmount, sumAmounts, unitAmountOf, wholeUnitAmount } from '#shared/billing/money.ts';
import { maxAutomaticAttempts, nextPaymentAttempt } from '#shared/billing/retry-schedule.ts';

const day = 86_400_000;

describe('money (shared/billing/money.ts)', () => {
  it('knows the zero-decimal and three-decimal currencies the reference lists, and two decimals for the rest', () => {
    expect(['jpy', 'KRW', 'vnd', 'clp', 'xof'].map(currencyExponent)).toEqual([0, 0, 0, 0, 0]);
    expect(['bhd', 'jod', 'kwd', 'omr', 'tnd'].map(currencyExponent)).toEqual([3, 3, 3, 3, 3]);
    expect(['usd', 'eur', 'gbp'].map(currencyExponent)).toEqual([2, 2, 2]);
  });

  it('multiplies a decimal unit amount by a quantity exactly and rounds half away from zero', () => {
    expect(lineAmount('0.5', 3)).toBe(2);
    expect(lineAmount('0.1', 3)).toBe(0);
    expect(lineAmount('0.333333333333', 3)).toBe(1);
    expect(lineAmount('-0.5', 1)).toBe(-1);
    expect(lineAmount('1250', 4)).toBe(5000);
    // A float would give 0.30000000000000004 × 10 = 3.0000000000000004; exact decimals give 3.
    expect(lineAmount('0.3', 10)).toBe(3);
    expect(lineAmount('999999999999.999999999999', 1)).toBe(1_000_000_000_000);
  });

  it('shows an amount as a unit amount per quantity, and tells whole unit amounts', () => {
    expect(unitAmountOf(1000, 3)).toBe('333.333333333333');
    expect(wholeUnitAmount('12.000')).toBe(12);
    expect(wholeUnitAmount('12.5')).toBeNull();
  });

  it('Given any decimal unit amount and quantity, the rounded amount is within half a unit of the exact product', () => {
    const decimal = fc
      .tuple(fc.bigInt({ min: 0n, max: 999_999_999_999n }), fc.bigInt({ min: 0n, max: 999_999_999_999n }), fc.integer({ min: 0, max: 12 }))
      .map(([whole, fraction, places]) => (places === 0 ? `${whole}` : `${whole}.${String(fraction).padStart(12, '0').slice(0, places)}`));
    fc.assert(
      fc.property(decimal, fc.integer({ min: 0, max: 1000 }), (unit, quantity) => {
        const amount = lineAmount(unit, quantity);
        // Checked with bigints at 12 decimal places: |amount × 10^12 − unit × quantity × 10^12| ≤ 0.5 × 10^12.
        const [whole, fraction = ''] = unit.split('.');
        const scaled = BigInt(whole!) * 10n ** 12n + BigInt(fraction.padEnd(12, '0'));
        const difference = BigInt(amount) * 10n ** 12n - scaled * BigInt(quantity);
        return Number.isSafeInteger(amount) && difference <= 5n * 10n ** 11n && difference > -5n * 10n ** 11n;
      }),
    );
  });

  it('Given any invoice total and customer balance, the balance applied always adds up and never leaves a negative due or a positive balance', () => {
    fc.assert(
      fc.property(fc.integer({ min: -10_000_000, max: 10_000_000 }), fc.integer({ min: -10_000_000, max: 10_000_000 }), (total, balance) => {
        const { amountDue, endingBalance } = applyBalance(total, balance);
        return amountDue + endingBalance === total + balance && amountDue >= 0 && endingBalance <= 0;
      }),
    );
  });

  it('Given any lines, the sum of amounts is exact and refuses what is not an integer amount', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: -1e9, max: 1e9 })), (amounts) => sumAmounts(amounts) === amounts.reduce((a, b) => a + b, 0)));
    expect(() => sumAmounts([1.5])).toThrow(RangeError);
  });
});

describe('the default payment retry schedule (shared/billing/retry-schedule.ts)', () => {
  it('tries eight times within two weeks, then stops', () => {
    let at = 0;
    const tries = [at];
    for (let attempt = 1; ; attempt++) {
      const next = nextPaymentAttempt(attempt, at);
      if (next === null) break;
      tries.push(next);
      at = next;
    }
    expect(tries).toHaveLength(maxAutomaticAttempts);
    expect(tries.at(-1)).toBe(14 * day);
    expect(tries.every((time, i) => i === 0 || time > tries[i - 1]!)).toBe(true);
    expect(nextPaymentAttempt(0, 0)).toBeNull();
  });
});
