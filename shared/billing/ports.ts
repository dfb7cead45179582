import type { Scope } from '#shared/platform/types.ts';

/**
 * The contracts the billing cycle is built on: billing time (the stack's clock, or a customer's test clock),
 * due work (objects that fall due and the processors that bring them up to a time), and payments without a
 * payment network. docs/billing.md says how they fit together.
 */

/**
 * When a billing object next needs attention, and on which clock. Stored on the object and written with
 * its every change (`billingDueEntry` in shared/data/due-index.ts puts it in the due index), so an object
 * is due at exactly one time or none, and that time always agrees with its state.
 */
export interface BillingDue {
  /** Epoch ms; null when nothing is due. */
  at: number | null;
  /** The test clock the object lives on (its customer's), or null for the stack's clock. */
  testClock: string | null;
}

/**
 * The kinds of billing objects that fall due; each has one processor. A test clock is due while it
 * advances: its processor runs the advance (so a crashed advance is picked up again by the sweeper).
 */
export type BillingObjectKind = 'subscription' | 'invoice' | 'test_clock';

/**
 * Brings one object up to `at`: does everything that fell due by then as if `now` were `at` (renew a period,
 * finalize a draft, try a payment again, end a trial, cancel at period end), then stores the object with its
 * next due time in the same write. Idempotent and safe to race: a processor that finds nothing due by `at`
 * (because another run got there first) does nothing, and every change is a versioned write, so two
 * sweepers, or a sweeper and a clock's advance, can never do one step twice.
 */
export type DueProcessor = (scope: Scope, id: string, at: number) => Promise<void>;

export type DueProcessors = Record<BillingObjectKind, DueProcessor>;

/**
 * The billing time of a customer's objects: its test clock's frozen time, or the stack's clock (`Clock`).
 * Requests that change a test clock's objects while it advances are refused.
 */
export interface BillingTime {
  /**
   * Now for the objects of `customer` (a customer id): `testClock` null and `now` the stack's clock, or its
   * test clock's frozen time. Throws the reference's error when the clock is advancing.
   */
  forCustomer(scope: Scope, customer: string): Promise<{ now: number; testClock: string | null }>;
}

/** What an attempt to charge a customer came to. */
export type ChargeOutcome =
  | { status: 'succeeded' /** The source (card) charged. */; source: string }
  | {
      status: 'failed';
      /** The reference's error code (`card_declined`, `expired_card`, …; `missing_payment_method` without a source). */
      code: string;
      /** The card network's reason (`generic_decline`, `insufficient_funds`, …), null when not a decline. */
      declineCode: string | null;
      message: string;
      /** The source tried, null when the customer had none. */
      source: string | null;
    };

/**
 * Charges without a payment network: the outcome follows from the customer's default source, as the
 * reference's test card numbers document (test mode); live mode has no network (docs/billing.md).
 */
export interface PaymentGateway {
  charge(scope: Scope, request: { customer: string; amount: number; currency: string; invoice: string }, at: number): Promise<ChargeOutcome>;
}
