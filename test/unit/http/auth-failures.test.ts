import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { responds, serveRequest } from '#shared/http/handler.ts';
import { rateLimiter } from '#shared/http/rate-limit.ts';
import { createPlatform, type CreatedPlatform } from '#shared/platform/platform-service.ts';
import { cachedApiKeys } from '#shared/platform/wiring.ts';
import { apiGatewayEvent } from '../../support/api-gateway-event.ts';
import { fakePipelinePorts, fakePlatformStore, memoryRateCounter } from '../../support/fakes.ts';
import { useOfflineHandlerEnvironment } from '../../support/offline-env.ts';

useOfflineHandlerEnvironment();

const params = z.strictObject({});
const response = z.object({ object: z.literal('thing') });
const operation = async () => ({ body: { object: 'thing' as const } });
const guessedKey = () => `sk_test_${randomBytes(36).toString('base64url').replace(/[-_]/g, 'x')}`;

describe('failed authentication, limited per source address', () => {
  let platform: CreatedPlatform;
  /** Every key lookup that reached the store (the table). */
  let lookups = 0;
  let ports: ReturnType<typeof fakePipelinePorts>;
  const limit = 20;

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2027, 0, 15, 10, 0, 0, 100));
    const store = fakePlatformStore();
    platform = await createPlatform(store);
    const counting = {
      ...store,
      findApiKey: (hash: string) => {
        lookups++;
        return store.findApiKey(hash);
      },
    };
    ports = fakePipelinePorts(cachedApiKeys(counting));
    ports.rateLimiter = rateLimiter(memoryRateCounter().counter);
    ports.rateLimits = { ...ports.rateLimits, authFailures: limit };
  });
  afterAll(() => {
    vi.useRealTimers();
  });

  const call = (key: string, sourceIp: string) => {
    const event = apiGatewayEvent({ method: 'GET', path: '/v1/things', headers: { authorization: `Bearer ${key}` } });
    event.requestContext.http.sourceIp = sourceIp;
    return serveRequest(event, { summary: 'Test a thing', params, response: responds<typeof response>() }, operation, ports);
  };

  it('reads the table for at most the limit of guessed keys a second from one address, and refuses the rest with 429 before any read', async () => {
    // Given an address that sends 300 well-formed keys nobody issued within one second
    lookups = 0;
    const answers = [];
    for (let i = 0; i < 300; i++) answers.push(await call(guessedKey(), '198.51.100.7'));
    // Then the first `limit` are refused as unknown (each one read), and the rest are rate-limited unread
    expect(answers.slice(0, limit).map((answer) => answer.statusCode)).toEqual(Array(limit).fill(401));
    expect(answers.slice(limit).every((answer) => answer.statusCode === 429)).toBe(true);
    expect(lookups).toBeLessThanOrEqual(limit + 1);
    const refused = JSON.parse(answers[299]!.body as string);
    expect(refused.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit', message: expect.stringContaining('invalid credentials') });
    expect(answers[299]!.headers).toMatchObject({ 'Retry-After': '1' });

    // And another address is not held back by the first one's failures: its valid key works, its bad key is a 401
    expect((await call(platform.secret_key, '203.0.113.9')).statusCode).toBe(200);
    expect((await call(guessedKey(), '203.0.113.9')).statusCode).toBe(401);

    // And the next second, the first address is counted afresh
    vi.setSystemTime(Date.UTC(2027, 0, 15, 10, 0, 1, 100));
    expect((await call(platform.secret_key, '198.51.100.7')).statusCode).toBe(200);
  });

  it('reads a key nobody issued once per cache window, however often it is presented', async () => {
    lookups = 0;
    const key = guessedKey();
    for (let i = 0; i < 5; i++) expect((await call(key, `192.0.2.${i}`)).statusCode).toBe(401);
    expect(lookups).toBe(1);
  });
});
