import { beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { api, newPlatform, sdk } from '../support/stack.ts';

const form = (url: string) => `url=${encodeURIComponent(url)}&enabled_events[0]=*`;

describe('Idempotency-Key over HTTP', () => {
  let platform: CreatedPlatform;
  beforeAll(async () => {
    platform = await newPlatform();
  });

  it('creates exactly one endpoint for 50 parallel POSTs with one key, and all see the same object', async () => {
    // Given one key
    const key = randomUUID();

    // When 50 identical requests race
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: form('http://127.0.0.1:9/race'), headers: { 'idempotency-key': key } }),
      ),
    );

    // Then every answer is the same endpoint and only one exists
    expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
    expect(new Set(answers.map((answer) => answer.body.id)).size).toBe(1);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(49);
    const listed = await sdk(platform.secret_key).webhookEndpoints.list({ limit: 100 });
    expect(listed.data.filter((endpoint) => endpoint.url === 'http://127.0.0.1:9/race')).toHaveLength(1);
  });

  it('replays the stored response for a retry, secret included, naming the original request', async () => {
    const key = randomUUID();
    const first = await api('POST', '/v1/webhook_endpoints', {
      key: platform.secret_key,
      form: form('http://127.0.0.1:9/retry'),
      headers: { 'idempotency-key': key },
    });
    const retry = await api('POST', '/v1/webhook_endpoints', {
      key: platform.secret_key,
      form: form('http://127.0.0.1:9/retry'),
      headers: { 'idempotency-key': key },
    });

    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('original-request')).toBe(first.headers.get('request-id'));
    expect(retry.headers.get('request-id')).not.toBe(first.headers.get('request-id'));
  });

  it('answers 400 idempotency_error for the same key with another body, which the SDK raises as its idempotency error without retrying', async () => {
    const key = randomUUID();
    await api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: form('http://127.0.0.1:9/a'), headers: { 'idempotency-key': key } });

    const other = await api('POST', '/v1/webhook_endpoints', {
      key: platform.secret_key,
      form: form('http://127.0.0.1:9/b'),
      headers: { 'idempotency-key': key },
    });

    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
    expect(other.body.error.message).toContain(key);

    const client = sdk(platform.secret_key);
    const reused = await client.webhookEndpoints
      .create({ url: 'http://127.0.0.1:9/c', enabled_events: ['*'] }, { idempotencyKey: key })
      .catch((error: unknown) => error as { type: string; statusCode: number; code: string });
    expect(reused).toMatchObject({ type: 'StripeIdempotencyError', statusCode: 400, code: 'idempotency_key_reused' });
  });

  it('replays a DELETE, so that a retried delete does not turn into a 404', async () => {
    const client = sdk(platform.secret_key);
    const endpoint = await client.webhookEndpoints.create({ url: 'http://127.0.0.1:9/del', enabled_events: ['*'] });
    const key = randomUUID();

    const first = await api('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: platform.secret_key, headers: { 'idempotency-key': key } });
    const retry = await api('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: platform.secret_key, headers: { 'idempotency-key': key } });
    const fresh = await api('DELETE', `/v1/webhook_endpoints/${endpoint.id}`, { key: platform.secret_key });

    expect([first.status, retry.status, fresh.status]).toEqual([200, 200, 404]);
    expect(retry.body).toEqual({ id: endpoint.id, object: 'webhook_endpoint', deleted: true });
  });

  it('scopes keys per account: another platform may use the same key for its own request', async () => {
    const key = randomUUID();
    const other = await newPlatform();
    const mine = await api('POST', '/v1/webhook_endpoints', {
      key: platform.secret_key,
      form: form('http://127.0.0.1:9/x'),
      headers: { 'idempotency-key': key },
    });
    const theirs = await api('POST', '/v1/webhook_endpoints', {
      key: other.secret_key,
      form: form('http://127.0.0.1:9/y'),
      headers: { 'idempotency-key': key },
    });

    expect(theirs.status).toBe(200);
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('does not keep validation failures, so a corrected retry with the same key succeeds', async () => {
    const key = randomUUID();
    const bad = await api('POST', '/v1/webhook_endpoints', { key: platform.secret_key, form: 'enabled_events[0]=*', headers: { 'idempotency-key': key } });
    const good = await api('POST', '/v1/webhook_endpoints', {
      key: platform.secret_key,
      form: form('http://127.0.0.1:9/z'),
      headers: { 'idempotency-key': key },
    });
    expect([bad.status, good.status]).toEqual([400, 200]);
  });

  it('refuses a key longer than 255 characters', async () => {
    const answer = await api('POST', '/v1/webhook_endpoints', {
      key: platform.secret_key,
      form: form('http://127.0.0.1:9/z'),
      headers: { 'idempotency-key': 'k'.repeat(256) },
    });
    expect(answer.status).toBe(400);
  });
});
