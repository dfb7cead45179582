import { Agent, request } from 'node:http';
import { makeTable, tableClient } from '#shared/data/table.ts';
import { dynamoMeterEventStore } from '#shared/data/metering/store.ts';
import type { MeterEventRecord } from '#shared/meter-events/meter-event.ts';
import { localTableName } from '#shared/data/table-schema.ts';
import { withoutCallLogging } from '#shared/aws/sdk-clients.ts';
import { emulatorClientOptions, forEngines } from '#local/engine-clients.ts';
import { startServiceProcess } from '#local/service-process.ts';
import { cpuTally, hostProbeMillis } from './cpu.ts';
import { benchmarkRateLimits } from './rate-limits.ts';

/**
 * `npm run bench:meter`: usage metering through the local stack (service in its own process).
 * 1. Ceiling: the conditional writes one meter event needs (take the minute's usage lease, claim the
 *    identifier with the event, release the lease counting the event), straight against the stack's DynamoDB Local, 32 in flight, after a
 *    warm-up and with processing drained.
 * 2. `POST /v2/billing/meter_events`, 32 requests in flight (each client with its own customers): events/s,
 *    p50, p99, and the share of the ceiling (target: 80 %). 1 and 2 take turns, in BENCH_ROUNDS (3) rounds
 *    of BENCH_SECONDS / BENCH_ROUNDS seconds each, so that a drift in the host's speed hits both alike.
 * 3. The stream: first one customer and meter at 1,000 events/s for BENCH_PAIR_SECONDS (20): accepted
 *    and counted rates (target: 1,000/s); then 100-event requests for BENCH_STREAM_SECONDS (default 30)
 *    from 16 clients over 64 customers: events/s overall and in the slowest second (target: 10,000/s).
 * 4. Cancellations of 1 % of the events of 2, then, once processing has drained, every customer's summary
 *    against what was accepted minus what was cancelled: exactly once, or the run fails.
 */
const concurrency = 32;
const endpointSeconds = Number(process.env.BENCH_SECONDS ?? 15);
const streamSeconds = Number(process.env.BENCH_STREAM_SECONDS ?? 30);
const streamClients = Number(process.env.BENCH_STREAM_CLIENTS ?? 16);
/** Events per second the stream clients aim for together (paced, so that the backlog stays measurable). */
const streamRate = Number(process.env.BENCH_STREAM_RATE ?? 12_000);

// The stack as `npm start` runs it: its queue workers process while the API ingests, on the same cores.
const service = await startServiceProcess(['--in-memory'], { POWERTOOLS_LOG_LEVEL: 'ERROR', ...benchmarkRateLimits });
const dynamodbEndpoint = /DynamoDB Local\s+(\S+)/.exec(service.output())![1]!;
// The engines check the access key id only (the service's own clients send no signature either).
const engineCredentials = { accessKeyId: /engine key id\s+(\S+)/.exec(service.output())![1]!, secretAccessKey: 'unchecked' };
const agent = new Agent({ keepAlive: true, maxSockets: 128 });
const { port } = new URL(service.baseUrl);

function call(method: string, path: string, body?: unknown, key = service.secretKey): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
const form = (method: string, path: string, fields: Record<string, string>) =>
  new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: { authorization: `Bearer ${service.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    req.end(new URLSearchParams(fields).toString());
  });

const percentile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN;
const runFor = async (seconds: number, workers: number, work: (worker: number, n: number) => Promise<void>) => {
  const started = Date.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      for (let n = 0; Date.now() < deadline; n++) await work(worker, n);
    }),
  );
  return (Date.now() - started) / 1000;
};

// Setup: a sum meter, 8 customers per endpoint client and 64 for the stream.
await form('POST', '/v1/billing/meters', { display_name: 'bench', event_name: 'bench_usage', 'default_aggregation[formula]': 'sum' });
const meterId = (await call('GET', '/v1/billing/meters')).body.data[0].id as string;
const newCustomers = (count: number) =>
  Promise.all(Array.from({ length: count }, async (_, i) => (await form('POST', '/v1/customers', { name: `bench ${i}` })).body.id as string));
const endpointCustomers = await newCustomers(concurrency * 8);
const streamCustomers = await newCustomers(64);
const expected = new Map<string, number>();
/** A customer's usage over the last hour, as the summaries endpoint reports it. */
const summaryOf = async (customer: string) => {
  const minute = Math.floor(Date.now() / 60_000) * 60;
  const answer = await call('GET', `/v1/billing/meters/${meterId}/event_summaries?customer=${customer}&start_time=${minute - 3600}&end_time=${minute + 120}`);
  return answer.body.data[0].aggregated_value as number;
};
const add = (customer: string, value: number) => expected.set(customer, (expected.get(customer) ?? 0) + value);

// Warm the JVM and the handler before measuring (BENCH_WARMUP_SECONDS, default 45): DynamoDB Local's C2 JIT
// compiler keeps 40-48 % of a core busy for its first 40 s under load (measured per thread from /proc).
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 45);
await runFor(warmupSeconds, concurrency, async (worker, n) => {
  const customer = endpointCustomers[worker * 8 + (n % 8)]!;
  const answer = await call('POST', '/v2/billing/meter_events', {
    event_name: 'bench_usage',
    payload: { service_customer_id: customer, value: '1' },
    identifier: `warm-${worker}-${n}`,
  });
  if (answer.status === 200) add(customer, 1);
});

/**
 * Waits until every event accepted so far is counted: DynamoDB Local is then idle again. It looks every
 * 2 s, not more often: processing waits while the API is busy, and these checks are API requests.
 */
async function untilCounted() {
  for (let idle = 0; idle < 2; ) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const counted = await Promise.all([...expected].map(async ([customer, value]) => (await summaryOf(customer)) === value));
    idle = counted.every(Boolean) ? idle + 1 : 0;
  }
}

// 1. The ceiling: the request's writes alone (an API event is counted on the request path; nothing is left
// for processing). The same client settings as the service's own, so that the ceiling is DynamoDB Local's.
const table = forEngines(withoutCallLogging(tableClient({ endpoint: dynamodbEndpoint, region: 'us-east-1', ...emulatorClientOptions(engineCredentials) })));
// The store's own writes, on a bench account's own items, so that the ceiling writes exactly what an event writes.
const store = dynamoMeterEventStore(makeTable(table, localTableName));
const benchScope = { accountId: 'acct_benchceiling0001', livemode: false };
async function eventWrites(id: string, slot: string) {
  const now = Date.now();
  const customerId = `cus_bench${slot}`;
  const lease = { scope: benchScope, meter: { id: meterId, formula: 'sum' as const }, customerId, minute: Math.floor(now / 60_000) * 60_000, owner: id };
  const entry = { owner: id, identifier: id, created: now, value: 1, timestamp: now };
  const event: MeterEventRecord = {
    eventName: 'bench_usage',
    identifier: id,
    payload: { service_customer_id: customerId, value: '1' },
    timestamp: now,
    scope: benchScope,
    platformId: benchScope.accountId,
    created: now,
    source: 'api',
    batchId: null,
    status: 'processed',
    meterId,
    cancelAdjustmentId: null,
  };
  if (!(await store.takeLease(lease, [entry], now))) return;
  const claimed = (await store.claim(event, id)) === 'claimed';
  await store.releaseLease(lease, claimed ? [{ entry, setsLast: true }] : [], [id]);
}
let ceilingRuns = 0;
/** Ceiling writes for `seconds`: events done and the time taken (the service is idle meanwhile). */
const ceilingSlice = async (seconds: number) => {
  let done = 0;
  const run = ++ceilingRuns;
  const time = await runFor(seconds, concurrency, async (worker, n) => {
    await eventWrites(`${run}-${worker}-${n}`, `${worker}#${n % 8}`);
    done++;
  });
  return { done, time };
};

// 2. The per-event endpoint, 32 requests in flight.
const latencies: number[] = [];
const accepted: Array<{ identifier: string; customer: string; value: number }> = [];
let refused = 0;
let endpointSlices = 0;
const endpointSlice = async (seconds: number) => {
  const before = accepted.length;
  const slice = ++endpointSlices;
  const time = await runFor(seconds, concurrency, async (worker, n) => {
    const customer = endpointCustomers[worker * 8 + (n % 8)]!;
    const value = (n % 5) + 1;
    const identifier = `e-${slice}-${worker}-${n}`;
    const started = performance.now();
    const answer = await call('POST', '/v2/billing/meter_events', {
      event_name: 'bench_usage',
      payload: { service_customer_id: customer, value: String(value) },
      identifier,
    });
    latencies.push(performance.now() - started);
    if (answer.status === 200) {
      accepted.push({ identifier, customer, value });
      add(customer, value);
    } else refused++;
  });
  return { done: accepted.length - before, time };
};

// The ceiling's own client warms up too (its code is not what the warm-up above ran), uncounted.
await ceilingSlice(5);

// 1 and 2 interleaved: these machines' speed drifts by 20-40 % within minutes, so the ceiling and the endpoint
// take turns (BENCH_ROUNDS rounds of a ceiling slice and an endpoint slice, each BENCH_SECONDS / BENCH_ROUNDS
// long), and each sum is compared with the other. Before each ceiling slice processing has drained, so
// DynamoDB Local does nothing else; the endpoint's own events wait in the queue while it runs.
const probeBefore = hostProbeMillis();
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const sliceSeconds = endpointSeconds / rounds;
const ceilingCpu = cpuTally(service.pid);
const endpointCpu = cpuTally(service.pid);
const ceilingTotal = { done: 0, time: 0 };
const endpointTotal = { done: 0, time: 0 };
const roundReports: string[] = [];
for (let round = 1; round <= rounds; round++) {
  await untilCounted();
  const stopCeilingCpu = ceilingCpu.start();
  const ceiling = await ceilingSlice(sliceSeconds);
  stopCeilingCpu(ceiling.done);
  const stopEndpointCpu = endpointCpu.start();
  const endpoint = await endpointSlice(sliceSeconds);
  stopEndpointCpu(endpoint.done);
  for (const [total, slice] of [
    [ceilingTotal, ceiling],
    [endpointTotal, endpoint],
  ] as const) {
    total.done += slice.done;
    total.time += slice.time;
  }
  roundReports.push(`${(ceiling.done / ceiling.time).toFixed(0)} / ${(endpoint.done / endpoint.time).toFixed(0)}`);
}
const ceiling = ceilingTotal.done / ceilingTotal.time;
const endpointRate = endpointTotal.done / endpointTotal.time;
console.log(
  `(local stack as npm start runs it, processing alongside; BENCH_SECONDS ${endpointSeconds} in ${rounds} rounds, BENCH_STREAM_SECONDS ${streamSeconds})`,
);
console.log(
  `ceiling: DynamoDB Local does the writes of ${ceiling.toFixed(0)} meter events/s (lease taken, identifier claimed, lease released counting the event; ${concurrency} in flight)`,
);
console.log(`  ${ceilingCpu.report()}`);
console.log(
  `meter_events: ${endpointTotal.done} accepted in ${endpointTotal.time.toFixed(1)} s = ${endpointRate.toFixed(0)} events/s, p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms, ${refused} refused`,
);
console.log(`  ${endpointCpu.report()}`);
console.log(`  events/s by round, ceiling / endpoint: ${roundReports.join(', ')}`);
console.log(`  ${((endpointRate / ceiling) * 100).toFixed(0)} % of the ceiling (target 80 %)`);

// 3a. One customer and meter on the stream at 1,000 events/s (10 requests of 100 a second), processing
// drained before: accepted and counted rates, and how long after the last request the summary is complete.
await untilCounted();
const pairCustomer = (await newCustomers(1))[0]!;
const pairSeconds = Number(process.env.BENCH_PAIR_SECONDS ?? 20);
const pairSession = (await call('POST', '/v2/billing/meter_event_session', {})).body;
let pairAccepted = 0;
const pairStarted = Date.now();
const pairTime = await runFor(pairSeconds, 4, async (worker, n) => {
  const due = pairStarted + (n * 4 + worker) * 100;
  if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
  const events = Array.from({ length: 100 }, (_, i) => ({
    event_name: 'bench_usage',
    payload: { service_customer_id: pairCustomer, value: '1' },
    identifier: `p-${worker}-${n}-${i}`,
  }));
  const answer = await call('POST', '/v2/billing/meter_event_stream', { events }, pairSession.authentication_token);
  if (answer.status !== 202) return;
  pairAccepted += 100;
  add(pairCustomer, 100);
});
// What is not counted by the end of the stream is the backlog; looked at every 2 s, like untilCounted (the looks are API requests).
const pairEnded = Date.now();
while ((await summaryOf(pairCustomer)) !== expected.get(pairCustomer) && Date.now() - pairEnded < 300_000)
  await new Promise((resolve) => setTimeout(resolve, 2000));
const pairDrain = (Date.now() - pairEnded) / 1000;
console.log(
  `one customer and meter on the stream: ${pairAccepted} events accepted in ${pairTime.toFixed(1)} s = ${(pairAccepted / pairTime).toFixed(0)} events/s (paced at 1,000/s), counted in the ${pairDrain.toFixed(0)} s after (±2 s) = ${(pairAccepted / pairDrain).toFixed(0)} events/s (target 1,000/s)`,
);

// 3b. The stream.
const session = (await call('POST', '/v2/billing/meter_event_session', {})).body;
const perSecond = new Map<number, number>();
let streamAccepted = 0;
let streamRefused = 0;
const streamStarted = Date.now();
const streamTime = await runFor(streamSeconds, streamClients, async (worker, n) => {
  const due = streamStarted + ((n * streamClients + worker) * 100 * 1000) / streamRate;
  if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
  const events = Array.from({ length: 100 }, (_, i) => {
    const customer = streamCustomers[(worker * 7 + n + i) % streamCustomers.length]!;
    return { event_name: 'bench_usage', payload: { service_customer_id: customer, value: '1' }, identifier: `s-${worker}-${n}-${i}` };
  });
  const answer = await call('POST', '/v2/billing/meter_event_stream', { events }, session.authentication_token);
  if (answer.status !== 202) {
    streamRefused++;
    return;
  }
  for (const event of events) add(event.payload.service_customer_id, 1);
  streamAccepted += 100;
  const second = Math.floor((Date.now() - streamStarted) / 1000);
  perSecond.set(second, (perSecond.get(second) ?? 0) + 100);
});
const fullSeconds = [...perSecond.entries()].filter(([second]) => second < Math.floor(streamTime)).map(([, count]) => count);
console.log(
  `stream: ${streamAccepted} events in ${streamTime.toFixed(1)} s = ${(streamAccepted / streamTime).toFixed(0)} events/s (paced at ${streamRate}/s), slowest second ${Math.min(...fullSeconds)} events, ${streamRefused} requests refused (target 10,000/s)`,
);
console.log(`  events accepted in each second: ${fullSeconds.join(' ')}`);

// 4. Cancel 1 % of the endpoint's events, then wait for processing to drain.
const cancelled = accepted.filter((_, i) => i % 100 === 7);
for (let start = 0; start < cancelled.length; start += concurrency) {
  await Promise.all(
    cancelled.slice(start, start + concurrency).map(async (event) => {
      const answer = await call('POST', '/v2/billing/meter_event_adjustments', {
        event_name: 'bench_usage',
        type: 'cancel',
        cancel: { identifier: event.identifier },
      });
      if (answer.status !== 200) throw new Error(`cancel ${event.identifier}: ${answer.status} ${JSON.stringify(answer.body)}`);
      add(event.customer, -event.value);
    }),
  );
}
const drainStarted = Date.now();
let mismatched = [...expected.keys()];
while (mismatched.length > 0 && Date.now() - drainStarted < 900_000) {
  // Every 3 s: these checks are API requests, which processing gives way to.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const values = await Promise.all(mismatched.map(async (customer) => [customer, await summaryOf(customer)] as const));
  mismatched = values.filter(([customer, value]) => value !== expected.get(customer)).map(([customer]) => customer);
}
const totalEvents = accepted.length + streamAccepted;
const drainSeconds = (Date.now() - drainStarted) / 1000;
console.log(
  `processing: drained ${drainSeconds.toFixed(1)} s after the stream ended (${totalEvents} events and ${cancelled.length} cancellations in ${((Date.now() - streamStarted) / 1000).toFixed(0)} s since the stream began)`,
);
const overCounted = (await Promise.all(mismatched.map(async (customer) => (await summaryOf(customer)) > expected.get(customer)!))).filter(Boolean).length;
console.log(
  mismatched.length === 0
    ? `exactly once: all ${expected.size} customers' summaries equal accepted minus cancelled usage`
    : `NOT exactly once: ${mismatched.length} customers differ (${overCounted} over-counted)`,
);
console.log(`host probe: ${probeBefore} ms before the ceiling, ${hostProbeMillis()} ms now (a fixed CPU workload; lower is faster)`);

agent.destroy();
await service.stop();
process.exit(mismatched.length === 0 ? 0 : 1);
