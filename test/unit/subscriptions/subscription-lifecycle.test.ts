import { describe, expect, it } from 'vitest';
import type { Price } from '#shared/catalogue/catalogue.ts';
import type { Customer } from '#shared/customers/customer.ts';
import type { Scope } from '#shared/platform/types.ts';
import { createSubscriptionParams, updateSubscriptionParams } from '#shared/subscriptions/schemas.ts';
import { exhaustedRetriesEnd, subscriptionAfterPayment, subscriptionService } from '#shared/subscriptions/service.ts';
import { fixedBillingTime, memorySubscriptionInvoicing } from '../../support/billing-fakes.ts';
import { memoryOwnedStore, originOf, recordingEmitter } from '../../support/fakes.ts';
import { memorySubscriptionRepository } from '../../support/subscription-fakes.ts';
import { recordingProrationInvoicing } from '../../support/proration-fakes.ts';

const scope: Scope = { accountId: 'acct_lifecycle', livemode: false };
const request = { origin: originOf(scope) };
const day = 86_400_000;
const start = Date.parse('2026-01-15T12:00:00Z');

const monthly: Price = {
  id: 'price_month',
  scope,
  version: 1,
  created: 1,
  product: 'prod_1',
  active: true,
  currency: 'usd',
  unitAmount: 1500,
  unitAmountDecimal: '1500',
  billingScheme: 'per_unit',
  tiersMode: null,
  tiers: null,
  transformQuantity: null,
  recurring: { interval: 'month', intervalCount: 1, usageType: 'licensed', meter: null },
  type: 'recurring',
  nickname: null,
  lookupKey: null,
  taxBehavior: 'unspecified',
  metadata: {},
  currencyOptions: {},
};

/** A service on the in-memory fakes whose stack clock is `now` (moved by the test), and whose charges come out as `charge` says. */
function setup(options: { charge?: 'paid' | 'declined'; defaultSource?: string | null } = {}) {
  const subscriptions = memorySubscriptionRepository();
  const customers = memoryOwnedStore<Customer>({
    id: 'cus_1',
    scope,
    version: 1,
    defaultSource: options.defaultSource === undefined ? 'card_1' : options.defaultSource,
  } as Customer);
  const recorded = recordingEmitter();
  const time = { now: start };
  const charge = { outcome: options.charge ?? 'paid' };
  const invoicing = memorySubscriptionInvoicing(subscriptions, recorded.events, () => charge.outcome);
  const service = subscriptionService({
    subscriptions,
    prices: memoryOwnedStore<Price>(monthly),
    customers,
    events: recorded.events,
    billingTime: fixedBillingTime(() => time.now),
    invoicing,
    prorationInvoicing: recordingProrationInvoicing(),
    clock: () => time.now,
  });
  const types = () => recorded.written.flatMap((outbox) => outbox.snapshotEvents.map((event) => event.type));
  return { service, subscriptions, invoicing, time, charge, types };
}

const create = (params: Record<string, unknown> = {}) => createSubscriptionParams.parse({ customer: 'cus_1', items: [{ price: 'price_month' }], ...params });

describe('a subscription’s life, run by its due processor (service on fakes)', () => {
  it('Given a card that pays, when a subscription is created, then it is active, its first invoice is charged in the same write, and it falls due for the renewal’s notice', async () => {
    const { service, invoicing, types } = setup();
    const subscription = await service.create(request, create());
    expect(subscription).toMatchObject({
      status: 'active',
      latestInvoice: 'in_1',
      currentPeriodStart: start,
      currentPeriodEnd: Date.parse('2026-02-15T12:00:00Z'),
    });
    expect(invoicing.invoices).toMatchObject([{ settlement: 'charge', status: 'paid', plan: { billingReason: 'subscription_create' } }]);
    expect(subscription.due).toEqual({ at: Date.parse('2026-02-08T12:00:00Z'), testClock: null });
    expect(types()).toEqual(['customer.subscription.created', 'invoice.created']);
  });

  it('Given a declined card, when created with allow_incomplete (the default) or error_if_incomplete, then it is incomplete, or refused with the card error and nothing written', async () => {
    const { service, subscriptions, invoicing } = setup({ charge: 'declined' });
    expect(await service.create(request, create())).toMatchObject({ status: 'incomplete', due: { at: start + 23 * 3_600_000 } });
    await expect(service.create(request, create({ payment_behavior: 'error_if_incomplete' }))).rejects.toMatchObject({
      code: 'card_declined',
      declineCode: 'generic_decline',
    });
    expect(subscriptions.items.size).toBe(1);
    expect(invoicing.invoices).toHaveLength(1);
  });

  it('Given an incomplete subscription, when 23 hours pass, then the processor expires it, voiding its first invoice in the same write, and it ends', async () => {
    const { service, invoicing, time, types } = setup({ charge: 'declined' });
    const made = await service.create(request, create());
    time.now = made.due.at!;
    await service.processDue(scope, made.id, time.now);
    expect(await service.retrieve(scope, made.id)).toMatchObject({ status: 'incomplete_expired', endedAt: made.due.at, due: { at: null } });
    expect(invoicing.voided).toEqual([made.latestInvoice]);
    expect(types().at(-1)).toBe('customer.subscription.deleted');
  });

  it('Given a monthly subscription, when its clock passes three renewals, then each renewal starts the next period and writes one invoice to advance, after its upcoming notice', async () => {
    const { service, invoicing, types } = setup();
    const made = await service.create(request, create());
    await service.processDue(scope, made.id, Date.parse('2026-04-15T12:00:00Z'));
    const after = await service.retrieve(scope, made.id);
    expect(after).toMatchObject({
      currentPeriodStart: Date.parse('2026-04-15T12:00:00Z'),
      currentPeriodEnd: Date.parse('2026-05-15T12:00:00Z'),
      latestInvoice: 'in_4',
    });
    expect(invoicing.invoices.slice(1).map((invoice) => [invoice.settlement, invoice.plan.items[0]!.period.start])).toEqual([
      ['advance', Date.parse('2026-02-15T12:00:00Z')],
      ['advance', Date.parse('2026-03-15T12:00:00Z')],
      ['advance', Date.parse('2026-04-15T12:00:00Z')],
    ]);
    expect(types().filter((type) => type === 'invoice.upcoming')).toHaveLength(3);
  });

  it('Given two processors racing over one renewal, when both run, then the period is renewed and invoiced once', async () => {
    const { service, invoicing } = setup();
    const made = await service.create(request, create());
    const renewal = Date.parse('2026-02-15T12:00:00Z');
    await Promise.all([service.processDue(scope, made.id, renewal), service.processDue(scope, made.id, renewal), service.processDue(scope, made.id, renewal)]);
    expect(invoicing.invoices.filter((invoice) => invoice.plan.billingReason === 'subscription_cycle')).toHaveLength(1);
    expect((await service.retrieve(scope, made.id)).currentPeriodStart).toBe(renewal);
  });

  it('Given cancel_at_period_end set by an update, when the period ends, then it is canceled there without another invoice', async () => {
    const { service, invoicing, time, types } = setup();
    const made = await service.create(request, create());
    time.now = start + day;
    await service.update(request, made.id, updateSubscriptionParams.parse({ cancel_at_period_end: 'true' }));
    await service.processDue(scope, made.id, Date.parse('2026-03-01T00:00:00Z'));
    expect(await service.retrieve(scope, made.id)).toMatchObject({ status: 'canceled', endedAt: Date.parse('2026-02-15T12:00:00Z'), due: { at: null } });
    expect(invoicing.invoices).toHaveLength(1);
    expect(types().at(-1)).toBe('customer.subscription.deleted');
  });

  it('Given a 14-day trial, when created and run, then its zero invoice is written at once, trial_will_end goes 3 days before, and the first paid period starts at its end', async () => {
    const { service, invoicing, types } = setup();
    const made = await service.create(request, create({ trial_period_days: '14' }));
    expect(made).toMatchObject({
      status: 'trialing',
      trialStart: start,
      trialEnd: start + 14 * day,
      billingCycleAnchor: start + 14 * day,
      due: { at: start + 11 * day },
    });
    await service.processDue(scope, made.id, start + 14 * day);
    expect(await service.retrieve(scope, made.id)).toMatchObject({
      status: 'active',
      currentPeriodStart: start + 14 * day,
      currentPeriodEnd: Date.parse('2026-02-28T12:00:00Z'),
    });
    expect(types()).toContain('customer.subscription.trial_will_end');
    expect(invoicing.invoices.map((invoice) => invoice.plan.items[0]!.period)).toEqual([
      { start, end: start + 14 * day },
      { start: start + 14 * day, end: Date.parse('2026-02-28T12:00:00Z') },
    ]);
  });

  it('Given a trial ending without a payment method and end_behavior pause, when it ends, then the subscription is paused and nothing more falls due', async () => {
    const { service, types } = setup({ defaultSource: null });
    const made = await service.create(request, create({ trial_period_days: '7', trial_settings: { end_behavior: { missing_payment_method: 'pause' } } }));
    await service.processDue(scope, made.id, start + 30 * day);
    expect(await service.retrieve(scope, made.id)).toMatchObject({ status: 'paused', due: { at: null } });
    expect(types()).toContain('customer.subscription.paused');
  });

  it('Given a trialing subscription, when updated with trial_end=now, then the trial ends in the request and the first period is invoiced', async () => {
    const { service, invoicing, time } = setup();
    const made = await service.create(request, create({ trial_period_days: '30' }));
    time.now = start + 2 * day;
    const ended = await service.update(request, made.id, updateSubscriptionParams.parse({ trial_end: 'now' }));
    expect(ended).toMatchObject({ status: 'active', currentPeriodStart: start + 2 * day, billingCycleAnchor: start + 2 * day });
    expect(invoicing.invoices.at(-1)!.plan.items[0]!.period.start).toBe(start + 2 * day);
  });

  it('Given pause_collection void until a date, when renewals come, then their invoices are voided until collection resumes', async () => {
    const { service, invoicing } = setup();
    const made = await service.create(request, create());
    const resumesAt = Math.floor(Date.parse('2026-03-20T00:00:00Z') / 1000);
    await service.update(request, made.id, updateSubscriptionParams.parse({ pause_collection: { behavior: 'void', resumes_at: String(resumesAt) } }));
    await service.processDue(scope, made.id, Date.parse('2026-04-16T00:00:00Z'));
    expect(invoicing.invoices.slice(1).map((invoice) => invoice.settlement)).toEqual(['void', 'void', 'advance']);
    expect((await service.retrieve(scope, made.id)).pauseCollection).toBeNull();
  });

  it('Given bad lifecycle parameters, when creating or updating, then each is refused naming its parameter', async () => {
    const { service } = setup();
    await expect(service.create(request, create({ trial_period_days: '3', trial_end: String(Math.floor(start / 1000) + 999) }))).rejects.toMatchObject({
      param: 'trial_end',
    });
    await expect(service.create(request, create({ cancel_at: String(Math.floor(start / 1000) - 10) }))).rejects.toMatchObject({ param: 'cancel_at' });
    const made = await service.create(request, create());
    await expect(service.update(request, made.id, updateSubscriptionParams.parse({ trial_end: 'now' }))).rejects.toMatchObject({ param: 'trial_end' });
  });
});

describe('a payment result of a subscription’s invoice', () => {
  it('Given a renewal’s failed payment, when its retries run out, then the latest invoice cancels it (payment_failed); an older invoice changes nothing; a later payment makes it active', async () => {
    const { service } = setup();
    const made = await service.create(request, create());
    const pastDue = subscriptionAfterPayment({ ...made, latestInvoice: 'in_9' }, 'in_9', { kind: 'failed', first: false }, start + day)!;
    expect(pastDue).toMatchObject({ status: 'past_due', version: made.version + 1 });
    expect(subscriptionAfterPayment(pastDue, 'in_1', { kind: 'retries_exhausted', end: exhaustedRetriesEnd }, start + 20 * day)).toBeUndefined();
    const ended = subscriptionAfterPayment(pastDue, 'in_9', { kind: 'retries_exhausted', end: exhaustedRetriesEnd }, start + 20 * day)!;
    expect(ended).toMatchObject({ status: 'canceled', endedAt: start + 20 * day, cancellationDetails: { reason: 'payment_failed' }, due: { at: null } });
    expect(subscriptionAfterPayment(pastDue, 'in_9', { kind: 'paid' }, start + 2 * day)).toMatchObject({ status: 'active' });
    expect(subscriptionAfterPayment(made, made.latestInvoice!, { kind: 'paid' }, start)).toBeUndefined();
  });
});
