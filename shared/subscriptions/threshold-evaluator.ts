import { systemClock } from '#shared/core/clock.ts';
import { logger } from '#shared/core/logger.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Subscription } from './subscription.ts';
import { hasThresholds } from './thresholds.ts';

/** Where the evaluator finds subscriptions with thresholds (shared/data/billing-repositories.ts on DynamoDB). */
export interface ThresholdIndex {
  /** Every subscription on the stack's clock with thresholds (the sparse GSI1 index, 33d), a page at a time. */
  withThresholds(): AsyncGenerator<Subscription[]>;
  /** The live subscriptions on a test clock (its due partition, 53c). */
  onClock(scope: Scope, clockId: string): Promise<Subscription[]>;
}

export type ThresholdOutcome = 'skipped' | 'below' | 'invoiced' | 'lost';

export interface ThresholdEvaluatorPorts {
  index: ThresholdIndex;
  /** The subscription service's `evaluateThresholds`: one usage read per metered item, a transaction when reached. */
  evaluate: (subscription: Subscription, now: number) => Promise<ThresholdOutcome>;
  /** A test clock's frozen time (the start of its advance while it advances). */
  frozenTime: (scope: Scope, clockId: string) => Promise<number>;
  clock?: () => number;
}

/** Subscriptions evaluated at once: each is one usage read per metered item, then (rarely) one transaction. */
const concurrency = 16;

/**
 * Invoices subscriptions early when their billing thresholds are reached. On the stack's clock a scheduled
 * run (every minute) reads the sparse index of subscriptions with thresholds and evaluates each at now; a
 * test clock's subscriptions are evaluated by the clock's advance (`evaluateClock`), once at its start. The
 * meter event path writes nothing for thresholds, and nothing is written while usage stays below.
 */
export function thresholdEvaluator({ index, evaluate, frozenTime, clock = systemClock }: ThresholdEvaluatorPorts) {
  return {
    /** One run over the stack's subscriptions with thresholds; one that fails is logged and tried again next run. */
    async evaluateStack(): Promise<{ evaluated: number; invoiced: number; failed: number }> {
      const totals = { evaluated: 0, invoiced: 0, failed: 0 };
      for await (const page of index.withThresholds()) {
        for (let start = 0; start < page.length; start += concurrency) {
          const batch = page.slice(start, start + concurrency);
          const outcomes = await Promise.allSettled(batch.map((subscription) => evaluate(subscription, clock())));
          outcomes.forEach((outcome, i) => {
            totals.evaluated++;
            if (outcome.status === 'fulfilled') {
              if (outcome.value === 'invoiced') totals.invoiced++;
              return;
            }
            totals.failed++;
            logger.error('Billing threshold evaluation failed', { subscription: batch[i]!.id, error: outcome.reason });
          });
        }
      }
      return totals;
    },

    /**
     * A test clock advance's evaluation, before its due work runs: each subscription with thresholds on the
     * clock is evaluated at the clock's frozen time or the stack's now, whichever is later (meter events are
     * timestamped on the stack's clock, so usage reported so far is counted), or at `target` if sooner. The
     * renewals the advance then runs bill from where a threshold invoice stopped. Errors go up: the advance
     * fails its run and is retried (nothing is done twice).
     */
    async evaluateClock(scope: Scope, clockId: string, target: number): Promise<number> {
      let invoiced = 0;
      const subscriptions = (await index.onClock(scope, clockId)).filter(hasThresholds);
      if (subscriptions.length === 0) return 0;
      const at = Math.min(target, Math.max(await frozenTime(scope, clockId), clock()));
      for (const subscription of subscriptions) {
        if ((await evaluate(subscription, at)) === 'invoiced') invoiced++;
      }
      return invoiced;
    },
  };
}
