/**
 * `npm run bench:cold`: what a test suite meets in a freshly started stack. Starts `npm start` in a child
 * process (its own data directory, or `--in-memory`), and as soon as it prints that it is ready, one client
 * (the official Node SDK over HTTP, no retries) creates and retrieves customers one at a time for 10 s;
 * then, after 1,000 more requests, the same for 10 s again (warm); then 32 creates in flight for 10 s.
 * Prints p50/p99 of each and the creates per second; asserts nothing. The stack runs as `npm start` does by
 * default, per-key rate limits off: what a test suite meets (with `--rate-limits` each request also writes its
 * key's counter, one more DynamoDB call).
 *
 *   npm run bench:cold                 persistent stack in a temporary data directory
 *   npm run bench:cold -- --in-memory
 */
import { startStackProcess } from './stack-process.ts';

const inMemory = process.argv.includes('--in-memory');
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const stack = await startStackProcess({ inMemory });
const { client, readyMs } = stack;

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
function summary(name: string, latencies: number[], windowSeconds: number) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return `${name.padEnd(44)} ${String(sorted.length).padStart(6)} (${(sorted.length / windowSeconds).toFixed(0).padStart(4)}/s)   p50 ${quantile(sorted, 0.5).toFixed(1).padStart(6)} ms   p99 ${quantile(sorted, 0.99).toFixed(1).padStart(6)} ms`;
}
async function timed<T>(into: number[], operation: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await operation();
  into.push(performance.now() - started);
  return result;
}
/** One client, one request at a time: a create, then a retrieve of what it made, for `seconds`. */
async function sequential(label: string) {
  const [creates, retrieves]: [number[], number[]] = [[], []];
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    const customer = await timed(creates, () => client.customers.create({ name: 'cold' }));
    await timed(retrieves, () => client.customers.retrieve(customer.id));
  }
  console.log(summary(`${label}: sequential creates`, creates, seconds));
  console.log(summary(`${label}: sequential retrieves`, retrieves, seconds));
  // One client's create rate: creates over the time spent creating (the retrieves between them left out).
  return creates.length / (creates.reduce((total, ms) => total + ms, 0) / 1000);
}

console.log(`${inMemory ? 'in-memory' : 'persistent'} stack ready in ${(readyMs / 1000).toFixed(1)} s (from spawn); ${seconds} s windows`);
const coldRate = await sequential('first 10 s after ready');
for (let i = 0; i < 500; i++) await client.customers.retrieve((await client.customers.create({ name: 'warm-up' })).id);
const warmRate = await sequential('after 1,000 more requests');
const inFlight: number[] = [];
const deadline = performance.now() + seconds * 1000;
await Promise.all(
  Array.from({ length: 32 }, async () => {
    while (performance.now() < deadline) await timed(inFlight, () => client.customers.create({ name: 'parallel' }));
  }),
);
console.log(summary('32 in flight: creates', inFlight, seconds));
console.log(
  `creates/s at 32 in flight vs one client's create rate: ${(inFlight.length / seconds).toFixed(0)} vs ${warmRate.toFixed(0)} warm, ${coldRate.toFixed(0)} cold`,
);

await stack.stop();
