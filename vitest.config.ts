import { configDefaults, defineConfig } from 'vitest/config';

const stackFiles = ['test/handler/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'];

/**
 * Stack files that need the shared stack to themselves, so they run one at a time after every other file:
 * - they assert that nothing more happens (`quiesce()` waits until every queue of the stack stays empty, which
 *   other files' deliveries and meter events would put off);
 * - they send a burst that must land within one second to reach a per-second limit (API keys, meter events,
 *   searches, failed authentications per address), which a stack busy with other files cannot promise;
 * - they flood the stack with unknown API keys from 127.0.0.1, whose failed-authentication limit then refuses
 *   everyone's requests from that address for the rest of the second.
 * A new file goes here when it does any of these; anything else runs side by side in `stack`.
 */
const serialStackFiles = [
  'test/e2e/accounts.test.ts',
  'test/e2e/billing-alerts.test.ts',
  'test/e2e/concurrency.test.ts',
  'test/e2e/delivery.test.ts',
  'test/integration/outbox.test.ts',
  'test/e2e/rate-limits.test.ts',
  'test/e2e/v1-meter-events.test.ts',
  'test/e2e/search.test.ts',
  'test/e2e/credential-abuse.test.ts',
  'test/integration/fuzz.test.ts',
];

const stackSettings = { globalSetup: ['test/support/global-setup.ts'], testTimeout: 60_000, hookTimeout: 60_000 };

/**
 * Test layers. `unit` and `infra` need nothing running; `local` starts the pieces of the local stack it
 * tests; `stack` and `stack-serial` (handler, integration and end-to-end tests) share one local stack started
 * by the global setup for the whole run.
 *
 * Files run side by side (`maxWorkers`, whatever the machine's core count): a stack file spends most of its
 * time waiting on the stack, which runs in the main process, DynamoDB Local and the SQS emulator, so on a
 * 2-core machine four of them at once finish far sooner than one at a time (vitest's default there is one).
 * Every file makes its own platform; the few that need the stack to themselves are `stack-serial`, which
 * (`fileParallelism: false`) vitest runs one file at a time once all the others are done.
 */
export default defineConfig({
  test: {
    maxWorkers: 4,
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 180_000, hookTimeout: 180_000 } },
      { test: { name: 'local', include: ['test/local/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 } },
      { test: { name: 'stack', include: stackFiles, exclude: [...configDefaults.exclude, ...serialStackFiles], ...stackSettings } },
      { test: { name: 'stack-serial', include: serialStackFiles, fileParallelism: false, ...stackSettings } },
    ],
  },
});
