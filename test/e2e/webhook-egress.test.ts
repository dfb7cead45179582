import { beforeAll, describe, expect, it } from 'vitest';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { api, newPlatform } from '../support/stack.ts';

/** Targets a live-mode webhook may never have: loopback, private, link-local (cloud metadata), unique-local. */
const privateTargets = [
  'https://127.0.0.1/hook',
  'https://169.254.169.254/latest/meta-data',
  'https://10.0.0.5/hook',
  'https://[::1]/hook',
  'https://[fd00::1]/hook',
  'https://[::ffff:127.0.0.1]/hook',
  'https://localhost/hook',
  'https://api.localhost/hook',
];

describe('webhook egress', () => {
  let live: CreatedPlatform;
  beforeAll(async () => {
    live = await newPlatform({ livemode: true });
  });

  it('refuses private, loopback and link-local targets for live-mode v1 webhook endpoints and v2 destinations', async () => {
    for (const url of privateTargets) {
      const v1 = await api('POST', '/v1/webhook_endpoints', { key: live.secret_key, form: `url=${encodeURIComponent(url)}&enabled_events[0]=*` });
      expect(v1.status, url).toBe(400);
      expect(v1.body.error).toMatchObject({ type: 'invalid_request_error', code: 'url_invalid', param: 'url' });
      const v2 = await api('POST', '/v2/core/event_destinations', {
        key: live.secret_key,
        json: { name: 'x', type: 'webhook_endpoint', event_payload: 'thin', enabled_events: ['v2.core.event_destination.ping'], webhook_endpoint: { url } },
      });
      expect(v2.status, url).toBe(400);
      expect(v2.body.error).toMatchObject({ code: 'url_invalid' });
    }
  });

  it('refuses a change of a live endpoint to a private target, and accepts public ones', async () => {
    const created = await api('POST', '/v1/webhook_endpoints', { key: live.secret_key, form: 'url=https://93.184.216.34/hook&enabled_events[0]=*' });
    expect(created.status).toBe(200);
    const moved = await api('POST', `/v1/webhook_endpoints/${created.body.id}`, { key: live.secret_key, form: 'url=https://169.254.169.254/' });
    expect(moved.status).toBe(400);
    expect(moved.body.error).toMatchObject({ code: 'url_invalid', param: 'url' });
  });

  it('lets test mode reach this machine in the local stack (WEBHOOK_ALLOW_PRIVATE_TARGETS)', async () => {
    const test = await newPlatform();
    const created = await api('POST', '/v1/webhook_endpoints', { key: test.secret_key, form: 'url=http://127.0.0.1:9/hook&enabled_events[0]=*' });
    expect(created.status).toBe(200);
  });
});
