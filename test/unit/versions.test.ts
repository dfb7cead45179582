import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { previousAttributes } from '#shared/events/changes.ts';
import { snapshotDataAt } from '#shared/events/versions.ts';
import { renderBillingMode, type BillingModeRendering } from '#shared/subscriptions/rendering.ts';
import { serializeSubscription } from '#shared/subscriptions/serializer.ts';
import type { BillingMode, Subscription } from '#shared/subscriptions/subscription.ts';

const subscriptionWith = (billingMode: BillingMode, metadata: Record<string, string> = {}): Subscription => ({
  id: 'sub_1',
  scope: { accountId: 'acct_1', livemode: false },
  version: 1,
  created: 1_700_000_000_000,
  customer: 'cus_1',
  status: 'active',
  currency: 'usd',
  items: [],
  billingMode,
  billingCycleAnchor: 1_700_000_000_000,
  cancelAtPeriodEnd: false,
  canceledAt: null,
  endedAt: null,
  cancellationDetails: { comment: null, feedback: null, reason: null },
  collectionMethod: 'charge_automatically',
  daysUntilDue: null,
  description: null,
  metadata,
});

/** Every billing mode a subscription can be in: classic (never adopted), or flexible since some time. */
const billingModes: fc.Arbitrary<BillingMode> = fc.oneof(
  fc.constant<BillingMode>({ type: 'classic', prorationDiscounts: null, updatedAt: null }),
  fc.record<BillingMode>({
    type: fc.constant('flexible'),
    prorationDiscounts: fc.constantFrom('included', 'itemized', null),
    updatedAt: fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }).map((seconds) => seconds * 1000),
  }),
);
const renderings = fc.constantFrom<BillingModeRendering>('string', 'object');
const versionOf = { string: '2025-06-30.basil', object: '2026-10-28.endive' } as const;
const render = (subscription: Subscription, rendering: BillingModeRendering) =>
  serializeSubscription(subscription, rendering, 1_700_000_000_000) as unknown as Record<string, unknown>;

describe('rendering an object at another version', () => {
  it('turns either billing_mode rendering into the other exactly as the serializer renders it, fields in the same order', () => {
    fc.assert(
      fc.property(billingModes, renderings, renderings, (mode, from, to) => {
        const subscription = subscriptionWith(mode);
        expect(JSON.stringify(renderBillingMode(render(subscription, from), to))).toBe(JSON.stringify(render(subscription, to)));
      }),
    );
  });

  it('re-renders an event: the object, and previous attributes as if computed at the target version', () => {
    fc.assert(
      fc.property(billingModes, billingModes, fc.boolean(), renderings, renderings, (before, after, metadataChanged, from, to) => {
        const old = subscriptionWith(before, metadataChanged ? { a: '1' } : {});
        const next = subscriptionWith(after);
        const recorded = { object: render(next, from), previous: previousAttributes(render(old, from), render(next, from)) };
        const expected = previousAttributes(render(old, to), render(next, to));
        const rendered = snapshotDataAt(recorded.object, recorded.previous, versionOf[to]);
        expect(JSON.stringify(rendered.object)).toBe(JSON.stringify(render(next, to)));
        expect(rendered.previous).toEqual(expected);
      }),
    );
  });

  it('leaves objects without a versioned shape, and events without previous attributes, as they are', () => {
    const customer = { id: 'cus_1', object: 'customer', billing_mode: 'not ours to touch' };
    expect(snapshotDataAt(customer, { name: 'old' }, versionOf.object)).toEqual({ object: customer, previous: { name: 'old' } });
    const subscription = render(subscriptionWith({ type: 'classic', prorationDiscounts: null, updatedAt: null }), 'string');
    expect(snapshotDataAt(subscription, null, versionOf.object)).toEqual({
      object: render(subscriptionWith({ type: 'classic', prorationDiscounts: null, updatedAt: null }), 'object'),
      previous: null,
    });
  });
});
