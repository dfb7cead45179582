import type { OwnedResource, OwnedResourceStore } from '#shared/owned-resource.ts';

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
}

export interface Recurring {
  interval: 'day' | 'week' | 'month' | 'year';
  intervalCount: number;
}

/** A v1 price. `unitAmountDecimal` is the exact amount in minor units; `unitAmount` its integer form when whole. */
export interface Price extends OwnedResource {
  created: number;
  product: string;
  active: boolean;
  currency: string;
  unitAmount: number | null;
  unitAmountDecimal: string;
  recurring: Recurring | null;
  /** `recurring` when `recurring` is set (kept as its own attribute so that lists can filter on it). */
  type: 'one_time' | 'recurring';
  nickname: string | null;
  lookupKey: string | null;
  taxBehavior: 'exclusive' | 'inclusive' | 'unspecified';
  metadata: Record<string, string>;
}

export type ProductRepository = OwnedResourceStore<Product>;
export type PriceRepository = OwnedResourceStore<Price>;
