import type { Cadence } from '#shared/catalogue/catalogue.ts';
import { addIntervals, currentPeriod, nextPeriodEnd } from './periods.ts';

/**
 * A subscription's life as the reference runs it, as pure decisions over its state: what falls due next
 * (and when, which is the subscription's due time), what a step does to the state and which invoice it
 * asks for, and how an invoice's payment moves the status. The service carries these out in versioned
 * writes with the invoice of the step in the same transaction; nothing here reads a clock or a store.
 */

export type SubscriptionStatus = 'incomplete' | 'incomplete_expired' | 'trialing' | 'active' | 'past_due' | 'unpaid' | 'canceled' | 'paused';

/** How long a subscription whose first payment failed stays `incomplete` before it expires. */
export const incompleteWindowMillis = 23 * 3_600_000;

/** The longest trial the reference allows (`trial_period_days`, and `trial_end` counted from now). */
export const maxTrialDays = 730;

/** What a trial ending without a payment method does (`trial_settings.end_behavior.missing_payment_method`). */
export type TrialEndBehavior = 'create_invoice' | 'pause' | 'cancel';

/** `pause_collection`: the invoices keep coming, but are left as drafts, marked uncollectible or voided. */
export interface PauseCollection {
  behavior: 'keep_as_draft' | 'mark_uncollectible' | 'void';
  /** When collection resumes by itself (epoch ms), null for never. */
  resumesAt: number | null;
}

/** How long before a trial ends `customer.subscription.trial_will_end` is sent. */
export const trialWillEndNoticeMillis = 3 * 86_400_000;

/** How long before a renewal `invoice.upcoming` is sent (the reference's default setting). */
export const upcomingNoticeMillis = 7 * 86_400_000;

/** What to do once the retries of a renewal's failed payment are exhausted (the account's subscription settings). */
export type ExhaustedRetriesEnd = 'cancel' | 'unpaid' | 'past_due';

/** The part of a subscription its life is decided by. */
export interface LifecycleState {
  status: SubscriptionStatus;
  created: number;
  billingCycleAnchor: number;
  /** The next renewal: the earliest end of its items' current periods. */
  currentPeriodEnd: number;
  trialEnd: number | null;
  trialEndBehavior: TrialEndBehavior;
  cancelAt: number | null;
  cancelAtPeriodEnd: boolean;
  pauseCollection: PauseCollection | null;
  /** Its items' cadences; a metered item (`usageType`) bills its usage in arrears, so its last period is invoiced as it ends. */
  items: ReadonlyArray<{ id: string; recurring: Cadence & { usageType?: 'licensed' | 'metered' } }>;
  /** The trial end whose `trial_will_end` was sent, and the renewal whose `invoice.upcoming` was (so each goes once). */
  notices: { trialWillEnd: number | null; upcoming: number | null };
}

export type LifecycleStep =
  /** The first payment was not made within the window: `incomplete_expired`, its open invoice voided. */
  | { kind: 'expire'; at: number }
  | { kind: 'end_trial'; at: number }
  /** Ends the subscription (at `cancel_at`, or at the end of the period when `cancel_at_period_end`). */
  | { kind: 'cancel'; at: number }
  /** The items whose period ends at `at` start their next one, and are invoiced for it. */
  | { kind: 'renew'; at: number }
  | { kind: 'resume_collection'; at: number }
  /** `customer.subscription.trial_will_end`, three days before the trial ends (at once for a shorter trial). */
  | { kind: 'notify_trial_end'; at: number }
  /** `invoice.upcoming`, a week before a renewal that will invoice. */
  | { kind: 'notify_upcoming'; at: number };

/** The invoice a step asks for: the items it bills and each one's period, and what becomes of the draft. */
export interface InvoicePlan {
  billingReason: 'subscription_create' | 'subscription_cycle' | 'subscription_threshold';
  items: Array<{ id: string; period: { start: number; end: number } }>;
  /**
   * `finalize`: the draft advances on its own (finalized about an hour later, then charged or sent);
   * `keep_as_draft`, `mark_uncollectible`, `void`: collection is paused (`pause_collection`), or for an
   * `unpaid` subscription the draft is kept as it is, not attempted.
   */
  collection: 'finalize' | PauseCollection['behavior'];
}

const ended = (status: SubscriptionStatus) => status === 'canceled' || status === 'incomplete_expired';

/** The step that falls due first, or null when nothing ever will (ended, paused, or waiting on a payment). */
export function nextStep(state: LifecycleState): LifecycleStep | null {
  if (ended(state.status) || state.status === 'paused') return null;
  if (state.status === 'incomplete') return { kind: 'expire', at: state.created + incompleteWindowMillis };
  const candidates: LifecycleStep[] = [];
  if (state.cancelAt !== null) candidates.push({ kind: 'cancel', at: state.cancelAt });
  if (state.status === 'trialing' && state.trialEnd !== null) {
    candidates.push({ kind: 'end_trial', at: state.trialEnd });
    if (state.notices.trialWillEnd !== state.trialEnd)
      candidates.push({ kind: 'notify_trial_end', at: Math.max(state.created, state.trialEnd - trialWillEndNoticeMillis) });
  } else if (state.cancelAtPeriodEnd) candidates.push({ kind: 'cancel', at: state.currentPeriodEnd });
  else {
    candidates.push({ kind: 'renew', at: state.currentPeriodEnd });
    const notice = state.currentPeriodEnd - upcomingNoticeMillis;
    // Only for a renewal that happens (no cancellation first) and a period longer than the notice.
    const canceledFirst = state.cancelAt !== null && state.cancelAt <= state.currentPeriodEnd;
    if (state.notices.upcoming !== state.currentPeriodEnd && !canceledFirst && notice > previousRenewal(state))
      candidates.push({ kind: 'notify_upcoming', at: notice });
  }
  if (state.pauseCollection?.resumesAt != null) candidates.push({ kind: 'resume_collection', at: state.pauseCollection.resumesAt });
  // The earliest; at one time a cancellation goes first (nothing is renewed or invoiced for a period that never starts).
  const order: Record<LifecycleStep['kind'], number> = {
    cancel: 0,
    expire: 1,
    resume_collection: 2,
    notify_trial_end: 3,
    notify_upcoming: 4,
    end_trial: 5,
    renew: 6,
  };
  return candidates.reduce((best, next) => (next.at < best.at || (next.at === best.at && order[next.kind] < order[best.kind]) ? next : best));
}

/** When the current period began: the latest anchor boundary of its items before the renewal. */
function previousRenewal(state: LifecycleState): number {
  return Math.max(...state.items.map((item) => currentPeriod(state.billingCycleAnchor, item.recurring, state.currentPeriodEnd - 1).start));
}

/** When the subscription is next due (its `BillingDue.at`), null when never. */
export const dueAt = (state: LifecycleState): number | null => nextStep(state)?.at ?? null;

/** The period of each item that starts at `at`, and the next renewal after it. */
function periodsFrom(state: LifecycleState, at: number, only?: (item: { recurring: Cadence }) => boolean) {
  const items = state.items
    .filter((item) => only?.(item) ?? true)
    .map((item) => ({ id: item.id, period: { start: at, end: nextPeriodEnd(state.billingCycleAnchor, item.recurring, at) } }));
  const currentPeriodEnd = Math.min(...state.items.map((item) => nextPeriodEnd(state.billingCycleAnchor, item.recurring, at)));
  return { items, currentPeriodEnd };
}

const collectionOf = (state: LifecycleState): InvoicePlan['collection'] =>
  state.pauseCollection?.behavior ?? (state.status === 'unpaid' ? 'keep_as_draft' : 'finalize');

/** What a step did: the state after it, the invoice it asks for, and whether it ended the subscription. */
export interface StepResult {
  state: LifecycleState;
  invoice: InvoicePlan | null;
  /** True when the step ended the subscription (`customer.subscription.deleted` rather than `.updated`). */
  ended: boolean;
}

/**
 * Carries out a step that `nextStep` named. `hasPaymentMethod`: whether the customer has a default source
 * (a trial ending without one follows `trialEndBehavior`).
 */
export function applyStep(state: LifecycleState, step: LifecycleStep, context: { hasPaymentMethod: boolean }): StepResult {
  switch (step.kind) {
    case 'expire':
      return { state: { ...state, status: 'incomplete_expired' }, invoice: null, ended: true };
    case 'cancel': {
      // The usage of the metered items' last period is invoiced as it ends (none of a trial is billed).
      const metered = state.status === 'trialing' ? [] : state.items.filter((item) => item.recurring.usageType === 'metered');
      const invoice: InvoicePlan | null = metered.length
        ? {
            billingReason: 'subscription_cycle',
            items: metered.map((item) => ({ id: item.id, period: { start: step.at, end: step.at } })),
            collection: collectionOf(state),
          }
        : null;
      return { state: { ...state, status: 'canceled' }, invoice, ended: true };
    }
    case 'resume_collection':
      return { state: { ...state, pauseCollection: null }, invoice: null, ended: false };
    case 'notify_trial_end':
      return { state: { ...state, notices: { ...state.notices, trialWillEnd: state.trialEnd } }, invoice: null, ended: false };
    case 'notify_upcoming':
      return { state: { ...state, notices: { ...state.notices, upcoming: state.currentPeriodEnd } }, invoice: null, ended: false };
    case 'end_trial': {
      if (!context.hasPaymentMethod && state.trialEndBehavior === 'cancel') return { state: { ...state, status: 'canceled' }, invoice: null, ended: true };
      if (!context.hasPaymentMethod && state.trialEndBehavior === 'pause') return { state: { ...state, status: 'paused' }, invoice: null, ended: false };
      // The first paid period starts at the trial's end, which is the anchor unless one was set apart from it.
      const { items, currentPeriodEnd } = periodsFrom(state, step.at);
      const next: LifecycleState = { ...state, status: 'active', currentPeriodEnd };
      return { state: next, invoice: { billingReason: 'subscription_cycle', items, collection: collectionOf(next) }, ended: false };
    }
    case 'renew': {
      // Only the items whose own period ends now (items of other intervals, in the flexible mode, keep theirs).
      const { items, currentPeriodEnd } = periodsFrom(state, step.at, (item) => periodEndsAt(state, item.recurring, step.at));
      const next: LifecycleState = { ...state, currentPeriodEnd };
      return { state: next, invoice: { billingReason: 'subscription_cycle', items, collection: collectionOf(state) }, ended: false };
    }
  }
}

/** Whether one of the anchor's period boundaries for `recurring` falls exactly at `at`. */
function periodEndsAt(state: LifecycleState, recurring: Cadence, at: number): boolean {
  const before = nextPeriodEnd(state.billingCycleAnchor, recurring, at - 1);
  return before === at;
}

/** How an invoice of the subscription came out, as the invoice's processor reports it. */
export type PaymentResult =
  | { kind: 'paid' }
  /** An automatic payment failed; `first` for the invoice the subscription was created with. */
  | { kind: 'failed'; first: boolean }
  /** The last retry failed too: the account's settings say what becomes of the subscription. */
  | { kind: 'retries_exhausted'; end: ExhaustedRetriesEnd }
  /** Voided or marked uncollectible: nothing more is collected on it, so a debt it left is dropped. */
  | { kind: 'settled' };

/**
 * The status after a payment result of the subscription's latest invoice. A payment of an older invoice
 * changes nothing (the reference moves a subscription back to `active` only when its latest invoice is paid).
 */
export function statusAfterPayment(status: SubscriptionStatus, result: PaymentResult): SubscriptionStatus {
  if (ended(status) || status === 'paused') return status;
  switch (result.kind) {
    case 'paid':
      return status === 'trialing' ? 'trialing' : 'active';
    case 'failed':
      if (result.first && status === 'incomplete') return 'incomplete';
      return status === 'trialing' ? 'trialing' : 'past_due';
    case 'retries_exhausted':
      return result.end === 'cancel' ? 'canceled' : result.end === 'unpaid' ? 'unpaid' : 'past_due';
    case 'settled':
      return status === 'past_due' || status === 'unpaid' ? 'active' : status;
  }
}

/** The trial a new subscription gets from its parameters (the end, or null), or the reference's error message and param. */
export function trialEndOf(
  params: { trial_end?: number | 'now'; trial_period_days?: number },
  now: number,
): { trialEnd: number | null } | { error: string; param: string } {
  if (params.trial_end !== undefined && params.trial_period_days !== undefined) {
    return { error: 'You may only specify one of these parameters: trial_end, trial_period_days.', param: 'trial_end' };
  }
  if (params.trial_period_days !== undefined) {
    if (params.trial_period_days > maxTrialDays) return { error: `trial_period_days must be at most ${maxTrialDays}.`, param: 'trial_period_days' };
    return { trialEnd: params.trial_period_days === 0 ? null : addIntervals(now, { interval: 'day', intervalCount: params.trial_period_days }, 1) };
  }
  if (params.trial_end === undefined || params.trial_end === 'now') return { trialEnd: null };
  if (params.trial_end <= now) return { error: 'Invalid timestamp: must be an integer Unix timestamp in the future.', param: 'trial_end' };
  if (params.trial_end > now + maxTrialDays * 86_400_000) {
    return { error: `Invalid timestamp: can be no more than ${maxTrialDays} days in the future.`, param: 'trial_end' };
  }
  return { trialEnd: params.trial_end };
}

/**
 * A new subscription's state at `now`: trialing until `trialEnd` (the anchor then, so the first paid period
 * starts there), else `incomplete` until its first invoice is paid (the service makes it `active` when the
 * invoice is paid at once, or for `send_invoice`). The first invoice bills every item's first period.
 */
export function start(
  base: Omit<LifecycleState, 'status' | 'billingCycleAnchor' | 'currentPeriodEnd' | 'trialEnd' | 'notices'>,
  now: number,
  trialEnd: number | null,
): { state: LifecycleState; invoice: InvoicePlan } {
  const anchor = trialEnd ?? now;
  const state: LifecycleState = {
    ...base,
    status: trialEnd === null ? 'incomplete' : 'trialing',
    billingCycleAnchor: anchor,
    currentPeriodEnd: anchor,
    trialEnd,
    notices: { trialWillEnd: null, upcoming: null },
  };
  if (trialEnd !== null) {
    // The trial is invoiced at zero for its own period, as the reference does.
    return {
      state,
      invoice: {
        billingReason: 'subscription_create',
        items: base.items.map((item) => ({ id: item.id, period: { start: now, end: trialEnd } })),
        collection: 'finalize',
      },
    };
  }
  const { items, currentPeriodEnd } = periodsFrom(state, now);
  return { state: { ...state, currentPeriodEnd }, invoice: { billingReason: 'subscription_create', items, collection: 'finalize' } };
}
