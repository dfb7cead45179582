import type { Price } from '#shared/catalogue/catalogue.ts';
import type { OwnedResource, OwnedResourceStore } from '#shared/platform/owned-resource.ts';

export interface SubscriptionItem {
  id: string;
  created: number;
  /** The price as it was when the item was made. */
  price: Price;
  quantity: number;
  metadata: Record<string, string>;
}

export type ProrationDiscounts = 'included' | 'itemized';

export interface BillingMode {
  type: 'classic' | 'flexible';
  prorationDiscounts: ProrationDiscounts | null;
  /** When the current mode was adopted (creation in flexible mode, or the migration); null for classic. */
  updatedAt: number | null;
}

/** A v1 subscription as this service keeps it (no invoicing or payments: it stays `active` until canceled). */
export interface Subscription extends OwnedResource {
  created: number;
  customer: string;
  status: 'active' | 'canceled';
  currency: string;
  items: SubscriptionItem[];
  billingMode: BillingMode;
  billingCycleAnchor: number;
  cancelAtPeriodEnd: boolean;
  canceledAt: number | null;
  endedAt: number | null;
  cancellationDetails: { comment: string | null; feedback: string | null; reason: string | null };
  collectionMethod: 'charge_automatically' | 'send_invoice';
  daysUntilDue: number | null;
  description: string | null;
  metadata: Record<string, string>;
}

export type SubscriptionRepository = OwnedResourceStore<Subscription>;
