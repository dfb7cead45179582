import { dynamoBillingDueIndex } from '#shared/data/billing-due-index.ts';
import { serviceTable } from '#shared/data/table.ts';
import { wireInvoiceDueProcessor } from '#shared/invoices/wiring.ts';
import { wireSubscriptionDueProcessor } from '#shared/subscriptions/wiring.ts';
import { wireTestClockService } from '#shared/test-clocks/wiring.ts';
import { type DueRunner, dueRunner } from './due-runner.ts';
import type { DueProcessors } from './ports.ts';

/**
 * The due engine on its real adapters: the processor of every billing object kind (one line each; the
 * subscription's, the invoice's), and the runner over them. A test clock's processor runs
 * its advance through the same runner, over the same processors.
 */
export function wireDueRunner(): DueRunner {
  const processors: Partial<DueProcessors> = { invoice: wireInvoiceDueProcessor(), subscription: wireSubscriptionDueProcessor() };
  const runner = dueRunner({ processors, index: dynamoBillingDueIndex(serviceTable()) });
  processors.test_clock = wireTestClockService(runner.runClock).processDue;
  return runner;
}
