import type { ServiceVersion } from './known-versions.ts';

export type WireObject = Record<string, unknown>;

/**
 * One change to the shape of one of our v1 objects, as the reference made it. Serializers render the newest
 * shape; a response, a webhook payload or an event at an older version gets `transform` applied for every
 * change whose `version` is newer than the one asked for (see `render.ts`).
 */
export interface VersionChange {
  /** The first version with the newer shape. */
  version: ServiceVersion;
  /** The `object` value of the resource whose shape changed. */
  resource: string;
  description: string;
  /** The reference's changelog entry that says so: its address and its words. */
  evidence: string;
  /**
   * The object in the shape just before `version`, from the shape at `version`. It must leave an object
   * without the changed fields as it is (a deleted object, an older stored one), and it sees its nested
   * objects in their newest shape (nested objects are rendered after their parent).
   */
  transform: (newer: WireObject) => WireObject;
}

/** The same object with `fields` placed before `key` (or last when it is absent), keeping the others in order. */
function insertBefore(object: WireObject, key: string, fields: WireObject): WireObject {
  if (!(key in object)) return { ...object, ...fields };
  const result: WireObject = {};
  for (const [name, value] of Object.entries(object)) {
    if (name === key) Object.assign(result, fields);
    if (!(name in fields)) result[name] = value;
  }
  return result;
}

/** The same object with `key` replaced, in its place, by what `replacement` makes of its value. */
function replaceField(object: WireObject, key: string, replacement: (value: unknown) => WireObject): WireObject {
  if (!(key in object)) return object;
  const result: WireObject = {};
  for (const [name, value] of Object.entries(object)) {
    if (name === key) Object.assign(result, replacement(value));
    else result[name] = value;
  }
  return result;
}

const without = (object: WireObject, ...keys: string[]): WireObject => Object.fromEntries(Object.entries(object).filter(([name]) => !keys.includes(name)));

/** The decline reasons added at 2024-06-20, by the older value this service shows in their place. */
const olderDeclineReasons: Record<string, string> = {
  card_canceled: 'card_inactive',
  card_expired: 'card_inactive',
  cardholder_blocked: 'cardholder_inactive',
};
const isNewerReason = (reason: unknown): reason is string => typeof reason === 'string' && Object.hasOwn(olderDeclineReasons, reason);

interface BillingModeObject {
  type: string;
  flexible?: unknown;
  updated_at?: number;
}

interface ItemPeriod {
  current_period_start?: unknown;
  current_period_end?: unknown;
}

/**
 * Every change to our objects' shapes from 2020-08-27 to 2026-10-28.endive, newest first. Changes to objects
 * this service does not serve (invoices, charges, checkout…) and changes to request parameters are not listed;
 * nor are additive changes (a new field, a new object), which the reference makes at every version.
 */
export const versionChanges: readonly VersionChange[] = [
  {
    version: '2025-06-30.basil',
    resource: 'subscription',
    description:
      '`billing_mode` is an object `{type, flexible, updated_at}`; before, a string (`classic` / `flexible`) beside `billing_mode_details: {updated_at}`.',
    evidence:
      'https://docs.stripe.com/changelog/basil/2025-06-30/billing-mode-hash ("The billing_mode parameter and field changed from accepting a string value (classic or flexible) to requiring an object with a type field … the separate billing_mode_details field has been removed, and its updated_at property is now included directly in the billing_mode object.")',
    transform: (subscription) =>
      typeof subscription.billing_mode !== 'object' || subscription.billing_mode === null
        ? subscription
        : replaceField(subscription, 'billing_mode', (value) => {
            const mode = value as BillingModeObject;
            return {
              billing_mode: mode.type,
              billing_mode_details:
                mode.updated_at === undefined ? null : { updated_at: mode.updated_at, ...(mode.flexible ? { flexible: mode.flexible } : {}) },
            };
          }),
  },
  {
    version: '2025-03-31.basil',
    resource: 'subscription',
    description:
      '`current_period_start` / `current_period_end` leave the subscription for its items; before, the subscription carries them: the latest item start and the earliest item end (the period every item is in).',
    evidence:
      'https://docs.stripe.com/changelog/basil/2025-03-31/deprecate-subscription-current-period-start-and-end ("current_period_start and current_period_end fields are no longer available on the subscription resource."); the reference\'s subscription list filters still read them as "minimum item current_period_end" and "maximum item current_period_start".',
    transform: (subscription) => {
      const items = (subscription.items as { data?: ItemPeriod[] } | undefined)?.data ?? [];
      const starts = items.map((item) => item.current_period_start).filter((value): value is number => typeof value === 'number');
      const ends = items.map((item) => item.current_period_end).filter((value): value is number => typeof value === 'number');
      if (starts.length === 0 || ends.length === 0 || 'current_period_end' in subscription) return subscription;
      return insertBefore(subscription, 'customer', { current_period_end: Math.min(...ends), current_period_start: Math.max(...starts) });
    },
  },
  {
    version: '2025-03-31.basil',
    resource: 'subscription_item',
    description: 'Subscription items carry `current_period_start` / `current_period_end`; before, they do not (the subscription does).',
    evidence:
      'https://docs.stripe.com/changelog/basil/2025-03-31/deprecate-subscription-current-period-start-and-end ("Subscription items now track their respective billing periods directly instead of as a top-level shared billing period on the subscription resource."); SDK 18.0.0 changelog: "Add support for current_period_end and current_period_start on SubscriptionItem".',
    transform: (item) => without(item, 'current_period_end', 'current_period_start'),
  },
  {
    version: '2025-03-31.basil',
    resource: 'invoice',
    description:
      '`parent` names what made the invoice; before, `subscription` (an id or null), `subscription_details` and `quote` (null here: no quotes) at the top level.',
    evidence:
      'https://docs.stripe.com/changelog/basil/2025-03-31/adds-new-parent-field-to-invoicing-objects ("On the Invoice object, we deprecated the quote, subscription, subscription_details, and subscription_proration_date fields.")',
    transform: (invoice) =>
      replaceField(invoice, 'parent', (value) => {
        const details = (value as { subscription_details?: { subscription: string; metadata: unknown } } | null)?.subscription_details;
        return { quote: null, subscription: details?.subscription ?? null, subscription_details: details ? { metadata: details.metadata } : null };
      }),
  },
  {
    version: '2025-03-31.basil',
    resource: 'invoice',
    description: 'The legacy `discount` field is removed in favour of `discounts`; before, the invoice shows `discount` (null here: no coupons).',
    evidence:
      'SDK 18.0.0 changelog, "Breaking changes due to changes in the Stripe API" (2025-03-31.basil): "Remove support for discount on Invoice and Subscription".',
    transform: (invoice) => ('discount' in invoice || !('discounts' in invoice) ? invoice : insertBefore(invoice, 'discounts', { discount: null })),
  },
  {
    version: '2025-03-31.basil',
    resource: 'invoiceitem',
    description: '`parent` names the subscription an item belongs to; before, `subscription` and `subscription_item` at the top level.',
    evidence:
      'https://docs.stripe.com/changelog/basil/2025-03-31/adds-new-parent-field-to-invoicing-objects ("On the Invoice Item object, we deprecated the subscription_item and subscription fields.")',
    transform: (item) =>
      replaceField(item, 'parent', (value) => {
        const details = (value as { subscription_details?: { subscription: string; subscription_item?: string | null } } | null)?.subscription_details;
        return { subscription: details?.subscription ?? null, subscription_item: details?.subscription_item ?? null };
      }),
  },
  {
    version: '2025-03-31.basil',
    resource: 'line_item',
    description:
      '`parent` says what made an invoice line; before, `type` (`invoiceitem` / `subscription`), `invoice_item`, `subscription`, `subscription_item`, `proration` and `proration_details` at the top level.',
    evidence:
      'https://docs.stripe.com/changelog/basil/2025-03-31/adds-new-parent-field-to-invoicing-objects ("On the Invoice Line Item object, we deprecated the type, subscription, subscription_item, invoice_item, proration, and proration_details fields.")',
    transform: (line) =>
      replaceField(line, 'parent', (value) => {
        const parent = value as {
          type: string;
          invoice_item_details?: { invoice_item: string; proration: boolean; proration_details: unknown; subscription: string | null } | null;
          subscription_item_details?: {
            invoice_item?: string | null;
            proration: boolean;
            proration_details: unknown;
            subscription: string | null;
            subscription_item: string | null;
          } | null;
        };
        const item = parent.invoice_item_details;
        const period = parent.subscription_item_details;
        // A proration's line (its subscription item's, carried by an invoice item) was an `invoiceitem` line before.
        const carriedBy = item?.invoice_item ?? period?.invoice_item ?? null;
        return {
          invoice_item: carriedBy,
          proration: item?.proration ?? period?.proration ?? false,
          proration_details: item?.proration_details ?? period?.proration_details ?? null,
          subscription: item?.subscription ?? period?.subscription ?? null,
          subscription_item: period?.subscription_item ?? null,
          type: carriedBy ? 'invoiceitem' : 'subscription',
        };
      }),
  },
  {
    version: '2025-03-31.basil',
    resource: 'subscription',
    description: 'The legacy `discount` field is removed in favour of `discounts`; before, the subscription shows `discount` (null here: no coupons).',
    evidence:
      'SDK 18.0.0 changelog, "Breaking changes due to changes in the Stripe API" (2025-03-31.basil): "Remove support for discount on Invoice and Subscription".',
    transform: (subscription) =>
      'discount' in subscription || !('discounts' in subscription) ? subscription : insertBefore(subscription, 'discounts', { discount: null }),
  },
  {
    version: '2025-03-31.basil',
    resource: 'price',
    description: '`recurring.aggregate_usage` is removed with legacy usage-based billing; before, `recurring` shows it (null: every price here is licensed).',
    evidence:
      'SDK 18.0.0 changelog, "Breaking changes due to changes in the Stripe API" (2025-03-31.basil): "Remove support for aggregate_usage on PlanCreateParams, Plan, Price.recurring, and PriceCreateParams.recurring".',
    transform: (price) => {
      const recurring = price.recurring as WireObject | null | undefined;
      if (!recurring || 'aggregate_usage' in recurring) return price;
      return { ...price, recurring: { aggregate_usage: null, ...recurring } };
    },
  },
  {
    version: '2025-03-31.basil',
    resource: 'plan',
    description: '`aggregate_usage` is removed with legacy usage-based billing; before, the plan shows it (null: every plan here is licensed).',
    evidence:
      'SDK 18.0.0 changelog, "Breaking changes due to changes in the Stripe API" (2025-03-31.basil): "Remove support for aggregate_usage on PlanCreateParams, Plan, Price.recurring, and PriceCreateParams.recurring".',
    transform: (plan) => ('aggregate_usage' in plan || !('amount' in plan) ? plan : insertBefore(plan, 'amount', { aggregate_usage: null })),
  },
  {
    version: '2025-03-31.basil',
    resource: 'issuing.authorization',
    description: 'An authorization the network let expire is `expired`; before, it is `reversed`.',
    evidence:
      'https://docs.stripe.com/changelog/basil/2025-03-31/issuing-authorizations-expired ("Issuing authorizations expired by Stripe now transition to the expired status instead of the reversed status.")',
    transform: (authorization) => (authorization.status === 'expired' ? { ...authorization, status: 'reversed' } : authorization),
  },
  {
    version: '2024-06-20',
    resource: 'issuing.authorization',
    description:
      'A request declined because its card is canceled or expired, or its cardholder blocked, says `card_canceled`, `card_expired`, `cardholder_blocked` in `request_history[].reason`; before, these values do not exist, and this service shows `card_inactive` (canceled, expired) and `cardholder_inactive` (blocked), the older values for a card or cardholder that cannot be used.',
    evidence:
      'https://docs.stripe.com/changelog/2024-06-20/adds-enum-request-history-reasons-issuing ("Adds new values to the Issuing Authorization request_history.reason enum: card_canceled, card_expired, cardholder_blocked, insecure_authorization_method, pin_blocked"); which older value each stood for is not documented: the mapping is this service\'s choice.',
    transform: (authorization) => {
      const history = authorization.request_history;
      if (!Array.isArray(history) || !history.some((request) => isNewerReason((request as WireObject).reason))) return authorization;
      return {
        ...authorization,
        request_history: history.map((request) => {
          const reason = (request as WireObject).reason as string;
          return isNewerReason(reason) ? { ...(request as WireObject), reason: olderDeclineReasons[reason] } : request;
        }),
      };
    },
  },
  {
    version: '2024-04-10',
    resource: 'product',
    description: '`features` is renamed `marketing_features`; before, the same list is `features`.',
    evidence:
      'https://docs.stripe.com/changelog/2024-04-10/renames-features-attribute-product-object ("Renames features to marketing_features on the Product object.")',
    transform: (product) => replaceField(product, 'marketing_features', (features) => ({ features })),
  },
];
