import { Agent, request } from 'node:http';
import { startLocalStack } from '#local/stack.ts';
import { benchmarkRateLimits } from './rate-limits.ts';

/**
 * `npm run bench:http`: requests per second and latency of the local stack's HTTP path (gateway,
 * authentication, DynamoDB Local) for a v1 retrieve and a v1 create at 32 requests in flight.
 */
const concurrency = 32;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);

const stack = await startLocalStack({ port: 0, quiet: true, env: benchmarkRateLimits });
const { port } = new URL(stack.baseUrl);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const auth = `Bearer ${stack.defaultPlatform.secret_key}`;

function call(method: string, path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: auth };
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function measure(name: string, operation: (i: number) => Promise<number>) {
  const latencies: number[] = [];
  const failures = new Map<number, number>();
  let counter = 0;
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        const status = await operation(counter++);
        latencies.push(performance.now() - started);
        if (status !== 200) failures.set(status, (failures.get(status) ?? 0) + 1);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(1);
  console.log(
    `${name.padEnd(34)} ${(latencies.length / seconds).toFixed(0).padStart(6)} req/s   p50 ${at(0.5)} ms   p99 ${at(0.99)} ms   non-200: ${failures.size ? JSON.stringify(Object.fromEntries(failures)) : 'none'}`,
  );
}

const endpoints = await Promise.all(
  Array.from({ length: 16 }, () =>
    fetch(`${stack.baseUrl}/v1/webhook_endpoints`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      // Subscribed to a type these requests never emit, so updates measure the API, not delivery.
      body: 'url=http://127.0.0.1:9/bench&enabled_events[0]=customer.created',
    }).then((response) => response.json() as Promise<{ id: string }>),
  ),
);
const idOf = (i: number) => endpoints[i % endpoints.length]!.id;

// DynamoDB Local's JVM runs several times faster once warm; measure the warm service.
const warmUntil = performance.now() + 5000;
await Promise.all(
  Array.from({ length: concurrency }, async (_, i) => {
    while (performance.now() < warmUntil) await call('GET', `/v1/webhook_endpoints/${idOf(i)}`);
  }),
);

console.log(`${concurrency} in flight, ${seconds} s each, in-memory DynamoDB Local after a 5 s warm-up`);
await measure('GET /v1/webhook_endpoints/:id', (i) => call('GET', `/v1/webhook_endpoints/${idOf(i)}`));
await measure('GET /v1/webhook_endpoints?limit=10', () => call('GET', '/v1/webhook_endpoints?limit=10'));
// Two writers per endpoint: optimistic locking retries, as concurrent updates of one object do.
await measure('POST /v1/webhook_endpoints/:id', (i) => call('POST', `/v1/webhook_endpoints/${idOf(i)}`, `metadata[n]=${i}`));
agent.destroy();
await stack.stop();
