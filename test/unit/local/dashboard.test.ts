import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { html, jsonBlock } from '#local/dashboard/html.ts';
import { isLoopbackHost } from '#local/http-io.ts';
import { dashboardKeyring, rememberPlatformKey } from '#local/dashboard/keyring.ts';
import { streamSessions } from '#local/dashboard/stream-sessions.ts';
import { generateApiKey, hashApiKey } from '#shared/platform/api-keys.ts';
import type { ApiKeyRecord } from '#shared/platform/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'dashboard-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Keys as the platform store knows them. */
function keyStore() {
  const records = new Map<string, ApiKeyRecord>();
  const issue = (accountId: string, kind: 'secret' | 'publishable' = 'secret', livemode = false) => {
    const key = generateApiKey(kind, livemode);
    records.set(hashApiKey(key), { hash: hashApiKey(key), accountId, livemode, kind, hint: '', created: 0 });
    return key;
  };
  return { records, issue, findKey: async (hash: string) => records.get(hash) };
}

describe('the dashboard keyring', () => {
  it('lists the default platform first, then those npm run admin remembered, then those added, one entry per account with a key per mode', async () => {
    // Given a default platform, a platform whose test and live keys admin wrote to the keys file, and one added by hand
    const store = keyStore();
    const defaultKey = store.issue('acct_default');
    const file = join(dir, 'platform-keys');
    const adminTest = store.issue('acct_admin');
    const adminLive = store.issue('acct_admin', 'secret', true);
    rememberPlatformKey(file, adminTest);
    rememberPlatformKey(file, adminLive);
    rememberPlatformKey(file, adminTest);
    const keyring = dashboardKeyring({ defaultAccount: 'acct_default', defaultKey, file, findKey: store.findKey, clock: () => 1_000 });
    const added = store.issue('acct_added');

    // When one is added by its key
    expect(await keyring.add(added)).toMatchObject({ account: 'acct_added', keys: { test: added } });

    // Then all three are listed, the default first, each with its keys by mode
    expect(await keyring.list()).toEqual([
      { account: 'acct_default', keys: { test: defaultKey }, isDefault: true, expired: {} },
      { account: 'acct_admin', keys: { test: adminTest, live: adminLive }, isDefault: false, expired: {} },
      { account: 'acct_added', keys: { test: added }, isDefault: false, expired: {} },
    ]);
    // and the keys file holds each key once, a line each, readable by its owner only
    expect(readFileSync(file, 'utf8')).toBe(`${adminTest}\n${adminLive}\n${added}\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // A line that is not a secret key (a hand edit, a publishable key) is skipped, the others still read
    appendFileSync(file, `{"not": "a key"}\n${store.issue('acct_other', 'publishable')}\n\n`);
    expect((await keyring.list()).map((platform) => platform.account)).toEqual(['acct_default', 'acct_admin', 'acct_added']);
  });

  it('refuses publishable, unknown and malformed keys, and keeps a platform whose key was rolled, without the key, until its new key is known', async () => {
    const store = keyStore();
    const defaultKey = store.issue('acct_default');
    const file = join(dir, 'rolled-keys');
    const keyring = dashboardKeyring({ defaultAccount: 'acct_default', defaultKey, file, findKey: store.findKey, clock: () => 1_000 });
    for (const key of [store.issue('acct_other', 'publishable'), generateApiKey('secret', false), 'sk_test_x', '<script>', '']) {
      expect(await keyring.add(key), key).toBeUndefined();
    }
    // Given a platform added by its key
    const rolled = store.issue('acct_rolled');
    expect(await keyring.get('acct_rolled')).toBeUndefined();
    await keyring.add(rolled);
    expect(await keyring.get('acct_rolled')).toMatchObject({ keys: { test: rolled } });

    // When its key is rolled (it stops working), the platform stays, with no key and the old key's hint
    store.records.get(hashApiKey(rolled))!.expiresAt = 1_000;
    expect(await keyring.get('acct_rolled')).toEqual({ account: 'acct_rolled', keys: {}, isDefault: false, expired: { test: `sk_test_…${rolled.slice(-4)}` } });
    expect(await keyring.add(rolled)).toBeUndefined();

    // and once roll-key wrote the new key to the keys file, the platform has it again
    const replacement = store.issue('acct_rolled');
    rememberPlatformKey(file, replacement);
    expect(await keyring.get('acct_rolled')).toEqual({ account: 'acct_rolled', keys: { test: replacement }, isDefault: false, expired: {} });
    expect((await keyring.list()).map((platform) => platform.account)).toEqual(['acct_default', 'acct_rolled']);
  });
});

describe('dashboard HTML', () => {
  it('escapes every value unless it is already HTML, and keeps JSON blocks from closing their script element', () => {
    const name = '<img src=x onerror=alert(1)> & "quoted" \'single\'';
    expect(html`<p title="${name}">${name}</p>`.text).toBe(
      '<p title="&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot; &#39;single&#39;">&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot; &#39;single&#39;</p>',
    );
    expect(html`<ul>${['<a>', html`<li>kept</li>`]}</ul>`.text).toBe('<ul>&lt;a&gt;<li>kept</li></ul>');
    expect(html`${undefined}${null}${false}${0}`.text).toBe('0');
    expect(jsonBlock('data', { label: '</script><script>alert(1)</script>' }).text).not.toContain('</script><script>');
  });
});

describe('stream session throughput', () => {
  const request = (authorization: string, body?: unknown) =>
    ({ headers: { authorization }, body: body === undefined ? undefined : JSON.stringify(body) }) as unknown as APIGatewayProxyEventV2;
  const session = (id: string, token: string) => ({
    statusCode: 200,
    body: JSON.stringify({ id, authentication_token: token, created: 'c', expires_at: 'e' }),
  });

  it('counts the accepted events of each session to the key that created it, never to another key', () => {
    const sessions = streamSessions();
    sessions.observe('createMeterEventSession', session('mes_a', 'tok_a'), request('Bearer sk_test_a'));
    // curl -u sends the key as Basic credentials
    sessions.observe('createMeterEventSession', session('mes_b', 'tok_b'), request(`Basic ${Buffer.from('sk_test_b:').toString('base64')}`));
    const events = (count: number) => ({ events: Array.from({ length: count }, () => ({ event_name: 'calls' })) });
    sessions.observe('createMeterEventStream', { statusCode: 202, body: '{}' }, request('Bearer tok_a', events(100)));
    sessions.observe('createMeterEventStream', { statusCode: 202, body: '{}' }, request('Bearer tok_a', events(20)));
    sessions.observe('createMeterEventStream', { statusCode: 400, body: '{}' }, request('Bearer tok_a', events(5)));
    sessions.observe('createMeterEventStream', { statusCode: 202, body: '{}' }, request('Bearer tok_unknown', events(7)));
    sessions.observe('createMeterEventStream', { statusCode: 202, body: '{}' }, request('Bearer tok_b', events(3)));

    const [a] = sessions.of(['sk_test_a']);
    expect(a).toMatchObject({ id: 'mes_a', requests: 3, refusedRequests: 1, events: 120, peakPerSecond: expect.any(Number) });
    expect(a!.lastMinutePerSecond).toBe(2);
    expect(sessions.of(['sk_test_b'])).toMatchObject([{ id: 'mes_b', events: 3 }]);
    expect(sessions.of(['sk_test_other'])).toEqual([]);
  });
});

describe('loopback names', () => {
  it('takes 127.0.0.0/8, localhost and [::1] with or without a port, and nothing that merely starts like them', () => {
    for (const host of ['127.0.0.1', '127.0.0.1:4242', '127.1.2.3:80', 'localhost', 'localhost:4242', '[::1]', '[::1]:4242'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [undefined, '', 'evil.com', '127.0.0.1.evil.com', 'localhost.evil.com', '[::1].evil.com', '[::1]evil', '[::2]', '0.0.0.0', '127.1']) {
      expect(isLoopbackHost(host), String(host)).toBe(false);
    }
  });
});
