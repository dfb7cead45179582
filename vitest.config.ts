import { defineConfig } from 'vitest/config';

/**
 * Test layers. `unit` and `infra` need nothing running; `local` starts the pieces of the local stack it
 * tests; `stack` (handler, integration and end-to-end tests) shares one local stack started by the
 * global setup for the whole run.
 */
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], testTimeout: 180_000, hookTimeout: 180_000 } },
      { test: { name: 'local', include: ['test/local/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000 } },
      {
        test: {
          name: 'stack',
          include: ['test/handler/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
