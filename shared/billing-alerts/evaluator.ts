import { systemClock } from '#shared/core/clock.ts';
import { logger } from '#shared/core/logger.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventInput } from '#shared/events/event.ts';
import type { UsageReader } from '#shared/meter-events/meter-event.ts';
import { timestampBounds } from '#shared/meter-events/rules.ts';
import { defaultServiceVersion } from '#shared/wire/api-version.ts';
import type { AlertTrigger, BillingAlert, BillingAlertRepository } from './alert.ts';
import { serializeAlertTriggered } from './serializer.ts';

export interface AlertEvaluatorPorts {
  repository: Pick<BillingAlertRepository, 'pending' | 'trigger'>;
  usage: UsageReader;
  events: EventEmitter;
  clock?: () => number;
}

/** Alerts evaluated at once: each is one usage read, then (rarely) one transaction. */
const concurrency = 16;

export type Evaluation = 'below' | 'triggered' | 'not-fired';

/** The `billing.alert.triggered` event of a firing; its thin mirror (`v1.billing.alert.triggered`) relates to the alert. */
export const alertTriggeredEvent = (alert: BillingAlert, trigger: AlertTrigger): EventInput => ({
  kind: 'snapshot',
  type: 'billing.alert.triggered',
  object: serializeAlertTriggered(alert, trigger),
  relatedObject: { id: alert.id, type: 'billing.alert', url: `/v1/billing/alerts/${alert.id}` },
});

/**
 * Fires `one_time` usage alerts: a scheduled run reads every pending alert (active, not fired) and its
 * customer's usage on the meter over the customer's whole history (`one_time` fires once in a customer's
 * lifetime, counting usage reported before the alert was created, as the reference does); at `gte` or more it
 * writes the trigger record, the alert's fired mark and the event's outbox in one transaction whose
 * conditions make the firing happen once, however many runs race or crash. Nothing is written while usage
 * stays below, and the meter event path writes nothing for alerts.
 */
export function alertEvaluator({ repository, usage, events, clock = systemClock }: AlertEvaluatorPorts) {
  async function evaluate(alert: BillingAlert): Promise<Evaluation> {
    const now = clock();
    const { meterId, formula, customerId, gte } = alert.usageThreshold;
    // Up to the latest minute an event may be timestamped in (5 minutes ahead), so no counted usage is left out.
    const value = await usage.aggregate(alert.scope, { id: meterId, formula }, customerId, 0, now + timestampBounds.futureMillis + 60_000);
    if (value < gte) return 'below';
    const trigger: AlertTrigger = { alertId: alert.id, customerId, value, at: now };
    const fired: BillingAlert = { ...alert, triggeredAt: now, version: alert.version + 1 };
    const origin = { scope: alert.scope, platformId: alert.platformId, request: null, apiVersion: defaultServiceVersion };
    const outbox = events.prepare(origin, [alertTriggeredEvent(fired, trigger)]);
    if (!(await repository.trigger(alert, trigger, outbox))) return 'not-fired';
    await events.dispatch(outbox);
    return 'triggered';
  }

  return {
    evaluate,
    /** One run over every pending alert; an alert that fails is logged and tried again next run. */
    async evaluatePending(): Promise<{ evaluated: number; triggered: number; failed: number }> {
      const totals = { evaluated: 0, triggered: 0, failed: 0 };
      for await (const page of repository.pending()) {
        for (let start = 0; start < page.length; start += concurrency) {
          const outcomes = await Promise.allSettled(page.slice(start, start + concurrency).map(evaluate));
          outcomes.forEach((outcome, i) => {
            totals.evaluated++;
            if (outcome.status === 'fulfilled') {
              if (outcome.value === 'triggered') totals.triggered++;
              return;
            }
            totals.failed++;
            logger.error('Billing alert evaluation failed', { alert: page[start + i]!.id, error: outcome.reason });
          });
        }
      }
      return totals;
    },
  };
}
