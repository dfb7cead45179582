import type { TestProject } from 'vitest/node';
import { startLocalStack } from '#local/stack.ts';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';

/** What test files of the `stack` project learn about the shared local stack. */
export interface StackInfo {
  baseUrl: string;
  port: number;
  /** The environment the handlers run with (table name, local endpoints, queue URLs). */
  env: Record<string, string>;
  defaultPlatform: CreatedPlatform;
  eventBridgeEndpoint: string;
  eventGridEndpoint: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}

/**
 * Starts one in-memory local stack for the whole run, on a free port, with delivery retries and the
 * sweeper sped up from hours and minutes to seconds.
 */
export default async function setup(project: TestProject) {
  const stack = await startLocalStack({
    port: 0,
    quiet: true,
    jobIntervalMs: 500,
    env: {
      DELIVERY_RETRY_SCHEDULE_TEST: '1,1,1',
      DELIVERY_RETRY_SCHEDULE_LIVE: '1,1,1,1',
      SWEEP_GRACE_SECONDS: '2',
      DELIVERY_TIMEOUT_MS: '2000',
      METER_ERROR_WINDOW_SECONDS: '1',
      // A revoked key stops working within a second; live mode gets small limits that a test can reach
      // (test/e2e/rate-limits.test.ts), test mode roomy ones for the fuzzing and concurrency tests.
      API_KEY_CACHE_SECONDS: '1',
      RATE_LIMIT_PER_KEY_LIVE: '20',
      RATE_LIMIT_METER_EVENTS_LIVE: '20',
      RATE_LIMIT_PER_KEY_TEST: '1000',
    },
  });
  project.provide('stack', {
    baseUrl: stack.baseUrl,
    port: Number(new URL(stack.baseUrl).port),
    env: stack.env,
    defaultPlatform: stack.defaultPlatform,
    eventBridgeEndpoint: stack.eventBridge.endpoint,
    eventGridEndpoint: stack.eventGrid.endpoint,
  });
  return () => stack.stop();
}
