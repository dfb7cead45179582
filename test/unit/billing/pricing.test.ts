import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Price, Tier } from '#shared/catalogue/catalogue.ts';
import { lineAmount } from '#shared/billing/money.ts';
import {
  exactAmount,
  perUnitTerms,
  type PriceTerms,
  priceAmount,
  proratedPriceAmount,
  shownUnitAmount,
  termsOf,
  transformedQuantity,
} from '#shared/billing/pricing.ts';

const tier = (upTo: number | null, unit: string | null, flat: string | null = null): Tier => ({
  upTo,
  unitAmount: unit === null ? null : Number(unit),
  unitAmountDecimal: unit,
  flatAmount: flat === null ? null : Number(flat),
  flatAmountDecimal: flat,
});
const tiered = (mode: 'graduated' | 'volume', tiers: Tier[]): PriceTerms => ({
  billingScheme: 'tiered',
  tiersMode: mode,
  tiers,
  unitAmountDecimal: null,
  transformQuantity: null,
});

// The reference's tiered-pricing guide (Typographic's fonts): 1-5 at 7 USD, 6-10 at 6.50 USD, 11+ at 6 USD.
const fonts = [tier(5, '700'), tier(10, '650'), tier(null, '600')];
// The guide's earlier edition: 1-5 at $5, 6-10 at $4, 11-15 at $3, 16-20 at $2, 21+ at $1.
const fiveTiers = [tier(5, '500'), tier(10, '400'), tier(15, '300'), tier(20, '200'), tier(null, '100')];

describe('the amount of a price for a quantity (shared/billing/pricing.ts)', () => {
  it("Given the guide's volume tiers, when priced, then the whole quantity is at the unit amount of its tier: 1 → 7, 5 → 35, 6 → 39, 20 → 120, 25 → 150 USD", () => {
    const volume = tiered('volume', fonts);
    expect([1, 5, 6, 20, 25].map((quantity) => priceAmount(volume, quantity))).toEqual([700, 3500, 3900, 12_000, 15_000]);
  });

  it("Given the guide's graduated tiers, when priced, then each tier's units are at its own amount: 5 fonts are 35 USD as with volume, 6 are 35 + 6.50", () => {
    const graduated = tiered('graduated', fonts);
    expect([1, 5, 6, 10, 20, 25].map((quantity) => priceAmount(graduated, quantity))).toEqual([700, 3500, 4150, 6750, 12_750, 15_750]);
  });

  it("Given the guide's earlier five tiers, when priced, then volume gives 5, 25, 24, 40, 25 dollars for 1, 5, 6, 20, 25 and graduated gives 29 dollars for 6", () => {
    expect([1, 5, 6, 20, 25].map((quantity) => priceAmount(tiered('volume', fiveTiers), quantity))).toEqual([500, 2500, 2400, 4000, 2500]);
    expect(priceAmount(tiered('graduated', fiveTiers), 6)).toBe(2900);
  });

  it('Given flat amounts on tiers, when priced, then graduated adds the flat amount of every tier reached and volume only that of its tier', () => {
    // A base fee of 20 USD for the first 10 units, then 1.50 each with a flat 5 USD once past 10.
    const tiers = [tier(10, null, '2000'), tier(null, '150', '500')];
    expect(priceAmount(tiered('graduated', tiers), 10)).toBe(2000);
    expect(priceAmount(tiered('graduated', tiers), 12)).toBe(2000 + 500 + 300);
    expect(priceAmount(tiered('volume', tiers), 12)).toBe(12 * 150 + 500);
    expect(priceAmount(tiered('volume', tiers), 3)).toBe(2000);
  });

  it('Given a quantity of 0, when priced, then it falls in the first tier: its flat amount is charged (a graduated or volume base fee), nothing more', () => {
    const tiers = [tier(10, '100', '2000'), tier(null, '50', '700')];
    expect(priceAmount(tiered('graduated', tiers), 0)).toBe(2000);
    expect(priceAmount(tiered('volume', tiers), 0)).toBe(2000);
    expect(priceAmount(tiered('graduated', fonts), 0)).toBe(0);
  });

  it('Given decimal tier amounts, when priced, then the exact sum is rounded once, half away from zero', () => {
    // 3 × 0.5 + 1 × 0.25 = 1.75 → 2.
    const tiers = [tier(3, '0.5'), tier(null, '0.25')];
    expect(exactAmount(tiered('graduated', tiers), 4).toFixed()).toBe('1.75');
    expect(priceAmount(tiered('graduated', tiers), 4)).toBe(2);
    // Three tiers of about a third: exactly 1 in all, where rounding each tier first would give 0.
    const thirds = [tier(1, '0.333333333333'), tier(2, '0.333333333333'), tier(null, '0.333333333334')];
    expect(priceAmount(tiered('graduated', thirds), 3)).toBe(1);
  });

  it('Given transform_quantity, when priced, then the quantity is divided and rounded up or down before the unit amount applies', () => {
    const up: PriceTerms = { ...perUnitTerms('1000'), transformQuantity: { divideBy: 1000, round: 'up' } };
    const down: PriceTerms = { ...perUnitTerms('1000'), transformQuantity: { divideBy: 1000, round: 'down' } };
    expect(priceAmount(up, 1500)).toBe(2000);
    expect(priceAmount(down, 1500)).toBe(1000);
    expect(priceAmount(up, 0)).toBe(0);
    expect(priceAmount(up, 1000)).toBe(1000);
    expect(transformedQuantity(7, { divideBy: 7, round: 'down' })).toBe(1);
    expect(transformedQuantity(7, null)).toBe(7);
  });

  it('Given a line of a price, when its unit amount is shown, then only a plain per_unit price shows one', () => {
    expect(shownUnitAmount(perUnitTerms('12.5'))).toBe('12.5');
    expect(shownUnitAmount(tiered('graduated', fonts))).toBeNull();
    expect(shownUnitAmount({ ...perUnitTerms('1'), transformQuantity: { divideBy: 2, round: 'up' } })).toBeNull();
  });

  it('Given a price kept inside a subscription before tiers existed, or a currency option, when its terms are read, then they are per_unit, or the option’s own tiers', () => {
    const stored = {
      id: 'price_old',
      currency: 'usd',
      unitAmountDecimal: '250',
      currencyOptions: { eur: { unitAmount: 200, unitAmountDecimal: '200', tiers: null, taxBehavior: 'unspecified' } },
    } as unknown as Price;
    expect(termsOf(stored)).toEqual(perUnitTerms('250'));
    expect(termsOf(stored, 'eur')).toEqual(perUnitTerms('200'));
    expect(() => termsOf(stored, 'gbp')).toThrow(RangeError);
    const withTiers = {
      ...stored,
      billingScheme: 'tiered',
      tiersMode: 'volume',
      tiers: fonts,
      unitAmountDecimal: null,
      transformQuantity: null,
      currencyOptions: { eur: { unitAmount: null, unitAmountDecimal: null, tiers: [tier(null, '90')], taxBehavior: 'unspecified' } },
    } as Price;
    expect(priceAmount(termsOf(withTiers), 6)).toBe(3900);
    expect(priceAmount(termsOf(withTiers, 'eur'), 6)).toBe(540);
  });

  it('Given a proration of a tiered price, when a fraction is taken, then it is that fraction of the full tiered amount, rounded once', () => {
    // 12 seats graduated: 3500 + 3250 + 1200 = 7950; a third of it is 2650.
    expect(proratedPriceAmount(tiered('graduated', fonts), 12, 1, 3)).toBe(2650);
    expect(proratedPriceAmount(tiered('graduated', fonts), 12, 1, 1)).toBe(priceAmount(tiered('graduated', fonts), 12));
  });

  it('Given a quantity that is not a whole non-negative number, when priced, then it is refused', () => {
    expect(() => priceAmount(perUnitTerms('1'), -1)).toThrow(RangeError);
    expect(() => priceAmount(perUnitTerms('1'), 1.5)).toThrow(RangeError);
    expect(() => priceAmount(tiered('graduated', []), 1)).toThrow(RangeError);
  });
});

/** Tiers with ascending bounds (the last `inf`), non-negative unit and flat amounts, some absent. */
const amount = fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 100_000 }).map(String), fc.constantFrom('0.5', '12.345678901234', '0.000000000001'));
const tiersArbitrary = fc.array(fc.tuple(fc.integer({ min: 1, max: 50 }), amount, amount), { minLength: 1, maxLength: 6 }).map((steps) => {
  let upTo = 0;
  return steps.map(([step, unit, flat], index) => {
    upTo += step;
    return tier(index === steps.length - 1 ? null : upTo, unit, flat);
  });
});
const quantity = fc.integer({ min: 0, max: 400 });
const unitOf = (found: Tier) => Number(found.unitAmountDecimal ?? 0);

describe('pricing properties', () => {
  it('Given any graduated tiers, when the quantity grows by one, then the amount never falls', () => {
    fc.assert(
      fc.property(tiersArbitrary, quantity, (tiers, q) => {
        const terms = tiered('graduated', tiers);
        expect(exactAmount(terms, q + 1).gte(exactAmount(terms, q))).toBe(true);
      }),
    );
  });

  it('Given any graduated tiers without flat amounts, when priced, then the amount is the sum over each unit of the unit amount of the tier it falls in', () => {
    fc.assert(
      fc.property(tiersArbitrary, quantity, (given, q) => {
        const tiers = given.map((found) => ({ ...found, flatAmount: null, flatAmountDecimal: null }));
        let expected = 0;
        for (let unit = 1; unit <= q; unit += 1) expected += unitOf(tiers.find((found) => found.upTo === null || unit <= found.upTo)!);
        expect(exactAmount(tiered('graduated', tiers), q).toNumber()).toBeCloseTo(expected, 6);
      }),
    );
  });

  it('Given any volume tiers, when priced, then the amount is the unit amount of the tier the quantity falls in × the quantity, plus that tier’s flat amount', () => {
    fc.assert(
      fc.property(tiersArbitrary, quantity, (tiers, q) => {
        const found = tiers.find((candidate) => candidate.upTo === null || q <= candidate.upTo)!;
        const expected = unitOf(found) * q + Number(found.flatAmountDecimal ?? 0);
        expect(exactAmount(tiered('volume', tiers), q).toNumber()).toBeCloseTo(expected, 6);
      }),
    );
  });

  it('Given any per_unit amount and quantity, when priced, then the amount is lineAmount’s unit × quantity, and with a transform it is that of the transformed quantity', () => {
    const unit = fc.oneof(
      fc.integer({ min: 0, max: 99_999_999 }).map(String),
      fc.tuple(fc.integer({ min: 0, max: 99_999 }), fc.integer({ min: 0, max: 999_999_999_999 })).map(([a, b]) => `${a}.${String(b).padStart(12, '0')}`),
    );
    fc.assert(
      fc.property(
        unit,
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.constantFrom('up' as const, 'down' as const),
        (decimal, q, divideBy, round) => {
          expect(priceAmount(perUnitTerms(decimal), q)).toBe(lineAmount(decimal, q));
          const transformed = round === 'up' ? Math.ceil(q / divideBy) : Math.floor(q / divideBy);
          expect(priceAmount({ ...perUnitTerms(decimal), transformQuantity: { divideBy, round } }, q)).toBe(lineAmount(decimal, transformed));
        },
      ),
    );
  });
});
