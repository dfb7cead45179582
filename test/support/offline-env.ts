import { afterAll, beforeAll, vi } from 'vitest';
import { offlineHandlerEnvironment } from '#shared/openapi/document.ts';

/**
 * Gives the handler pipeline the configuration it reads (table name, region, queue URLs) for the tests of
 * this file, without a stack: the values name nothing that runs, so a test that reached DynamoDB or SQS
 * would fail instead of passing by accident.
 */
export function useOfflineHandlerEnvironment(): void {
  beforeAll(() => {
    for (const [name, value] of Object.entries(offlineHandlerEnvironment)) if (process.env[name] === undefined) vi.stubEnv(name, value);
  });
  afterAll(() => {
    vi.unstubAllEnvs();
  });
}
