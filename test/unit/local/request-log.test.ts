import { describe, expect, it } from 'vitest';
import { dashboardUserAgent, requestLog } from '#local/request-log.ts';
import { generateApiKey } from '#shared/platform/api-keys.ts';

const answered = (key: string | undefined, extra: Record<string, string> = {}, path = '/v1/customers') => ({
  method: 'POST',
  path,
  headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra },
  status: 200,
  requestId: 'req_1',
  startedAt: Date.now(),
  durationMs: 12.345,
});

describe('the local request log', () => {
  it('keeps the newest requests up to its size, newest first, each with its key as a hint only', () => {
    // Given a log of three, and four requests of two keys
    const log = requestLog({ size: 3, clock: () => Date.parse('2030-01-01T00:00:00Z') });
    const mine = generateApiKey('secret', false);
    const theirs = generateApiKey('secret', false);
    for (const path of ['/v1/a', '/v1/b', '/v1/c']) log.record(answered(mine, {}, path));
    log.record(answered(theirs, { 'idempotency-key': 'once' }, '/v1/d'));

    // Then the oldest is gone, the newest is first, the key shows as its hint and never whole
    const all = log.list();
    expect(all.map((entry) => entry.path)).toEqual(['/v1/d', '/v1/c', '/v1/b']);
    expect(all[0]).toMatchObject({ key: `sk_test_…${theirs.slice(-4)}`, idempotency_key: 'once', request_id: 'req_1', duration_ms: 12.3, source: 'api' });
    expect(JSON.stringify(all)).not.toContain(mine);
    expect(JSON.stringify(all)).not.toContain(theirs);
    expect(Object.keys(all[0]!)).not.toContain('keyDigest');

    // and a reader holding a key gets that key's requests only, up to its limit
    expect(log.list({ key: mine }).map((entry) => entry.path)).toEqual(['/v1/c', '/v1/b']);
    expect(log.list({ key: mine, limit: 1 }).map((entry) => entry.path)).toEqual(['/v1/c']);
    expect(log.list({ key: generateApiKey('secret', false) })).toEqual([]);
  });

  it('reads a Basic-auth key, marks the dashboard’s own calls, and shows no more than a prefix of a value that is not a key', () => {
    const log = requestLog({ clock: () => Date.now() });
    const key = generateApiKey('secret', true);
    log.record(answered(undefined, { authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'user-agent': dashboardUserAgent }));
    log.record(answered('not-a-key-but-a-long-secret<script>'));
    log.record(answered(undefined));
    const [none, odd, basic] = log.list();
    expect(basic).toMatchObject({ key: `sk_live_…${key.slice(-4)}`, source: 'dashboard' });
    expect(log.list({ key }).length).toBe(1);
    expect(odd!.key).toBe('notake…');
    expect(none!.key).toBeNull();
  });
});
