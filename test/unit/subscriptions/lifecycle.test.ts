import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Cadence } from '#shared/catalogue/catalogue.ts';
import { applyStep, incompleteWindowMillis, type LifecycleState, nextStep, start, statusAfterPayment, trialEndOf } from '#shared/subscriptions/lifecycle.ts';
import { addIntervals, currentPeriod } from '#shared/subscriptions/periods.ts';

const at = (iso: string) => Date.parse(iso);
const monthly: Cadence = { interval: 'month', intervalCount: 1 };
const yearly: Cadence = { interval: 'year', intervalCount: 1 };

const base = (items: LifecycleState['items'], created = at('2026-01-31T10:00:00Z')) => ({
  created,
  trialEndBehavior: 'create_invoice' as const,
  cancelAt: null,
  cancelAtPeriodEnd: false,
  pauseCollection: null,
  items,
});

/** Runs every step due by `until`, as the due engine would, collecting each invoice's item periods. */
function runUntil(state: LifecycleState, until: number, hasPaymentMethod = true) {
  const invoices: Array<{ at: number; items: Array<{ id: string; period: { start: number; end: number } }> }> = [];
  const steps: string[] = [];
  for (let step = nextStep(state); step !== null && step.at <= until; step = nextStep(state)) {
    const result = applyStep(state, step, { hasPaymentMethod });
    steps.push(`${step.kind}@${new Date(step.at).toISOString()}`);
    if (result.invoice) invoices.push({ at: step.at, items: result.invoice.items });
    expect(nextStep(result.state)?.at ?? Number.POSITIVE_INFINITY).toBeGreaterThan(step.at);
    state = result.state;
  }
  return { state, invoices, steps };
}

const active = (state: LifecycleState): LifecycleState => ({ ...state, status: statusAfterPayment(state.status, { kind: 'paid' }) });

describe('billing periods', () => {
  it('Given an anchor on 31 January, when months are added, then each lands on the month’s last day at most and returns to the 31st', () => {
    const anchor = at('2026-01-31T10:00:00Z');
    expect(new Date(addIntervals(anchor, monthly, 1)).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(new Date(addIntervals(anchor, monthly, 2)).toISOString()).toBe('2026-03-31T10:00:00.000Z');
    expect(new Date(addIntervals(at('2028-01-31T00:00:00Z'), monthly, 1)).toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(new Date(addIntervals(at('2028-02-29T00:00:00Z'), yearly, 1)).toISOString()).toBe('2029-02-28T00:00:00.000Z');
  });

  it('Given any anchor, interval and later time, when the current period is asked for, then it contains the time and both ends are anchor boundaries', () => {
    const recurring = fc.record({ interval: fc.constantFrom('day', 'week', 'month', 'year' as const), intervalCount: fc.integer({ min: 1, max: 12 }) });
    fc.assert(
      fc.property(
        fc.integer({ min: at('2000-01-01'), max: at('2040-01-01') }),
        recurring,
        fc.integer({ min: 0, max: 20 * 366 * 86_400_000 }),
        (anchor, r, offset) => {
          const when = anchor + offset;
          const period = currentPeriod(anchor, r, when);
          expect(period.start).toBeLessThanOrEqual(when);
          expect(period.end).toBeGreaterThan(when);
          // The period is one step of the anchor's own sequence (no drift from clamped months).
          let index = 0;
          while (addIntervals(anchor, r, index) < period.start) index++;
          expect(addIntervals(anchor, r, index)).toBe(period.start);
          expect(addIntervals(anchor, r, index + 1)).toBe(period.end);
        },
      ),
    );
  });
});

describe('the steps of a subscription’s life', () => {
  it('Given a monthly subscription paid at creation, when a year passes, then it renews twelve times, each period starting where the last ended', () => {
    const created = at('2026-01-31T10:00:00Z');
    const first = start(base([{ id: 'si_1', recurring: monthly }], created), created, null);
    expect(first.invoice.items[0]!.period).toEqual({ start: created, end: at('2026-02-28T10:00:00Z') });
    const { invoices, state } = runUntil(active(first.state), at('2027-01-31T10:00:00Z'));
    expect(invoices).toHaveLength(12);
    let end = first.invoice.items[0]!.period.end;
    for (const invoice of invoices) {
      expect(invoice.items[0]!.period.start).toBe(end);
      end = invoice.items[0]!.period.end;
    }
    expect(state.currentPeriodEnd).toBe(at('2027-02-28T10:00:00Z'));
  });

  it('Given monthly and yearly items (flexible mode), when two years pass, then the yearly item is invoiced once a year and the monthly one every month', () => {
    const created = at('2026-03-15T00:00:00Z');
    const first = start(
      base(
        [
          { id: 'si_m', recurring: monthly },
          { id: 'si_y', recurring: yearly },
        ],
        created,
      ),
      created,
      null,
    );
    expect(first.state.currentPeriodEnd).toBe(at('2026-04-15T00:00:00Z'));
    const { invoices } = runUntil(active(first.state), at('2028-03-15T00:00:00Z'));
    expect(invoices).toHaveLength(24);
    const yearlyLines = invoices.flatMap((invoice) => invoice.items.filter((item) => item.id === 'si_y'));
    expect(yearlyLines.map((line) => new Date(line.period.start).toISOString())).toEqual(['2027-03-15T00:00:00.000Z', '2028-03-15T00:00:00.000Z']);
  });

  it('Given cancel_at_period_end, when the period ends, then the subscription ends there without a new invoice', () => {
    const created = at('2026-05-01T00:00:00Z');
    const first = start({ ...base([{ id: 'si_1', recurring: monthly }], created), cancelAtPeriodEnd: true }, created, null);
    const { state, invoices, steps } = runUntil(active(first.state), at('2026-09-01T00:00:00Z'));
    expect(steps).toEqual(['cancel@2026-06-01T00:00:00.000Z']);
    expect(invoices).toEqual([]);
    expect(state.status).toBe('canceled');
  });

  it('Given cancel_at within a period, when it comes, then the subscription ends at that moment and before a renewal at the same time', () => {
    const created = at('2026-05-01T00:00:00Z');
    const inside = start({ ...base([{ id: 'si_1', recurring: monthly }], created), cancelAt: at('2026-06-10T00:00:00Z') }, created, null);
    expect(runUntil(active(inside.state), at('2027-01-01T00:00:00Z')).steps).toEqual([
      'notify_upcoming@2026-05-25T00:00:00.000Z',
      'renew@2026-06-01T00:00:00.000Z',
      'cancel@2026-06-10T00:00:00.000Z',
    ]);
    const onBoundary = start({ ...base([{ id: 'si_1', recurring: monthly }], created), cancelAt: at('2026-06-01T00:00:00Z') }, created, null);
    expect(runUntil(active(onBoundary.state), at('2027-01-01T00:00:00Z')).steps).toEqual(['cancel@2026-06-01T00:00:00.000Z']);
  });

  it('Given a trial, when it ends, then the first paid period starts at its end (the anchor) and the trial was invoiced for its own period', () => {
    const created = at('2026-05-01T00:00:00Z');
    const trialEnd = at('2026-05-15T00:00:00Z');
    const first = start(base([{ id: 'si_1', recurring: monthly }], created), created, trialEnd);
    expect(first.state.status).toBe('trialing');
    expect(first.invoice.items[0]!.period).toEqual({ start: created, end: trialEnd });
    expect(statusAfterPayment('trialing', { kind: 'paid' })).toBe('trialing');
    const { state, invoices, steps } = runUntil(first.state, at('2026-06-20T00:00:00Z'));
    expect(steps).toEqual([
      'notify_trial_end@2026-05-12T00:00:00.000Z',
      'end_trial@2026-05-15T00:00:00.000Z',
      'notify_upcoming@2026-06-08T00:00:00.000Z',
      'renew@2026-06-15T00:00:00.000Z',
    ]);
    expect(invoices[0]!.items[0]!.period).toEqual({ start: trialEnd, end: at('2026-06-15T00:00:00Z') });
    expect(state.status).toBe('active');
  });

  it('Given a trial ending without a payment method, when its end behaviour is pause or cancel, then it pauses (nothing more falls due) or ends', () => {
    const created = at('2026-05-01T00:00:00Z');
    const trialEnd = at('2026-05-08T00:00:00Z');
    const paused = start({ ...base([{ id: 'si_1', recurring: monthly }], created), trialEndBehavior: 'pause' }, created, trialEnd);
    const afterPause = runUntil(paused.state, at('2027-01-01T00:00:00Z'), false);
    expect(afterPause.state.status).toBe('paused');
    expect(afterPause.invoices).toEqual([]);
    expect(nextStep(afterPause.state)).toBeNull();
    const canceled = start({ ...base([{ id: 'si_1', recurring: monthly }], created), trialEndBehavior: 'cancel' }, created, trialEnd);
    expect(runUntil(canceled.state, at('2027-01-01T00:00:00Z'), false).state.status).toBe('canceled');
    const invoiced = start(base([{ id: 'si_1', recurring: monthly }], created), created, trialEnd);
    expect(runUntil(invoiced.state, trialEnd, false).state.status).toBe('active');
  });

  it('Given a first payment that failed, when 23 hours pass unpaid, then the subscription expires; paid meanwhile, it is active and renews', () => {
    const created = at('2026-05-01T00:00:00Z');
    const first = start(base([{ id: 'si_1', recurring: monthly }], created), created, null);
    expect(statusAfterPayment(first.state.status, { kind: 'failed', first: true })).toBe('incomplete');
    expect(nextStep(first.state)).toEqual({ kind: 'expire', at: created + incompleteWindowMillis });
    expect(runUntil(first.state, at('2026-05-03T00:00:00Z')).state.status).toBe('incomplete_expired');
    expect(runUntil(active(first.state), at('2026-06-01T00:00:00Z')).steps).toEqual([
      'notify_upcoming@2026-05-25T00:00:00.000Z',
      'renew@2026-06-01T00:00:00.000Z',
    ]);
  });

  it('Given a renewal whose payment failed, when retries run out, then the account’s setting decides the end state, and a later payment makes it active', () => {
    expect(statusAfterPayment('active', { kind: 'failed', first: false })).toBe('past_due');
    expect(statusAfterPayment('past_due', { kind: 'retries_exhausted', end: 'cancel' })).toBe('canceled');
    expect(statusAfterPayment('past_due', { kind: 'retries_exhausted', end: 'unpaid' })).toBe('unpaid');
    expect(statusAfterPayment('past_due', { kind: 'retries_exhausted', end: 'past_due' })).toBe('past_due');
    expect(statusAfterPayment('unpaid', { kind: 'paid' })).toBe('active');
    expect(statusAfterPayment('canceled', { kind: 'paid' })).toBe('canceled');
  });

  it('Given collection paused (or an unpaid subscription), when it renews, then the invoice is kept as the pause says, until collection resumes', () => {
    const created = at('2026-05-01T00:00:00Z');
    const first = start(
      { ...base([{ id: 'si_1', recurring: monthly }], created), pauseCollection: { behavior: 'void', resumesAt: at('2026-07-15T00:00:00Z') } },
      created,
      null,
    );
    const state = active(first.state);
    const renewal = applyStep(state, { kind: 'renew', at: state.currentPeriodEnd }, { hasPaymentMethod: true });
    expect(renewal.invoice?.collection).toBe('void');
    const { steps } = runUntil(state, at('2026-08-02T00:00:00Z'));
    expect(steps.filter((step) => !step.startsWith('notify'))).toEqual([
      'renew@2026-06-01T00:00:00.000Z',
      'renew@2026-07-01T00:00:00.000Z',
      'resume_collection@2026-07-15T00:00:00.000Z',
      'renew@2026-08-01T00:00:00.000Z',
    ]);
    const unpaid = applyStep({ ...state, pauseCollection: null, status: 'unpaid' }, { kind: 'renew', at: state.currentPeriodEnd }, { hasPaymentMethod: true });
    expect(unpaid.invoice?.collection).toBe('keep_as_draft');
  });

  it('Given a short trial or a short period, when notices fall due, then trial_will_end goes at once and no invoice.upcoming precedes a renewal closer than a week', () => {
    const created = at('2026-05-01T00:00:00Z');
    const shortTrial = start(base([{ id: 'si_1', recurring: monthly }], created), created, created + 86_400_000);
    expect(nextStep(shortTrial.state)).toEqual({ kind: 'notify_trial_end', at: created });
    const daily = start(base([{ id: 'si_1', recurring: { interval: 'week', intervalCount: 1 } }], created), created, null);
    expect(runUntil(active(daily.state), at('2026-06-01T00:00:00Z')).steps.some((step) => step.startsWith('notify'))).toBe(false);
  });

  it('Given a renewal already announced, when the step runs again after a retry, then invoice.upcoming is not sent twice for one period end', () => {
    const created = at('2026-05-01T00:00:00Z');
    const state = active(start(base([{ id: 'si_1', recurring: monthly }], created), created, null).state);
    const notice = nextStep(state)!;
    expect(notice.kind).toBe('notify_upcoming');
    const after = applyStep(state, notice, { hasPaymentMethod: true }).state;
    expect(nextStep(after)).toEqual({ kind: 'renew', at: at('2026-06-01T00:00:00Z') });
  });

  it('Given any schedule of items and a horizon, when every due step runs, then each item’s invoiced periods follow one another with no gap or overlap', () => {
    const recurring = fc.record({ interval: fc.constantFrom('day', 'week', 'month', 'year' as const), intervalCount: fc.integer({ min: 1, max: 3 }) });
    fc.assert(
      fc.property(fc.integer({ min: at('2020-01-01'), max: at('2030-01-01') }), fc.array(recurring, { minLength: 1, maxLength: 3 }), (created, recurrings) => {
        const items = recurrings.map((r, index) => ({ id: `si_${index}`, recurring: r }));
        const first = start(base(items, created), created, null);
        const { invoices } = runUntil(active(first.state), created + 400 * 86_400_000);
        for (const item of items) {
          const periods = [first.invoice, ...invoices].flatMap((invoice) => invoice.items.filter((line) => line.id === item.id).map((line) => line.period));
          for (let index = 1; index < periods.length; index++) expect(periods[index]!.start).toBe(periods[index - 1]!.end);
          expect(periods.at(-1)!.end).toBeGreaterThan(created + 400 * 86_400_000);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('trial parameters', () => {
  const now = at('2026-05-01T00:00:00Z');
  it('Given trial_period_days or a future trial_end, when read, then the trial ends there; 0 days or trial_end=now means no trial', () => {
    expect(trialEndOf({ trial_period_days: 14 }, now)).toEqual({ trialEnd: at('2026-05-15T00:00:00Z') });
    expect(trialEndOf({ trial_period_days: 0 }, now)).toEqual({ trialEnd: null });
    expect(trialEndOf({ trial_end: 'now' }, now)).toEqual({ trialEnd: null });
    expect(trialEndOf({ trial_end: now + 1000 }, now)).toEqual({ trialEnd: now + 1000 });
  });
  it('Given both, a past trial_end or one beyond 730 days, when read, then the reference’s error names the parameter', () => {
    expect(trialEndOf({ trial_end: now + 1000, trial_period_days: 3 }, now)).toMatchObject({ param: 'trial_end' });
    expect(trialEndOf({ trial_end: now - 1000 }, now)).toMatchObject({ param: 'trial_end' });
    expect(trialEndOf({ trial_end: now + 731 * 86_400_000 }, now)).toMatchObject({ param: 'trial_end' });
    expect(trialEndOf({ trial_period_days: 731 }, now)).toMatchObject({ param: 'trial_period_days' });
  });
});
