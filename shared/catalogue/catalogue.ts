import type { Outbox } from '#shared/events/event.ts';
import type { OwnedResource, OwnedResourceStore } from '#shared/platform/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';

export interface PackageDimensions {
  height: number;
  length: number;
  weight: number;
  width: number;
}

/** A v1 product as the service keeps it. */
export interface Product extends OwnedResource {
  created: number;
  updated: number;
  name: string;
  active: boolean;
  description: string | null;
  metadata: Record<string, string>;
  unitLabel: string | null;
  url: string | null;
  statementDescriptor: string | null;
  taxCode: string | null;
  images: string[];
  defaultPrice: string | null;
  marketingFeatures: Array<{ name: string }>;
  packageDimensions: PackageDimensions | null;
  shippable: boolean | null;
  /**
   * How many prices use the product: every new price adds one in its own transaction (with the product's
   * version), so a delete conditional on the version read cannot miss a price made meanwhile. Null on
   * products stored before prices were counted.
   */
  priceCount: number | null;
}

/** How often a recurring price bills: every `intervalCount` `interval`s. */
export interface Cadence {
  interval: 'day' | 'week' | 'month' | 'year';
  intervalCount: number;
}

export interface Recurring extends Cadence {
  /** `licensed`: billed for a quantity in advance; `metered`: billed in arrears for the usage its meter counted. */
  usageType: 'licensed' | 'metered';
  /** The meter a metered price bills (null for licensed prices). */
  meter: string | null;
}

export type TaxBehavior = 'exclusive' | 'inclusive' | 'unspecified';

/**
 * One tier of a tiered price: the units up to and including `upTo` (null: every unit above the tier before,
 * the reference's `inf`), each at `unitAmountDecimal`, plus `flatAmountDecimal` once for the tier. Amounts
 * are exact decimal strings of the currency's smallest unit; the integer forms are the reference's
 * `unit_amount` / `flat_amount` (null when not given, or not whole).
 */
export interface Tier {
  upTo: number | null;
  unitAmount: number | null;
  unitAmountDecimal: string | null;
  flatAmount: number | null;
  flatAmountDecimal: string | null;
}

/** `transform_quantity`: the quantity divided by `divideBy`, rounded `up` or `down`, before it is priced. */
export interface TransformQuantity {
  divideBy: number;
  round: 'up' | 'down';
}

export type BillingScheme = 'per_unit' | 'tiered';
export type TiersMode = 'graduated' | 'volume';

/** The amount of a price in one more currency (`currency_options`): a unit amount (per_unit) or tiers (tiered, in the price's `tiersMode`). */
export interface CurrencyOption {
  unitAmount: number | null;
  unitAmountDecimal: string | null;
  tiers: Tier[] | null;
  taxBehavior: TaxBehavior;
}

/**
 * A v1 price. `unitAmountDecimal` is the exact amount in minor units, `unitAmount` its integer form when
 * whole; both null for a tiered price, whose amount is its `tiers` in `tiersMode` (shared/billing/pricing.ts).
 */
export interface Price extends OwnedResource {
  created: number;
  product: string;
  active: boolean;
  currency: string;
  unitAmount: number | null;
  unitAmountDecimal: string | null;
  billingScheme: BillingScheme;
  /** Set exactly when `billingScheme` is `tiered`. */
  tiersMode: TiersMode | null;
  /** Ascending `upTo`, the last one null; set exactly when `billingScheme` is `tiered`. */
  tiers: Tier[] | null;
  /** Only on per_unit prices. */
  transformQuantity: TransformQuantity | null;
  recurring: Recurring | null;
  /** `recurring` when `recurring` is set (kept as its own attribute so that lists can filter on it). */
  type: 'one_time' | 'recurring';
  nickname: string | null;
  lookupKey: string | null;
  taxBehavior: TaxBehavior;
  metadata: Record<string, string>;
  /** Amounts in other currencies, by lowercase currency code (never the price's own `currency`). */
  currencyOptions: Record<string, CurrencyOption>;
}

/** A lookup key changing hands: `from` the price that holds it now (null: free), `to` the one that takes it (null: released). */
export interface LookupKeyMove {
  key: string;
  from: string | null;
  to: string | null;
}

/**
 * One change of the catalogue, written in one transaction with its outbox. Every part is conditional on
 * what the service read: new objects on being new, changed ones on their version, a deleted product on
 * its version (which every new price of it moves), each new price on its product existing (and counted
 * on it), each lookup key on its holder.
 */
export interface CatalogueChange {
  scope: Scope;
  newProducts?: Product[];
  changedProducts?: Product[];
  deletedProduct?: Product;
  /** Prices of products in `newProducts` must be counted in those products' `priceCount` by the caller. */
  newPrices?: Price[];
  changedPrices?: Price[];
  lookupKeys?: LookupKeyMove[];
  /** Objects read and not changed that the change relies on: each must still be at the version read. */
  unchangedProducts?: Product[];
  unchangedPrices?: Price[];
}

/** Storage of products, prices and price lookup keys. */
export interface CatalogueRepository {
  products: Pick<OwnedResourceStore<Product>, 'get' | 'list'>;
  prices: Pick<OwnedResourceStore<Price>, 'get' | 'list'>;
  /** The price that holds a lookup key, if any. */
  lookupKeyHolder(scope: Scope, key: string): Promise<string | undefined>;
  /** Writes the change and its outbox in one transaction; false when any of its conditions failed (read again and retry). */
  commit(change: CatalogueChange, outbox?: Outbox): Promise<boolean>;
}

/**
 * Prices as subscriptions use them: `create` stores a price of an existing product and counts it on the
 * product (false when the product does not exist).
 */
export type PriceRepository = Pick<OwnedResourceStore<Price>, 'get' | 'create'>;

/**
 * A price as kept, with the fields of tiered pricing filled in: a copy of a price kept inside a subscription
 * item or an invoice item before tiers existed has none of them, and is a plain per_unit price.
 */
export function completePrice(price: Price): Price {
  if (price.billingScheme !== undefined) return price;
  return { ...price, billingScheme: 'per_unit', tiersMode: null, tiers: null, transformQuantity: null };
}
