import { describe, expect, it } from 'vitest';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import type { Scope } from '#shared/platform/types.ts';
import { webhookEndpointService } from '#shared/webhook-endpoints/service.ts';
import type { WebhookEndpoint } from '#shared/webhook-endpoints/webhook-endpoint.ts';
import { memoryOwnedStore } from '../../support/fakes.ts';
import { memorySecretBox } from '../../support/secret-box.ts';

const serviceWith = (maxEndpoints = 16) => ({
  service: webhookEndpointService({
    repository: memoryOwnedStore<WebhookEndpoint>(),
    maxEndpoints,
    egress: { allowPrivateInTestMode: true },
    secrets: memorySecretBox(),
  }),
});

const test: Scope = { accountId: 'acct_a', livemode: false };
const live: Scope = { accountId: 'acct_a', livemode: true };
const params = { url: 'http://127.0.0.1:9999/hook', enabled_events: ['customer.created', 'customer.created'] };

describe('webhook endpoint service', () => {
  it('creates an enabled endpoint with a whsec_ secret and de-duplicated events', async () => {
    const { service } = serviceWith();
    const endpoint = await service.create(test, params);
    expect(endpoint).toMatchObject({ status: 'enabled', enabledEvents: ['customer.created'], description: null, metadata: {}, apiVersion: null });
    expect(endpoint.secret).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
  });

  it('allows http in test mode but only https in live mode', async () => {
    const { service } = serviceWith();
    await expect(service.create(live, params)).rejects.toThrow(/must use https/);
    await expect(service.create(live, { ...params, url: 'https://example.test/hook' })).resolves.toBeDefined();
    await expect(service.create(test, { ...params, url: 'ftp://example.test' })).rejects.toThrow(InvalidRequestError);
  });

  it('refuses more endpoints than the configured cap', async () => {
    const { service } = serviceWith(2);
    await service.create(test, params);
    await service.create(test, params);
    await expect(service.create(test, params)).rejects.toMatchObject({ code: 'webhook_endpoint_limit_reached' });
  });

  it('updates fields, merges metadata and toggles status with disabled', async () => {
    const { service } = serviceWith();
    const endpoint = await service.create(test, { ...params, metadata: { a: '1', b: '2' } });
    const updated = await service.update(test, endpoint.id, { disabled: true, metadata: { a: '', c: '3' }, description: 'd' });
    expect(updated).toMatchObject({ status: 'disabled', metadata: { b: '2', c: '3' }, description: 'd', version: 2 });
    expect((await service.update(test, endpoint.id, { disabled: false, description: null })).status).toBe('enabled');
  });

  it('reports a missing endpoint, including on a second delete', async () => {
    const { service } = serviceWith();
    const endpoint = await service.create(test, params);
    await service.delete(test, endpoint.id);
    await expect(service.delete(test, endpoint.id)).rejects.toThrow(NotFoundError);
    await expect(service.retrieve(live, endpoint.id)).rejects.toThrow(NotFoundError);
  });
});
