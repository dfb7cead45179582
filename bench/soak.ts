/**
 * `npm run bench:soak`: whether a request's cost stays the same as the platform's data grows. Starts `npm start`
 * in a child process (default configuration: rate limits off; its own temporary data directory, or
 * `--in-memory`), makes one meter, then N clients (the official Node SDK over HTTP, no retries) each loop:
 * create a customer, retrieve it, list customers (limit 10), send a v1 meter event for it, list events
 * (limit 5), for SOAK_MINUTES. Every minute it prints requests per second, p50/p99 per operation and the
 * customers made so far; asserts nothing.
 *
 * `--calls` starts the stack with LOCAL_AWS_CALLS=true and also prints, per operation and minute, the AWS calls
 * each request made and the time spent inside them (from the `x-local-aws-calls` response header), so a
 * slowdown can be placed in the engine's calls or in the service's own code. Measuring asks DynamoDB for
 * consumed capacity on every call, which slows DynamoDB Local a little: compare minutes within one run.
 *
 *   npm run bench:soak                       persistent stack, 8 clients, 10 minutes
 *   npm run bench:soak -- --in-memory --calls
 *   SOAK_MINUTES=3 SOAK_CLIENTS=4 npm run bench:soak
 */
import { startStackProcess } from './stack-process.ts';

const inMemory = process.argv.includes('--in-memory');
const measureCalls = process.argv.includes('--calls');
const minutes = Number(process.env.SOAK_MINUTES ?? 10);
const clients = Number(process.env.SOAK_CLIENTS ?? 8);
const stack = await startStackProcess({ inMemory, env: measureCalls ? { LOCAL_AWS_CALLS: 'true' } : {} });
// The stack's own output is dropped from here on; with --calls, its `aws-calls` lines (what each queue worker's and
// scheduled job's invocation cost) are summed per function and minute.
const background = new Map<string, { runs: number; calls: number; read: number; write: number }>();
let pending = '';
stack.stdout.on('data', (chunk: Buffer) => {
  if (!measureCalls) return;
  const lines = (pending + chunk.toString()).split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    if (!line.startsWith('aws-calls ')) continue;
    const cost = JSON.parse(line.slice('aws-calls '.length)) as { function: string; calls: number; readUnits: number; writeUnits: number };
    const sum = background.get(cost.function) ?? { runs: 0, calls: 0, read: 0, write: 0 };
    background.set(cost.function, { runs: sum.runs + 1, calls: sum.calls + cost.calls, read: sum.read + cost.readUnits, write: sum.write + cost.writeUnits });
  }
});
const { client } = stack;

const operations = ['create customer', 'retrieve customer', 'list customers 10', 'meter event', 'list events 5'] as const;
type Operation = (typeof operations)[number];
interface Sample {
  ms: number;
  /** With --calls: AWS calls the request made and the milliseconds spent inside them. */
  calls?: number;
  callMs?: number;
  callNames?: string;
  /** With --calls: each call's name and milliseconds, in order. */
  each?: Array<[string, number]>;
}
let minute: Record<Operation, Sample[]> = freshMinute();
let errors = 0;
let customers = 0;
function freshMinute(): Record<Operation, Sample[]> {
  return Object.fromEntries(operations.map((name) => [name, []])) as unknown as Record<Operation, Sample[]>;
}

/** The `x-local-aws-calls` header: `calls=2; read=1; write=0; ops=Query(1.2 ms),GetItem(0.8 ms)`. */
function awsCalls(response: { lastResponse?: { headers?: Record<string, unknown> } }): Omit<Sample, 'ms'> {
  const header = String(response.lastResponse?.headers?.['x-local-aws-calls'] ?? '');
  const timed = [...header.matchAll(/(\w+)\(([\d.]+) ms\)/g)];
  return {
    calls: Number(/calls=(\d+)/.exec(header)?.[1] ?? Number.NaN),
    callMs: timed.reduce((total, [, , ms]) => total + Number(ms), 0),
    callNames: timed.map(([, name]) => name).join(','),
    each: timed.map(([, name, ms]) => [name, Number(ms)] as [string, number]),
  };
}

async function timed<T extends object>(operation: Operation, request: () => Promise<T>): Promise<T | undefined> {
  const started = performance.now();
  try {
    const result = await request();
    minute[operation].push({ ms: performance.now() - started, ...(measureCalls ? awsCalls(result as never) : {}) });
    return result;
  } catch (error) {
    errors++;
    if (errors <= 5) console.error(`${operation} failed:`, (error as Error).message);
    return undefined;
  }
}

const meter = await client.billing.meters.create({ display_name: 'Soak calls', event_name: 'soak_calls', default_aggregation: { formula: 'sum' } });
const endsAt = performance.now() + minutes * 60_000;
async function loop() {
  while (performance.now() < endsAt) {
    const customer = await timed('create customer', () => client.customers.create({ name: 'Soak' }));
    if (!customer) continue;
    customers++;
    await timed('retrieve customer', () => client.customers.retrieve(customer.id));
    await timed('list customers 10', () => client.customers.list({ limit: 10 }));
    await timed('meter event', () =>
      client.billing.meterEvents.create({ event_name: meter.event_name, payload: { service_customer_id: customer.id, value: '1' } }),
    );
    await timed('list events 5', () => client.events.list({ limit: 5 }));
  }
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
const mean = (values: number[]) => values.reduce((total, value) => total + value, 0) / values.length;
let minuteNumber = 0;
let minuteStarted = performance.now();
function report() {
  const samples = minute;
  const seconds = (performance.now() - minuteStarted) / 1000;
  minute = freshMinute();
  minuteStarted = performance.now();
  minuteNumber++;
  const requests = operations.reduce((total, name) => total + samples[name].length, 0);
  const memory = process.memoryUsage().rss;
  console.log(
    `\nminute ${minuteNumber}: ${(requests / seconds).toFixed(0)} requests/s, ${customers} customers so far, ${errors} errors; bench rss ${(memory / 2 ** 20).toFixed(0)} MiB`,
  );
  for (const name of operations) {
    const sorted = samples[name].map((sample) => sample.ms).sort((a, b) => a - b);
    let line = `  ${name.padEnd(18)} ${String(sorted.length).padStart(6)}   p50 ${quantile(sorted, 0.5).toFixed(1).padStart(6)} ms   p99 ${quantile(sorted, 0.99).toFixed(1).padStart(6)} ms`;
    if (measureCalls && sorted.length > 0) {
      const callMs = samples[name].map((sample) => sample.callMs ?? Number.NaN).sort((a, b) => a - b);
      const shapes = new Map<string, number>();
      for (const sample of samples[name]) shapes.set(sample.callNames ?? '', (shapes.get(sample.callNames ?? '') ?? 0) + 1);
      const common = [...shapes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
      // The mean time of each call of the most common sequence, by its place in the sequence.
      const places = common.split(',').map((call, place) => {
        const times = samples[name].filter((sample) => sample.callNames === common).map((sample) => sample.each?.[place]?.[1] ?? Number.NaN);
        return `${call} ${mean(times).toFixed(1)}`;
      });
      line += `   | calls ${mean(samples[name].map((sample) => sample.calls ?? Number.NaN)).toFixed(2)}/req, in them p50 ${quantile(callMs, 0.5).toFixed(1)} ms mean ${mean(callMs).toFixed(1)} ms (mean ms: ${places.join(', ')})`;
    }
    console.log(line);
  }
  if (measureCalls) {
    const functions = [...background].sort(([a], [b]) => a.localeCompare(b));
    console.log(
      `  background: ${functions.map(([name, sum]) => `${name} ${sum.runs} runs ${sum.calls} calls ${sum.read.toFixed(0)} RRU ${sum.write.toFixed(0)} WRU`).join('; ')}`,
    );
    background.clear();
  }
}

console.log(`${inMemory ? 'in-memory' : 'persistent'} stack, ${clients} clients, ${minutes} min${measureCalls ? ', with AWS call timings' : ''}`);
const ticker = setInterval(report, 60_000);
await Promise.all(Array.from({ length: clients }, loop));
clearInterval(ticker);
if (performance.now() - minuteStarted > 5_000) report();

await stack.stop();
