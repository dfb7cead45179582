import fc from 'fast-check';
import qs from 'qs';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { issueApiKeys, type CreatedPlatform } from '#shared/platform/platform-service.ts';
import { newPlatform, platformStore, sdk, stack } from '../support/stack.ts';

/**
 * Property-based fuzzing of every route of the route table with malformed requests. Properties: never a
 * 5xx, never a hang, always the documented error body, and the service still answers afterwards.
 * Seeded: FUZZ_SEED=<n> replays a run; a failure prints its seed and the requests that broke a property.
 */
const runs = Number(process.env.FUZZ_RUNS ?? 5_000);
const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const inFlight = 16;
const timeoutMs = 10_000;

interface FuzzRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const long = (length: number) => 'a'.repeat(length);
const paramNames = [
  'name',
  'email',
  'metadata',
  'url',
  'enabled_events',
  'description',
  'limit',
  'starting_after',
  'ending_before',
  'expand',
  'include',
  'customer',
  'price',
  'items',
  'product',
  'currency',
  'unit_amount',
  'recurring',
  'event_name',
  'payload',
  'identifier',
  'timestamp',
  'type',
  'cancel',
  'account',
  'use_case',
  'display_name',
  'identity',
  'configuration',
  'card',
  'bank_account',
  'person',
  'pii',
  'final_amount',
  'amount',
  'webhook_endpoint',
  'event_payload',
  'events_from',
  'billing_mode',
  'default_aggregation',
  'value_settings',
  'customer_mapping',
  'page',
  'types',
  'created',
  'object_id',
  'applied_configurations',
  'closed',
  'api_version',
  'connect',
  'status',
  'cardholder',
  'events',
  'account_token',
  'person_token',
  'snapshot_api_version',
  'contact_email',
  'dashboard',
  'defaults',
  'fleet',
  'fuel',
  'quantity',
];

/** Values of every wrong kind: numbers at the edges, long and odd strings, deep and wide structures. */
const oddValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('NaN', '1e400', '-0', 'Infinity', '-1', '0', '9007199254740993', '', ' ', 'null', 'true', '\u0000', '%00', '../../etc', '<script>'),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom(long(3_000), long(6_000), `cus_${long(3_000)}`, '\u{1F4A9}'.repeat(500)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...paramNames, 'a', 'b', '__proto__', 'constructor'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

const wideArray = fc.integer({ min: 251, max: 3_000 }).map((length) => Array.from({ length }, (_, i) => i));
const deepObject = fc.integer({ min: 10, max: 200 }).map((depth) => JSON.parse(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`) as unknown);

const params = fc.dictionary(fc.constantFrom(...paramNames), fc.oneof(oddValue, wideArray, deepObject), { maxKeys: 5 });

const jsonBody = fc.oneof(
  params.map((value) => JSON.stringify(value)),
  fc.json({ maxDepth: 4 }),
  fc.string({ maxLength: 100 }),
  fc.constantFrom('{', '{"a":', '[', '{"limit": NaN}', '{"limit": 1e400}', '{"amount": -0}', 'null', '"text"', '[]', '{"a":"\u0000"}', '\uFEFF{}'),
  fc.integer({ min: 10, max: 2_000 }).map((depth) => '['.repeat(depth)),
  fc
    .integer({ min: 1_000, max: 40_000 })
    .map((size) => JSON.stringify({ metadata: Object.fromEntries(Array.from({ length: size / 20 }, (_, i) => [`k${i}`, 'v'])) })),
);

/** Now and then a body over the 1 MiB the service takes (413), and one just under it. */
const hugeBody = fc.constantFrom(JSON.stringify({ description: 'x'.repeat(1_100_000) }), JSON.stringify({ name: 'y'.repeat(1_000_000) }));

const formBody = fc.oneof(
  params.map((value) => qs.stringify(value, { arrayFormat: 'indices' })),
  fc.string({ maxLength: 100 }),
  fc.constantFrom(
    'a[b][c][d][e][f][g][h]=1',
    'items[99999][price]=p',
    'a=%E0%A4%A',
    'a[]=1&a[0]=2',
    'metadata=',
    'expand[0]=x&expand[1]=y',
    'limit=NaN',
    'limit=1e400',
    '%',
  ),
  fc.integer({ min: 1_001, max: 3_000 }).map((count) => Array.from({ length: count }, (_, i) => `m${i}=1`).join('&')),
);

const queryString = fc.oneof(
  fc.constant(''),
  params.map((value) => qs.stringify(value, { arrayFormat: 'indices' })),
  fc.constantFrom(
    'limit=NaN',
    'limit=1e400',
    'limit=-0',
    'limit=0',
    `starting_after=${long(3_000)}`,
    `ending_before=cus_${long(3_000)}`,
    'page=%00',
    `page=${long(3_000)}`,
    'expand[0]=customer',
    'include[0]=webhook_endpoint.signing_secret',
  ),
  fc.string({ maxLength: 60 }).map(encodeURIComponent),
);

const pathId = fc.oneof(
  fc.stringMatching(/^(cus|we|ed|acct|person|evt|mtr|prod|price|sub|tok|ich|ic|iauth|mtrevtadj)_[A-Za-z0-9]{5,30}$/),
  fc.constantFrom(long(3_000), long(2_100), `cus_${long(1_100)}`, '%00', '%2F..%2F', '%E0%A4%A', '..', '%F0%9F%92%A9', ' '),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
);

describe('fuzzing every route with malformed requests', () => {
  let owner: CreatedPlatform;
  let stranger: CreatedPlatform;
  let ownerLive: CreatedPlatform;
  beforeAll(async () => {
    owner = await newPlatform();
    stranger = await newPlatform();
    ownerLive = await issueApiKeys(platformStore(), owner.account, { livemode: true });
  });

  const request = () =>
    fc
      .record({
        route: fc.constantFrom(...routes),
        otherMethod: fc.option(fc.constantFrom('GET', 'POST', 'DELETE', 'PUT', 'PATCH'), { freq: 8 }),
        ids: fc.array(pathId, { minLength: 2, maxLength: 2 }),
        query: queryString,
        json: fc.oneof({ arbitrary: jsonBody, weight: 60 }, { arbitrary: hugeBody, weight: 1 }),
        form: fc.oneof({ arbitrary: formBody, weight: 60 }, { arbitrary: hugeBody.map((text) => `description=${text}`), weight: 1 }),
        auth: fc.constantFrom('owner', 'owner', 'owner', 'owner', 'publishable', 'stranger', 'live', 'none', 'long', 'basic', 'malformed'),
        contentType: fc.constantFrom(
          'right',
          'right',
          'right',
          'json',
          'form',
          'none',
          'text/plain',
          'application/json; charset=utf-16',
          'multipart/form-data; boundary=x',
        ),
        version: fc.constantFrom(undefined, undefined, undefined, '2026-10-28.endive', 'yesterday', long(3_000), '2026-10-28.', 'é'),
        context: fc.constantFrom(undefined, undefined, undefined, undefined, `acct_${long(3_000)}`, 'acct_nothere', '../', ''),
        idempotencyKey: fc.constantFrom(undefined, undefined, 'k', long(300), long(3_000)),
      })
      .map(({ route, otherMethod, ids, query, json, form, auth, contentType, version, context, idempotencyKey }): FuzzRequest => {
        let used = 0;
        const path = route.path.replace(/\{[^}]+\}/g, () => ids[used++ % ids.length]!);
        const method = otherMethod ?? route.method;
        const v2 = path.startsWith('/v2');
        const headers: Record<string, string> = {};
        const key = { owner: owner.secret_key, publishable: owner.publishable_key, stranger: stranger.secret_key, live: ownerLive.secret_key }[auth as 'owner'];
        if (key) headers.authorization = `Bearer ${key}`;
        if (auth === 'long') headers.authorization = `Bearer sk_test_${long(3_000)}`;
        if (auth === 'basic') headers.authorization = `Basic ${Buffer.from(`${long(500)}:x`).toString('base64')}`;
        if (auth === 'malformed') headers.authorization = 'Bearer';
        const type =
          contentType === 'right'
            ? v2
              ? 'application/json'
              : 'application/x-www-form-urlencoded'
            : contentType === 'json'
              ? 'application/json'
              : contentType === 'form'
                ? 'application/x-www-form-urlencoded'
                : contentType === 'none'
                  ? undefined
                  : contentType;
        if (type) headers['content-type'] = type;
        if (version !== undefined) headers['service-version'] = version;
        if (context !== undefined) headers['service-context'] = context;
        if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
        const body = method === 'POST' || method === 'PUT' || method === 'PATCH' ? (v2 || type === 'application/json' ? json : form) : undefined;
        return { method, path, query, headers, body };
      });

  async function send(call: FuzzRequest): Promise<{ status: number; text: string }> {
    const response = await fetch(`${stack.baseUrl}${call.path}${call.query ? `?${call.query}` : ''}`, {
      method: call.method,
      headers: call.headers,
      body: call.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: response.status, text: await response.text() };
  }

  /** What is wrong with an answer, or undefined when it keeps every property. */
  function problemWith(call: FuzzRequest, answer: { status: number; text: string }): string | undefined {
    if (answer.status >= 500) return `status ${answer.status}`;
    if (answer.status < 400 || call.path.startsWith('/hosted/')) return undefined;
    let body: { error?: Record<string, unknown> };
    try {
      body = JSON.parse(answer.text);
    } catch {
      return 'an error body that is not JSON';
    }
    const keys = Object.keys(body.error ?? {})
      .sort()
      .join(',');
    const v2 = call.path.startsWith('/v2');
    const expected = v2 ? ['code,message,type'] : ['code,message,param,type', 'code,decline_code,message,param,type'];
    if (!expected.includes(keys)) return `error keys ${keys || '(none)'}`;
    if (typeof body.error!.message !== 'string' || typeof body.error!.type !== 'string') return 'error without message or type';
    return undefined;
  }

  it(`answers ${runs} generated malformed requests with documented 4xx bodies, and keeps answering`, async () => {
    const calls = fc.sample(request(), { numRuns: runs, seed });
    const failures: string[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < calls.length) {
          const index = next++;
          const call = calls[index]!;
          try {
            const answer = await send(call);
            const problem = problemWith(call, answer);
            if (problem)
              failures.push(
                `#${index} ${problem} (${answer.status}): ${call.method} ${call.path.slice(0, 120)}?${call.query.slice(0, 120)} ${JSON.stringify(call.headers).slice(0, 200)} ${String(call.body).slice(0, 200)}`,
              );
          } catch (error) {
            failures.push(
              `#${index} no answer within ${timeoutMs} ms or a broken connection (${(error as Error).message}): ${call.method} ${call.path.slice(0, 120)}`,
            );
          }
        }
      }),
    );
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    expect(failures, `FUZZ_SEED=${seed} (${calls.length} requests in ${seconds} s) broke a property:\n${failures.slice(0, 20).join('\n')}`).toEqual([]);

    // And the service still answers a normal request.
    const after = await sdk(owner.secret_key).customers.list({ limit: 1 });
    expect(after.object).toBe('list');
  }, 300_000);
});
