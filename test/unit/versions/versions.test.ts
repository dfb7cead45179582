import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Price, Product } from '#shared/catalogue/catalogue.ts';
import { serializePlan, serializePrice, serializeProduct } from '#shared/catalogue/serializer.ts';
import { previousAttributes } from '#shared/events/changes.ts';
import { snapshotDataAt } from '#shared/events/versions.ts';
import { serializeSubscription } from '#shared/subscriptions/serializer.ts';
import { type BillingMode, completeStored, type Subscription } from '#shared/subscriptions/subscription.ts';
import { versionChanges } from '#shared/versions/changes.ts';
import { defaultServiceVersion, isKnownVersion, knownVersions, latestServiceVersion, versionPosition } from '#shared/versions/known-versions.ts';
import { renderAtVersion, rendersDifferently } from '#shared/versions/render.ts';

type Wire = Record<string, any>;

const scope = { accountId: 'acct_1', livemode: false };
const day = 86_400_000;
const anchor = Date.UTC(2026, 0, 10);
const now = Date.UTC(2026, 1, 20);

const priceOf = (id: string, interval: 'month' | 'year' | 'week'): Price => ({
  id,
  scope,
  version: 1,
  created: anchor - day,
  product: 'prod_1',
  active: true,
  currency: 'usd',
  unitAmount: 1000,
  unitAmountDecimal: '1000',
  billingScheme: 'per_unit',
  tiersMode: null,
  tiers: null,
  transformQuantity: null,
  recurring: { interval, intervalCount: 1, usageType: 'licensed', meter: null },
  type: 'recurring',
  nickname: null,
  lookupKey: null,
  taxBehavior: 'unspecified',
  metadata: {},
  currencyOptions: {},
});

const subscriptionWith = (
  billingMode: BillingMode,
  intervals: Array<'month' | 'year' | 'week'> = ['month'],
  metadata: Record<string, string> = {},
): Subscription =>
  // As an older version stored it, completed with the period around `now`.
  completeStored(
    {
      id: 'sub_1',
      scope,
      version: 1,
      created: anchor,
      customer: 'cus_1',
      status: 'active',
      currency: 'usd',
      items: intervals.map((interval, index) => ({
        id: `si_${index}`,
        created: anchor,
        price: priceOf(`price_${index}`, interval),
        quantity: 1,
        metadata: {},
      })),
      billingMode,
      billingCycleAnchor: anchor,
      cancelAtPeriodEnd: false,
      canceledAt: null,
      endedAt: null,
      cancellationDetails: { comment: null, feedback: null, reason: null },
      collectionMethod: 'charge_automatically',
      daysUntilDue: null,
      description: null,
      metadata,
    } as Subscription,
    now,
  );

const product: Product = {
  id: 'prod_1',
  scope,
  version: 1,
  created: anchor,
  updated: anchor,
  name: 'Plan',
  active: true,
  description: null,
  metadata: {},
  unitLabel: null,
  url: null,
  statementDescriptor: null,
  taxCode: null,
  images: [],
  defaultPrice: null,
  marketingFeatures: [{ name: 'Fast' }],
  packageDimensions: null,
  shippable: null,
  priceCount: 1,
};

const classic: BillingMode = { type: 'classic', prorationDiscounts: null, updatedAt: null };
const flexible: BillingMode = { type: 'flexible', prorationDiscounts: 'itemized', updatedAt: anchor + 3 * day };
const newest = (subscription: Subscription): Wire => serializeSubscription(subscription) as Wire;
const seconds = (time: number) => Math.floor(time / 1000);

/** The versions between which no declared change lies render alike: one representative per stretch. */
const changeBoundaries = [...new Set(versionChanges.map((change) => change.version))];

describe('the declared chain of version changes', () => {
  it('lists each change once, newest first, at a known version, with a description and its evidence', () => {
    const positions = versionChanges.map((change) => versionPosition(change.version));
    expect(positions).toEqual([...positions].sort((a, b) => b - a));
    for (const change of versionChanges) {
      expect(isKnownVersion(change.version)).toBe(true);
      expect(change.version >= '2020-08-27').toBe(true);
      expect(change.description.length).toBeGreaterThan(20);
      expect(change.evidence).toMatch(/https:\/\/docs\.stripe\.com\/changelog\/|SDK \d+\.\d+\.\d+ changelog/);
    }
    expect(new Set(versionChanges.map((change) => `${change.version} ${change.resource} ${change.description}`)).size).toBe(versionChanges.length);
  });

  it('knows the 129 dated versions the reference accepts, oldest first, the SDK default last', () => {
    expect(knownVersions).toHaveLength(129);
    expect(knownVersions[0]).toBe('2011-01-01');
    expect(knownVersions.at(-1)).toBe(latestServiceVersion);
    expect([...knownVersions].map((version) => version.slice(0, 10))).toEqual([...knownVersions].map((version) => version.slice(0, 10)).sort());
    expect(() => versionPosition('2099-01-01')).toThrow();
  });

  it('renders the newest shape unchanged, the very same object, at every version from the newest change on', () => {
    const subscription = newest(subscriptionWith(flexible));
    for (const version of knownVersions.slice(versionPosition(changeBoundaries[0]!))) {
      expect(rendersDifferently(version)).toBe(false);
      expect(renderAtVersion(subscription, version)).toBe(subscription);
    }
  });
});

describe('a subscription at older versions', () => {
  it('at 2022-11-15 carries current_period_start/end (the period every item is in), items without theirs, discount, and the string billing_mode', () => {
    // Given a flexible subscription with a monthly and a weekly item (the weekly period ends first)
    const subscription = newest(subscriptionWith(flexible, ['month', 'week']));
    const [monthly, weekly] = subscription.items.data as Wire[];

    // When it is rendered for stripe-python 5.0.0's pinned version
    const old = renderAtVersion(subscription, '2022-11-15') as Wire;

    // Then it has the pre-basil shape, fields in the reference's order
    expect(old.current_period_start).toBe(Math.max(monthly!.current_period_start, weekly!.current_period_start));
    expect(old.current_period_end).toBe(weekly!.current_period_end);
    expect(old.current_period_end).toBeLessThan(monthly!.current_period_end);
    const keys = Object.keys(old);
    expect(keys.slice(keys.indexOf('currency'), keys.indexOf('currency') + 4)).toEqual(['currency', 'current_period_end', 'current_period_start', 'customer']);
    expect(keys.slice(keys.indexOf('description'), keys.indexOf('description') + 3)).toEqual(['description', 'discount', 'discounts']);
    expect(old.discount).toBeNull();
    expect(old.billing_mode).toBe('flexible');
    expect(old.billing_mode_details).toEqual({ updated_at: seconds(anchor + 3 * day), flexible: { proration_discounts: 'itemized' } });
    for (const item of old.items.data as Wire[]) {
      expect(item).not.toHaveProperty('current_period_start');
      expect(item).not.toHaveProperty('current_period_end');
      expect(item.price.recurring).toMatchObject({ aggregate_usage: null });
      expect(Object.keys(item.price.recurring)[0]).toBe('aggregate_usage');
      expect(item.plan).toMatchObject({ aggregate_usage: null });
      expect(Object.keys(item.plan).indexOf('aggregate_usage')).toBe(Object.keys(item.plan).indexOf('amount') - 1);
    }
    // And the input is left as it was
    expect(subscription).toEqual(newest(subscriptionWith(flexible, ['month', 'week'])));
  });

  it("at the default version (2025-05-28.basil) has basil's periods on items and the spec's string billing_mode", () => {
    const subscription = newest(subscriptionWith(classic));
    const atDefault = renderAtVersion(subscription, defaultServiceVersion) as Wire;
    expect(atDefault).toMatchObject({ billing_mode: 'classic', billing_mode_details: null });
    expect(atDefault).not.toHaveProperty('current_period_end');
    expect(atDefault).not.toHaveProperty('discount');
    expect(atDefault.items.data[0]).toMatchObject({ current_period_start: seconds(Date.UTC(2026, 1, 10)), current_period_end: seconds(Date.UTC(2026, 2, 10)) });
    expect(atDefault.items.data[0].price.recurring).not.toHaveProperty('aggregate_usage');
    expect(Object.keys(atDefault)).toEqual(
      Object.keys(subscription).flatMap((key) => (key === 'billing_mode' ? ['billing_mode', 'billing_mode_details'] : [key])),
    );
  });

  it('renders the same at every version between two declared changes, and differently across one', () => {
    const subscription = newest(subscriptionWith(flexible, ['month', 'year']));
    const stretchOf = (version: string) => changeBoundaries.filter((boundary) => versionPosition(boundary) > versionPosition(version)).length;
    const versions = fc.constantFrom(...knownVersions);
    fc.assert(
      fc.property(versions, versions, (a, b) => {
        const same = JSON.stringify(renderAtVersion(subscription, a)) === JSON.stringify(renderAtVersion(subscription, b));
        const subscriptionChangesBetween = versionChanges.some(
          (change) =>
            ['subscription', 'subscription_item', 'price', 'plan'].includes(change.resource) &&
            Math.min(versionPosition(a), versionPosition(b)) < versionPosition(change.version) &&
            versionPosition(change.version) <= Math.max(versionPosition(a), versionPosition(b)),
        );
        expect(same).toBe(!subscriptionChangesBetween);
        if (stretchOf(a) === stretchOf(b)) expect(same).toBe(true);
      }),
    );
  });
});

describe('other objects at older versions', () => {
  it("renames a product's marketing_features to features, in place, before 2024-04-10", () => {
    const wire = serializeProduct(product) as Wire;
    const old = renderAtVersion(wire, '2023-10-16') as Wire;
    expect(old.features).toEqual([{ name: 'Fast' }]);
    expect(old).not.toHaveProperty('marketing_features');
    expect(Object.keys(old)).toEqual(Object.keys(wire).map((key) => (key === 'marketing_features' ? 'features' : key)));
    expect(renderAtVersion(wire, '2024-04-10')).toEqual(wire);
  });

  it('shows an expired issuing authorization as reversed before 2025-03-31.basil, and leaves other statuses alone', () => {
    const authorization = { id: 'iauth_1', object: 'issuing.authorization', amount: 100, status: 'expired' };
    expect(renderAtVersion(authorization, '2025-02-24.acacia')).toEqual({ ...authorization, status: 'reversed' });
    expect(renderAtVersion(authorization, '2025-03-31.basil')).toEqual(authorization);
    expect(renderAtVersion({ ...authorization, status: 'pending' }, '2022-11-15')).toEqual({ ...authorization, status: 'pending' });
  });

  it('shows the decline reasons added at 2024-06-20 as the older values before it, and other reasons as they are', () => {
    const request = (reason: string) => ({ amount: 100, approved: reason === 'card_active', reason });
    const authorization = {
      id: 'iauth_1',
      object: 'issuing.authorization',
      status: 'closed',
      request_history: ['card_canceled', 'card_expired', 'cardholder_blocked', 'card_active', 'constructor'].map(request),
    };
    expect((renderAtVersion(authorization, '2024-04-10') as Wire).request_history.map((entry: Wire) => entry.reason)).toEqual([
      'card_inactive',
      'card_inactive',
      'cardholder_inactive',
      'card_active',
      'constructor',
    ]);
    expect(renderAtVersion(authorization, '2024-06-20')).toEqual(authorization);
  });

  it('renders nested and expanded objects in lists, and leaves deleted objects, events and unversioned objects as they are', () => {
    // Given a list of prices with their product expanded, a deleted product, an event and a customer
    const price = { ...serializePrice(priceOf('price_1', 'month')), product: serializeProduct(product) } as Wire;
    const event = { id: 'evt_1', object: 'event', api_version: latestServiceVersion, data: { object: serializeProduct(product) } };
    const deleted = { id: 'prod_2', object: 'product', deleted: true };
    const customer = { id: 'cus_1', object: 'customer', email: null, billing_mode: 'not ours to touch' };
    const list = { object: 'list', data: [price, deleted, event, customer], has_more: false, url: '/v1/prices' };

    // When the list is rendered at 2023-10-16
    const old = renderAtVersion(list, '2023-10-16') as Wire;

    // Then the expanded product and the price are older, the rest untouched
    expect(old.data[0].product.features).toEqual([{ name: 'Fast' }]);
    expect(old.data[0].recurring.aggregate_usage).toBeNull();
    expect(old.data.slice(1)).toEqual([deleted, event, customer]);
    // And a client's metadata is never taken for an object, whatever its keys
    const metadata = { object: 'product', marketing_features: 'x', discounts: 'y' };
    expect((renderAtVersion({ ...serializeProduct(product), metadata }, '2022-11-15') as Wire).metadata).toBe(metadata);
    expect(old.data[2]).toBe(event);
    expect(serializePlan(priceOf('price_1', 'month'))).not.toHaveProperty('aggregate_usage');
  });
});

describe('snapshot events at a version', () => {
  it('re-renders the object and rebuilds previous_attributes as if computed at the target version', () => {
    const versions = fc.constantFrom('2022-11-15', '2024-09-30.acacia', defaultServiceVersion, '2025-06-30.basil', latestServiceVersion);
    const modes = fc.constantFrom(classic, flexible, { ...flexible, prorationDiscounts: null });
    fc.assert(
      fc.property(modes, modes, fc.boolean(), versions, (before, after, metadataChanged, version) => {
        const old = newest(subscriptionWith(before, ['month'], metadataChanged ? { a: '1' } : {}));
        const next = newest(subscriptionWith(after));
        const recorded = { object: next, previous: previousAttributes(old, next) };
        const rendered = snapshotDataAt(recorded.object, recorded.previous, version);
        expect(JSON.stringify(rendered.object)).toBe(JSON.stringify(renderAtVersion(next, version)));
        expect(rendered.previous).toEqual(previousAttributes(renderAtVersion(old, version), renderAtVersion(next, version)));
      }),
    );
  });

  it('shows a changed item period as a changed subscription period at versions before basil', () => {
    const before = newest(subscriptionWith(classic));
    const after = structuredClone(before);
    after.items.data[0].current_period_end += 30 * 86_400;
    const rendered = snapshotDataAt(after, previousAttributes(before, after), '2022-11-15');
    expect(rendered.previous).toEqual({ current_period_end: before.items.data[0].current_period_end });
    expect(snapshotDataAt(after, previousAttributes(before, after), latestServiceVersion).previous).toEqual({ items: before.items });
  });

  it('reads events stored before the chain (string billing_mode, aggregate_usage) and renders them at any version', () => {
    const stored = renderAtVersion(newest(subscriptionWith(flexible)), '2022-11-15') as Wire;
    delete stored.current_period_end;
    delete stored.current_period_start;
    delete stored.discount;
    for (const item of stored.items.data) Object.assign(item, { current_period_end: 1, current_period_start: 0 });
    const rendered = snapshotDataAt(stored, { billing_mode: 'classic', billing_mode_details: null }, latestServiceVersion);
    expect(rendered.object.billing_mode).toEqual({ type: 'flexible', flexible: { proration_discounts: 'itemized' }, updated_at: seconds(anchor + 3 * day) });
    expect(rendered.object).not.toHaveProperty('billing_mode_details');
    expect((rendered.object.items as Wire).data[0].price.recurring).not.toHaveProperty('aggregate_usage');
    expect((rendered.object.items as Wire).data[0].plan).not.toHaveProperty('aggregate_usage');
    expect(rendered.previous).toEqual({ billing_mode: { type: 'classic', flexible: null } });
  });
});

describe('what docs/api.md says is rendered per version', () => {
  it('has a row of its Versions table starting at every version a change is declared at, and at no other', () => {
    const apiDoc = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
    const section = apiDoc.slice(apiDoc.indexOf('\n## Versions\n'), apiDoc.indexOf('\n## Expanding responses'));
    const rowStarts = [...section.matchAll(/^\| `([^`]+)`(?: … `[^`]+`)?/gm)].map((row) => row[1]!);
    expect(rowStarts[0]).toBe(changeBoundaries[0]);
    expect(rowStarts.slice(1, -1)).toEqual(changeBoundaries.slice(1));
    expect(rowStarts.at(-1)).toBe(knownVersions[0]);
  });
});
