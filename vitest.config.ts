import { defineConfig } from 'vitest/config';

/**
 * Stack files that must have the shared stack to themselves (docs/testing.md, *How the run is laid out*):
 * they wait for every queue to stay empty (`quiesce()`), send bursts that must land within one second of a
 * per-second limit, use up 127.0.0.1's failed-authentication limit, start service processes of their own
 * beside it (`cli`), or drive Chromium.
 */
const alone = [
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
  'test/e2e/cli.test.ts',
  'test/e2e/dashboard.test.ts',
  'test/e2e/dashboard-manage.test.ts',
  'test/e2e/account-links.test.ts',
];
/**
 * Files that never touch the shared stack but start (and `kill -9`) service processes of their own, each with its
 * own DynamoDB Local and data directory: before the shared stack's files, while its jobs wait for its first answer,
 * two at a time (one at a time, one process and its DynamoDB Local left the second core mostly idle), each start
 * allowed 120 s.
 */
const ownStacks = [
  'test/integration/billing-crash.test.ts',
  'test/integration/metered-billing-crash.test.ts',
  'test/integration/crash-safety.test.ts',
  'test/integration/meter-restart.test.ts',
  'test/integration/persistence.test.ts',
  'test/integration/token-logs.test.ts',
];
/**
 * Unit files that change what the process shares (environment variables, the config read once from them, the
 * service's AWS clients, the clock): each runs in a fresh module graph. The other unit files share one per worker.
 */
const unitIsolated = [
  'test/unit/cli/trigger.test.ts',
  'test/unit/core/sdk-clients.test.ts',
  'test/unit/functions/route-handlers.test.ts',
  'test/unit/http/auth-failures.test.ts',
  'test/unit/http/expansion-pipeline.test.ts',
  'test/unit/http/v2-pipeline.test.ts',
  'test/unit/http/version-pipeline.test.ts',
  'test/unit/local/local-clock.test.ts',
  'test/unit/openapi/openapi.test.ts',
  'test/unit/secrets/route-permissions.test.ts',
];
/**
 * The JVM flags of the DynamoDB Local engines that `local` and `own-stacks` files start: each lives seconds to a
 * minute, so C2's compilation never pays back the CPU it takes from the other file beside it. C1 only, the six
 * `own-stacks` files took 76 s instead of 122 s and `local` 47 instead of 61 s (one full run each); the shared
 * stack, which serves ten minutes of requests, was slower under C1 (stack files 241 s against 202), so it keeps
 * the JVM's defaults, as `npm start` does.
 */
const shortLivedEngines = { JAVA_TOOL_OPTIONS: '-XX:TieredStopAtLevel=1' };
const stackFiles = ['test/handler/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'];
const stackProject = { globalSetup: ['test/support/global-setup.ts'], testTimeout: 60_000, hookTimeout: 60_000 };

/**
 * Test layers. `unit` and `infra` need nothing running; `local` starts the pieces of the local stack it
 * tests; `stack` and `stack-alone` (handler, integration and end-to-end tests) share one local stack started
 * by the global setup for the whole run; `own-stacks` start stacks of their own.
 *
 * `unit`, `infra` and `local` run two files at a time (CPU-bound: CDK synths, engines), whatever the
 * machine's core count (vitest's default on CI's 2 cores is one). `unit` (but `unitIsolated`) and `infra` run
 * their files without isolation: the files a worker runs share its modules, imported once (a unit file spent
 * more time importing than testing), and for `infra` a warm CDK and validation engine and one synth of the real
 * route table (test/infra/support/service-app.ts, `realService`). Once they are done (`groupOrder`),
 * `own-stacks` runs two files at a time, then `stack` two at a time against the shared stack, then
 * `stack-alone` one at a time (the files of `alone`).
 */
export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: unitIsolated, isolate: false } },
      { test: { name: 'unit-isolated', include: unitIsolated } },
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], isolate: false, testTimeout: 180_000, hookTimeout: 180_000 } },
      { test: { name: 'local', include: ['test/local/**/*.test.ts'], env: shortLivedEngines, testTimeout: 60_000, hookTimeout: 60_000 } },
      // After the other projects, not beside them: a shared stack slowed by CDK synths and engines beside
      // it made its files 2-8 times slower (the whole run 1,052 s against 766 s one file at a time).
      { test: { name: 'own-stacks', include: ownStacks, env: shortLivedEngines, sequence: { groupOrder: 1 }, testTimeout: 120_000, hookTimeout: 120_000 } },
      { test: { name: 'stack', include: stackFiles, exclude: [...alone, ...ownStacks], sequence: { groupOrder: 2 }, ...stackProject } },
      { test: { name: 'stack-alone', include: alone, fileParallelism: false, sequence: { groupOrder: 3 }, ...stackProject } },
    ],
  },
});
