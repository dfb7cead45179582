import type { Decimal } from 'decimal.js';
import { type BillingScheme, completePrice, type Price, type Tier, type TiersMode, type TransformQuantity } from '#shared/catalogue/catalogue.ts';
import { Exact, roundAmount } from './money.ts';

/**
 * What a price charges for a quantity, as the reference computes it, pure. Every line amount made from a
 * price (a subscription's period, a proration, an invoice item of a price) comes from here:
 * - `per_unit`: the unit amount × the quantity, the quantity first divided by `transform_quantity.divide_by`
 *   and rounded `up` or `down` to a whole number when the price has one;
 * - `tiered`, `graduated`: each tier's unit amount × the units that fall in it, plus the flat amount of every
 *   tier the quantity reaches (a quantity of 0 reaches the first tier: its flat amount is charged);
 * - `tiered`, `volume`: the whole quantity × the unit amount of the one tier it falls in, plus that tier's
 *   flat amount (0 falls in the first tier).
 * The amount is exact (decimal.js, shared/billing/money.ts `Exact`) until it is rounded once, half away from
 * zero, to an integer amount of the currency's smallest unit.
 */

/** The part of a price (or of one of its currency options, with the price's scheme) that decides an amount. */
export interface PriceTerms {
  billingScheme: BillingScheme;
  tiersMode: TiersMode | null;
  tiers: readonly Tier[] | null;
  unitAmountDecimal: string | null;
  transformQuantity: TransformQuantity | null;
}

/**
 * The terms of `price` in `currency` (its own, or one of its `currency_options`). A copy of a price kept
 * inside a subscription or an invoice item before tiers existed has none of the new fields: it is per_unit.
 */
export function termsOf(stored: Price, currency: string = stored.currency): PriceTerms {
  const price = completePrice(stored);
  const option = currency === price.currency ? undefined : price.currencyOptions[currency];
  if (currency !== price.currency && !option) throw new RangeError(`The price ${price.id} has no amount in ${currency}.`);
  const tiered = price.billingScheme === 'tiered';
  return {
    billingScheme: tiered ? 'tiered' : 'per_unit',
    tiersMode: tiered ? price.tiersMode : null,
    tiers: tiered ? (option ? option.tiers : price.tiers) : null,
    unitAmountDecimal: tiered ? null : option ? option.unitAmountDecimal : price.unitAmountDecimal,
    transformQuantity: tiered ? null : price.transformQuantity,
  };
}

/** The quantity a per_unit price charges for: divided by `divideBy` and rounded `up` or `down` (as given without a transform). */
export function transformedQuantity(quantity: number, transform: TransformQuantity | null): number {
  if (!transform) return quantity;
  const divided = new Exact(quantity).dividedBy(transform.divideBy);
  return (transform.round === 'up' ? divided.ceil() : divided.floor()).toNumber();
}

const amountOrZero = (decimal: string | null): Decimal => new Exact(decimal ?? 0);

/** The tier a volume-priced quantity falls in: the first whose `upTo` holds it (the last, `inf`, holds every quantity). */
function volumeTier(tiers: readonly Tier[], quantity: number): Tier {
  const tier = tiers.find((candidate) => candidate.upTo === null || quantity <= candidate.upTo) ?? tiers[tiers.length - 1];
  if (!tier) throw new RangeError('A tiered price needs at least one tier.');
  return tier;
}

/** The exact (unrounded) amount of `quantity` under `terms`. */
export function exactAmount(terms: PriceTerms, quantity: number): Decimal {
  if (!Number.isSafeInteger(quantity) || quantity < 0) throw new RangeError(`Not a quantity: ${quantity}`);
  if (terms.billingScheme === 'per_unit') {
    if (terms.unitAmountDecimal === null) throw new RangeError('A per_unit price needs a unit amount.');
    return new Exact(terms.unitAmountDecimal).times(transformedQuantity(quantity, terms.transformQuantity));
  }
  const tiers = terms.tiers ?? [];
  if (tiers.length === 0) throw new RangeError('A tiered price needs at least one tier.');
  if (terms.tiersMode === 'volume') {
    const tier = volumeTier(tiers, quantity);
    return amountOrZero(tier.unitAmountDecimal).times(quantity).plus(amountOrZero(tier.flatAmountDecimal));
  }
  let total = new Exact(0);
  let below = 0;
  for (const [index, tier] of tiers.entries()) {
    // A tier is reached when some unit falls in it; the first is reached by every quantity, 0 included.
    if (index > 0 && quantity <= below) break;
    const top = tier.upTo === null ? quantity : Math.min(quantity, tier.upTo);
    const units = Math.max(0, top - below);
    total = total.plus(amountOrZero(tier.unitAmountDecimal).times(units)).plus(amountOrZero(tier.flatAmountDecimal));
    if (tier.upTo === null) break;
    below = tier.upTo;
  }
  return total;
}

/** The integer amount of `quantity` under `terms`, rounded once, half away from zero. */
export function priceAmount(terms: PriceTerms, quantity: number): number {
  return roundAmount(exactAmount(terms, quantity));
}

/**
 * `numerator / denominator` of the amount of `quantity` (a proration: the seconds left of a period over its
 * length), from the exact amount, rounded once: for a per_unit price exactly `unit × quantity × fraction`, for
 * a tiered one the fraction of its full tiered amount for that quantity.
 */
export function proratedPriceAmount(terms: PriceTerms, quantity: number, numerator: number, denominator: number): number {
  if (!(denominator > 0)) throw new RangeError('A fraction needs a positive denominator.');
  return roundAmount(exactAmount(terms, quantity).times(numerator).dividedBy(denominator));
}

/** The terms of a bare unit amount (an invoice item's `unit_amount_decimal`, no price): per_unit, untransformed. */
export const perUnitTerms = (unitAmountDecimal: string): PriceTerms => ({
  billingScheme: 'per_unit',
  tiersMode: null,
  tiers: null,
  unitAmountDecimal,
  transformQuantity: null,
});

/**
 * The unit amount an invoice line (or invoice item) of a price shows: the price's own for a plain per_unit
 * price, null when the amount is not unit × quantity (tiers, or a `transform_quantity`), as the reference's
 * tiered price leaves its `unit_amount_decimal` null.
 */
export const shownUnitAmount = (terms: PriceTerms): string | null =>
  terms.billingScheme === 'per_unit' && terms.transformQuantity === null ? terms.unitAmountDecimal : null;
