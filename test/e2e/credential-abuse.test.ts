import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey, type CreatedPlatform } from '#shared/platform/platform-service.ts';
import { api, newPlatform, platformStore, sdk, stack } from '../support/stack.ts';
import { eventually } from '../support/wait.ts';

/** The stack's limit on failed authentications per source address and second (the default). */
const limit = Number(stack.env.RATE_LIMIT_AUTH_FAILURES ?? 20);

/**
 * A request sent from `sourceAddress`, one of the loopback block's addresses (127.0.0.0/8): the stack sees it
 * as that client, so each test is an address of its own, apart from every other test's 127.0.0.1.
 */
function callFrom(sourceAddress: string, method: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const sent = request(`${stack.baseUrl}${path}`, { method, headers, localAddress: sourceAddress }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    sent.on('error', reject);
    sent.end(body);
  });
}

const base62 = (length: number) =>
  randomBytes(length * 2)
    .toString('base64')
    .replace(/[^0-9A-Za-z]/g, '')
    .slice(0, length);
const guessedKey = () => `sk_test_${base62(48)}`;

/** Sends `count` guesses from one address, ten at a time, and tallies the answers' statuses. */
async function guesses(count: number, guess: () => Promise<{ status: number; body: string }>) {
  const answers: Array<{ status: number; body: string }> = [];
  for (let sent = 0; sent < count; sent += 10) answers.push(...(await Promise.all(Array.from({ length: 10 }, guess))));
  return answers;
}

describe('credentials that are guessed, or outlive their key', () => {
  let platform: CreatedPlatform;
  beforeAll(async () => {
    platform = await newPlatform();
  });

  it('refuses an address that keeps presenting unknown API keys with 429 before reading them, while other addresses go on', async () => {
    // Given an address that sends 200 keys nobody issued, as fast as it can
    const started = Date.now();
    const answers = await guesses(200, () => callFrom('127.0.0.41', 'GET', '/v1/customers', { authorization: `Bearer ${guessedKey()}` }));
    const seconds = Math.ceil((Date.now() - started) / 1000) + 1;
    // Then at most the limit a second were looked up (401), and the rest were refused as a rate limit
    const unknown = answers.filter((answer) => answer.status === 401);
    const limited = answers.filter((answer) => answer.status === 429);
    expect(unknown.length + limited.length).toBe(200);
    expect(unknown.length).toBeLessThanOrEqual(limit * seconds);
    expect(limited.length).toBeGreaterThan(0);
    expect(JSON.parse(limited[0]!.body).error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit' });
    // And the platform's own key, from another address, is served meanwhile
    expect((await callFrom('127.0.0.42', 'GET', '/v1/customers', { authorization: `Bearer ${platform.secret_key}` })).status).toBe(200);
  });

  it('limits guessed meter event session tokens and account link secrets the same way', async () => {
    const tokens = await guesses(200, () =>
      callFrom(
        '127.0.0.43',
        'POST',
        '/v2/billing/meter_event_stream',
        { authorization: `Bearer mes_tok_${base62(48)}`, 'content-type': 'application/json' },
        JSON.stringify({ events: [{ event_name: 'api_calls', payload: { value: '1' } }] }),
      ),
    );
    expect(tokens.filter((answer) => answer.status === 429).length).toBeGreaterThan(0);
    expect(tokens.every((answer) => answer.status === 401 || answer.status === 429)).toBe(true);

    const links = await guesses(200, () => callFrom('127.0.0.44', 'GET', `/hosted/account_links/${base62(43)}`));
    expect(links.filter((answer) => answer.status === 429).length).toBeGreaterThan(0);
    expect(links.every((answer) => answer.status === 404 || answer.status === 429)).toBe(true);
    expect(links.find((answer) => answer.status === 429)!.body).toContain('Too many attempts');
  });

  it('ends a meter event session when the API key that created it is revoked', async () => {
    // Given a session of a key of its own, which streams
    const own = await newPlatform();
    const session = await sdk(own.secret_key).v2.billing.meterEventSession.create();
    const stream = () =>
      api('POST', '/v2/billing/meter_event_stream', {
        key: session.authentication_token,
        json: { events: [{ event_name: 'api_calls', payload: { service_customer_id: 'cus_x', value: '1' } }] },
      });
    expect((await stream()).status).toBe(202);
    // When the key is revoked
    await revokeApiKey(platformStore(), own.secret_key);
    // Then the session stops within the key cache window (a second on the test stack), as an expired key
    const refused = await eventually(async () => {
      const answer = await stream();
      return answer.status === 202 ? undefined : answer;
    });
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ type: 'authentication_error', code: 'api_key_expired' });
  });
});
