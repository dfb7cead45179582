import type { Price } from '#shared/catalogue/catalogue.ts';
import type { Outbox } from '#shared/events/event.ts';
import type { OwnedResource, OwnedResourceStore } from '#shared/platform/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';

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

/** The items a write of a subscription adds and removes (their ids), so their pointers change with it. */
export interface SubscriptionItemsChange {
  added: string[];
  removed: string[];
}

export interface SubscriptionRepository extends OwnedResourceStore<Subscription> {
  /** Writes `next` on the version before, with the pointers of the items added and removed; false when someone wrote first. */
  replaceItems(next: Subscription, change: SubscriptionItemsChange, outbox?: Outbox): Promise<boolean>;
  /** The subscription that holds the item `itemId`, if any (in `scope`). */
  findByItem(scope: Scope, itemId: string): Promise<Subscription | undefined>;
}
