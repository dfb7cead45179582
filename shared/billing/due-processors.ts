import { config } from '#shared/core/config.ts';
import { dynamoBillingDueIndex } from '#shared/data/billing-due-index.ts';
import { serviceTable } from '#shared/data/table.ts';
import { batchedSender } from '#shared/messaging/batched-sender.ts';
import { wireQueueSeal } from '#shared/messaging/wiring.ts';
import { type DueMessage, dueMessageOf } from './due-message.ts';
import { wireInvoiceDueProcessor } from '#shared/invoices/wiring.ts';
import { wireSubscriptionDueProcessor, wireThresholdEvaluator } from '#shared/subscriptions/wiring.ts';
import { wireTestClockDeletion } from '#shared/test-clocks/delete-wiring.ts';
import { type DueEntry, type DueRunner, dueRunner } from './due-runner.ts';
import type { DueProcessors } from './ports.ts';

/** Sealed pointers on the `billing` queue, several batches in flight (a month-end sweep puts thousands). */
function billingDispatch(): (entries: DueEntry[]) => Promise<void> {
  let send: ReturnType<typeof batchedSender> | undefined;
  const seal = wireQueueSeal('billing');
  return async (entries) => {
    if (entries.length === 0) return;
    const url = config().BILLING_QUEUE_URL;
    if (!url) throw new Error('Invalid configuration: BILLING_QUEUE_URL is required to sweep due billing objects');
    send ??= batchedSender(url, undefined, 8);
    await send(await seal.seal(entries.map((entry) => dueMessageOf(entry.kind as DueMessage['kind'], entry.scope, entry.id))));
  };
}

/**
 * The due engine on its real adapters: the processor of every billing object kind (one line each; the
 * subscription's, the invoice's), and the runner over them. A test clock's processor runs
 * its advance through the same runner, over the same processors.
 */
export function wireDueRunner(): DueRunner {
  const processors: Partial<DueProcessors> = { invoice: wireInvoiceDueProcessor(), subscription: wireSubscriptionDueProcessor() };
  const runner = dueRunner({ processors, index: dynamoBillingDueIndex(serviceTable()), dispatch: billingDispatch() });
  const thresholds = wireThresholdEvaluator();
  // An advance evaluates its subscriptions' billing thresholds first, then runs what falls due up to its target.
  processors.test_clock = wireTestClockDeletion(async (scope, clockId, target, deadline) => {
    await thresholds.evaluateClock(scope, clockId, target);
    return runner.runClock(scope, clockId, target, deadline);
  }).processDue;
  return runner;
}
