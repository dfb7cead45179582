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
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}

/** Starts one in-memory local stack for the whole run, on a free port. */
export default async function setup(project: TestProject) {
  const stack = await startLocalStack({ port: 0, quiet: true });
  project.provide('stack', {
    baseUrl: stack.baseUrl,
    port: Number(new URL(stack.baseUrl).port),
    env: stack.env,
    defaultPlatform: stack.defaultPlatform,
    eventBridgeEndpoint: stack.eventBridge.endpoint,
  });
  return () => stack.stop();
}
