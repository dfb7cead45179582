import { defineConfig } from 'vitest/config';

/**
 * Test layers. `unit` and `infra` need nothing running; `local` starts the pieces of the local stack it
 * tests; `stack` (handler, integration and end-to-end tests) shares one local stack started by the
 * global setup for the whole run.
 *
 * `unit`, `infra` and `local` run two files at a time (CPU-bound: CDK synths, engines), whatever the
 * machine's core count (vitest's default on CI's 2 cores is one). `stack` runs one file at a time
 * (`fileParallelism: false`), once they are done (`groupOrder: 1`): several of its files need the shared
 * stack quiet (`quiesce()`, per-second rate-limit bursts, the fuzzer's failed authentications from
 * 127.0.0.1) and the crash tests start service processes within a start timeout (docs/testing.md).
 */
export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 180_000, hookTimeout: 180_000 } },
      { test: { name: 'local', include: ['test/local/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 } },
      {
        test: {
          name: 'stack',
          include: ['test/handler/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          fileParallelism: false,
          // After the other projects, not beside them: a shared stack slowed by CDK synths and engines beside
          // it made its files 2-8 times slower (the whole run 1,052 s against 766 s one file at a time).
          sequence: { groupOrder: 1 },
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
