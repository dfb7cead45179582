import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, describe, expect, it } from 'vitest';
import { startServiceProcess } from '#local/service-process.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'service-persist-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/**
 * Two of these files run at once (vitest.config.ts, `ownStacks`): a whole stack (DynamoDB Local, the queues)
 * starting beside another may take longer than the default 30 s.
 */
const startTimeout = 120_000;

const client = (key: string, baseUrl: string) => new Stripe(key, { host: '127.0.0.1', port: Number(new URL(baseUrl).port), protocol: 'http' });

describe('npm start', () => {
  it('keeps endpoints and the default keys across a stop and a restart', async () => {
    // Given a service that created an endpoint, then stopped
    const first = await startServiceProcess([], { SERVICE_DATA_DIR: dataDir }, startTimeout);
    const created = await client(first.secretKey, first.baseUrl).webhookEndpoints.create({
      url: 'http://127.0.0.1:9/persist',
      enabled_events: ['*'],
    });
    expect(await first.stop()).toBe(0);

    // When it starts again on the same data directory
    const second = await startServiceProcess([], { SERVICE_DATA_DIR: dataDir }, startTimeout);
    try {
      // Then it prints the same default keys and the endpoint is still there
      expect([second.account, second.secretKey, second.publishableKey]).toEqual([first.account, first.secretKey, first.publishableKey]);
      const retrieved = await client(second.secretKey, second.baseUrl).webhookEndpoints.retrieve(created.id);
      expect(retrieved.url).toBe('http://127.0.0.1:9/persist');
    } finally {
      await second.stop();
    }
  });

  it("pins the default platform's test keys from SERVICE_SECRET_KEY and SERVICE_PUBLISHABLE_KEY, in memory", async () => {
    const secretKey = 'sk_test_pinnedpinnedpinnedpinned01';
    const publishableKey = 'pk_test_pinnedpinnedpinnedpinned01';
    const service = await startServiceProcess(['--in-memory'], { SERVICE_SECRET_KEY: secretKey, SERVICE_PUBLISHABLE_KEY: publishableKey }, startTimeout);
    try {
      expect([service.secretKey, service.publishableKey]).toEqual([secretKey, publishableKey]);
      expect(service.output()).toContain('in memory');
      await expect(client(secretKey, service.baseUrl).webhookEndpoints.list()).resolves.toMatchObject({ object: 'list', data: [] });
    } finally {
      await service.stop();
    }
  });
});
