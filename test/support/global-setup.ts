import type { TestProject } from 'vitest/node';
import type { GatewayRoute } from '#local/http-gateway.ts';
import type { InvalidBatchResponse } from '#local/queue-workers.ts';
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
  /** How often the stack's scheduled jobs (outbox and delivery sweepers) run, in milliseconds. */
  jobIntervalMs: number;
  /** The master key of the stack's KMS stand-in, base64: handlers run in a test's process open secrets with it. */
  kmsMasterKey: string;
}

const jobIntervalMs = 2000;

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}

/** The one stack of a run, shared by the `stack` and `stack-alone` projects (each loads this file on its own). */
interface SharedStack {
  info: StackInfo;
  /** Projects set up and not yet torn down: the last teardown stops the stack and reports. */
  users: number;
  stopAndReport(): Promise<void>;
}

const shared = globalThis as { sharedTestStack?: Promise<SharedStack> };

/**
 * Starts one in-memory local stack for the whole run, on a free port, with delivery retries and the
 * sweeper sped up from hours and minutes to seconds.
 *
 * Every answer the stack gives, to the SDK and to raw calls alike, is checked against the OpenAPI document
 * built from this very code (test/support/openapi-responses.ts); any answer it does not describe fails the
 * run at the end, listed by operation, status and problem. So does any batch response of a queue worker that
 * Lambda would reject (the poller's "returned an invalid batch response"), listed by function.
 */
export default async function setup(project: TestProject) {
  shared.sharedTestStack ??= startSharedStack();
  const stack = await shared.sharedTestStack;
  stack.users += 1;
  project.provide('stack', stack.info);
  return async () => {
    stack.users -= 1;
    if (stack.users === 0) await stack.stopAndReport();
  };
}

async function startSharedStack(): Promise<SharedStack> {
  // Imported here, not at the top of the file: both stack projects load this file, and only the first starts a
  // stack (importing the service a second time took 3.6 s before any test ran).
  const [
    { startLocalStack },
    { createModuleLoader },
    { buildOpenApiDocument },
    { routes },
    { routeResponses },
    { openApiResponseChecker, describeViolations },
  ] = await Promise.all([
    import('#local/stack.ts'),
    import('#local/http-gateway.ts'),
    import('#shared/openapi/document.ts'),
    import('#functions/routes.ts'),
    import('#functions/responses.ts'),
    import('./openapi-responses.ts'),
  ]);
  // Answers given before the document is built are checked once it is.
  const early: Array<[GatewayRoute, unknown]> = [];
  let inspect = (route: GatewayRoute, result: unknown) => {
    early.push([route, result]);
  };
  const invalidBatchResponses: InvalidBatchResponse[] = [];
  // The global setup runs before the first project: the `unit`, `infra` and `local` files run first, beside an
  // unused stack whose idle job runs took a fifth of a core. The jobs start with the stack's first answer (every
  // file that waits on a job asks the API something first).
  let firstAnswer: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => {
    firstAnswer = resolve;
  });
  const stack = await startLocalStack({
    inspectResponse: (route, result) => {
      firstAnswer();
      inspect(route, result);
    },
    onInvalidBatchResponse: (report) => invalidBatchResponses.push(report),
    port: 0,
    quiet: true,
    jobIntervalMs,
    jobsFrom: answered,
    // The reference's rate limits (off by default locally) where env does not set smaller or roomier ones:
    // the 429 tests (rate-limits, search, v1 meter events) count on them.
    rateLimits: true,
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
      RATE_LIMIT_SEARCH_LIVE: '10',
      RATE_LIMIT_SEARCH_TEST: '1000',
    },
  });
  // The handler modules need the stack's environment to load, so the document is built once it is up; beside
  // the first files rather than before them (2.5 s), as no stack file runs until the other projects are done.
  const checkerBuilt = buildOpenApiDocument(routes, routeResponses, createModuleLoader()).then((document) => {
    const checker = openApiResponseChecker(document);
    for (const [route, result] of early.splice(0)) checker.inspect(route, result);
    inspect = checker.inspect;
    return checker;
  });
  checkerBuilt.catch(() => undefined); // reported by stopAndReport
  const info: StackInfo = {
    baseUrl: stack.baseUrl,
    port: Number(new URL(stack.baseUrl).port),
    env: stack.env,
    defaultPlatform: stack.defaultPlatform,
    eventBridgeEndpoint: stack.eventBridge.endpoint,
    eventGridEndpoint: stack.eventGrid.endpoint,
    jobIntervalMs,
    kmsMasterKey: stack.kmsMasterKey.toString('base64'),
  };
  const stopAndReport = async () => {
    await stack.stop();
    // A teardown that throws is only logged by vitest; the exit code is what CI sees.
    const checker = await checkerBuilt.catch((error: Error) => {
      console.error(`\nThe OpenAPI document to check the local stack's answers against could not be built: ${error.stack}\n`);
      process.exitCode = 1;
    });
    if (checker && checker.violations.length > 0) {
      console.error(
        `\n${checker.violations.length} answers of the local stack do not match the OpenAPI document:\n${describeViolations(checker.violations)}\n`,
      );
      process.exitCode = 1;
    }
    if (invalidBatchResponses.length > 0) {
      // Lambda retries such a batch whole: its messages' work is done twice (duplicate webhooks).
      const listed = invalidBatchResponses.map(({ functionName, response }) => `  ${functionName}: ${response}`).join('\n');
      console.error(`\n${invalidBatchResponses.length} batch responses of the queue workers were invalid:\n${listed}\n`);
      process.exitCode = 1;
    }
  };
  return { info, users: 0, stopAndReport };
}
