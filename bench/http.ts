import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { createLocalSqsClient } from '#local/sqs.ts';
import { startLocalStack } from '#local/stack.ts';
import { customer as customerKeys, webhookEndpoint as endpointKeys } from '#shared/data/keys.ts';
import { outboxItems } from '#shared/data/outbox-items.ts';
import { dynamoPlatformStore } from '#shared/data/platform-store.ts';
import { eventEmitter } from '#shared/events/emitter.ts';
import { fanOutMessage } from '#shared/events/ports.ts';
import { makeTable, tableClient } from '#shared/data/table.ts';
import { dynamoServiceSecretStore } from '#shared/data/service-secret-store.ts';
import { queueSeal } from '#shared/messaging/message-seal.ts';
import { createPlatform } from '#shared/platform/platform-service.ts';
import { localTableName } from '#shared/data/table-schema.ts';
import { withoutCallLogging } from '#shared/aws/sdk-clients.ts';
import { emulatorClientOptions, forEngines } from '#local/engine-clients.ts';
import { benchmarkRateLimits } from './rate-limits.ts';

/**
 * `npm run bench:http`: requests per second and latency of the local stack's HTTP path (gateway,
 * authentication, DynamoDB Local) for v1 retrieves, lists, updates and creates at 32 requests in flight;
 * then each operation one request at a time, with the AWS calls it made, next to DynamoDB Local's own
 * floor for the table work it does (the same request shapes sent directly, in the same run).
 */
const concurrency = 32;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);

const stack = await startLocalStack({ port: 0, quiet: true, env: benchmarkRateLimits });
const { port } = new URL(stack.baseUrl);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const auth = `Bearer ${stack.defaultPlatform.secret_key}`;

let lastCalls = '';
function call(method: string, path: string, body?: string, key = auth): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: key };
    if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
    const req = request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      lastCalls = String(res.headers['x-local-aws-calls'] ?? '');
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

// A receiver that answers every delivery at once, so that the creates' deliveries finish instead of
// retrying into the measurements after them.
let received = 0;
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received++;
    response.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/bench`;
const endpoints = await Promise.all(
  Array.from({ length: 16 }, () =>
    fetch(`${stack.baseUrl}/v1/webhook_endpoints`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
      // Subscribed to customer creations only: updates of endpoints measure the API, creates of customers fan out to 16.
      body: `url=${encodeURIComponent(receiverUrl)}&enabled_events[0]=customer.created`,
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
await measure('POST /v1/customers (16 endpoints)', (i) => call('POST', '/v1/customers', `name=bench${i}`));

// The creates' fan-outs and deliveries finish first (no receipt for 2 s): the sequential figures measure a quiet stack.
for (let last = -1; last !== received; ) {
  last = received;
  await new Promise((resolve) => setTimeout(resolve, 2000));
}
console.log(`(${received} deliveries of the creates received before the sequential runs)`);

// One request at a time, next to DynamoDB Local's floor for the same table work, in the same run.
const sequential = Number(process.env.BENCH_SEQUENTIAL ?? 300);
const table = makeTable(
  forEngines(withoutCallLogging(tableClient({ endpoint: stack.dynamodbEndpoint, region: 'us-east-1', ...emulatorClientOptions(stack.engineCredentials) }))),
  localTableName,
);
const scope = { accountId: stack.defaultPlatform.account, livemode: false };
const median = (latencies: number[]) => latencies.sort((a, b) => a - b)[Math.floor(latencies.length / 2)]!;
async function timed(operation: (i: number) => Promise<unknown>, i: number) {
  const started = performance.now();
  await operation(i);
  return performance.now() - started;
}
/** p50 of an operation and of its floor, run in turn (one of each, `runs` times) so both see the same stack. */
async function interleavedP50(runs: number, operation: (i: number) => Promise<unknown>, floor: (i: number) => Promise<unknown>) {
  const [operationMs, floorMs]: [number[], number[]] = [[], []];
  for (let i = 0; i < runs; i++) {
    operationMs.push(await timed(operation, i));
    floorMs.push(await timed(floor, i));
  }
  return [median(operationMs), median(floorMs)] as const;
}
/** The AWS calls one request makes (the local gateway's `x-local-aws-calls`, asked for one request only: measuring slows DynamoDB Local). */
async function callsOf(operation: () => Promise<unknown>) {
  process.env.LOCAL_AWS_CALLS = 'true';
  await operation();
  delete process.env.LOCAL_AWS_CALLS;
  return lastCalls;
}
// A platform of its own with no endpoints: a customer create then writes the customer and its two events.
const quiet = await createPlatform(dynamoPlatformStore(table));
const quietAuth = `Bearer ${quiet.secret_key}`;
const sample = (await (
  await fetch(`${stack.baseUrl}/v1/customers`, {
    method: 'POST',
    headers: { authorization: quietAuth, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'name=sample',
  })
).json()) as { id: string };
const customerItem = (await table.get({ PK: customerKeys.pk({ accountId: quiet.account, livemode: false }), SK: customerKeys.sk(sample.id) }))!;
const rows: Array<[string, number, string, string, number]> = [];
const compare = async (name: string, operation: (i: number) => Promise<unknown>, floorName: string, floor: (i: number) => Promise<unknown>) => {
  await interleavedP50(
    30,
    (i) => operation(sequential + i),
    (i) => floor(sequential + i),
  );
  const [operationMs, floorMs] = await interleavedP50(sequential, operation, floor);
  rows.push([name, operationMs, await callsOf(() => operation(0)), floorName, floorMs]);
};
await compare(
  'GET /v1/webhook_endpoints/:id',
  (i) => call('GET', `/v1/webhook_endpoints/${idOf(i)}`),
  'GetItem',
  () => table.getConsistent({ PK: endpointKeys.pk(scope), SK: endpointKeys.sk(idOf(0)) }),
);
await compare(
  'GET /v1/webhook_endpoints?limit=10',
  () => call('GET', '/v1/webhook_endpoints?limit=10'),
  'Query of 11',
  () =>
    table.query({
      TableName: localTableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': endpointKeys.pk(scope), ':prefix': endpointKeys.skPrefix() },
      ScanIndexForward: false,
      Limit: 11,
    }),
);
// A change's path: (a read,) one transaction (the object, its events, the fan-out record), then one queue
// send. Its floor makes the same items with the product's pure builders and sends the same fan-out message
// to the deliveries queue, so the worker's fan-out that follows loads DynamoDB Local for both alike; the
// gap is then the service's own time.
const sqs = createLocalSqsClient(stack.sqs.endpoint, stack.engineCredentials);
const deliveriesSeal = queueSeal(dynamoServiceSecretStore(table).secret, 'deliveries');
const floorEmitter = eventEmitter({ store: { commit: async () => undefined }, queue: { enqueue: async () => undefined } });
async function floorChange(platform: string, type: string, object: Record<string, unknown>, url: string, write: Record<string, unknown>) {
  const origin = { scope: { accountId: platform, livemode: false }, platformId: platform, request: null, apiVersion: '2026-10-28.endive' };
  const outbox = floorEmitter.prepare(origin, [{ kind: 'snapshot', type, object, relatedObject: { id: String(object.id), type: String(object.object), url } }]);
  await table.transact(outboxItems(localTableName, outbox, [{ Put: { TableName: localTableName, Item: write } }]));
  const [message] = await deliveriesSeal.seal([JSON.stringify(fanOutMessage(outbox.fanOut!, outbox.thinEvents))]);
  await sqs.send(new SendMessageBatchCommand({ QueueUrl: stack.env.DELIVERIES_QUEUE_URL!, Entries: [{ Id: '0', MessageBody: message }] }));
}
await compare(
  'POST /v1/webhook_endpoints/:id',
  (i) => call('POST', `/v1/webhook_endpoints/${idOf(i)}`, `metadata[n]=${i}`),
  // An endpoint's change emits no event (the reference has no webhook_endpoint.* type): a read and a one-item transaction.
  'GetItem, TransactWriteItems of 1',
  async (i) => {
    const current = (await table.get({ PK: endpointKeys.pk(scope), SK: endpointKeys.sk(idOf(i)) }))!;
    await table.transact([{ Put: { TableName: localTableName, Item: { ...current, metadata: { n: String(i) }, PK: 'BENCH#floor', SK: `ENDPOINT#${i}` } } }]);
  },
);
await compare(
  'POST /v1/customers (no endpoints)',
  (i) => call('POST', '/v1/customers', `name=seq${i}`, quietAuth),
  'TransactWriteItems of 4, SendMessageBatch',
  (i) => {
    const object = { ...customerItem, id: `cus_floor${i}` };
    return floorChange(quiet.account, 'customer.created', object, `/v1/customers/${object.id}`, { ...object, SK: `CUSTOMER#floor${i}` });
  },
);
console.log(`\none request at a time (${sequential} each, taking turns with the floor; p50), next to DynamoDB Local's floor for the table work:`);
for (const [name, ms, calls, floorName, floorMs] of rows) {
  console.log(
    `${name.padEnd(36)} p50 ${ms.toFixed(1).padStart(5)} ms   ${calls.padEnd(70)} floor (${floorName}) ${floorMs.toFixed(1)} ms   gap ${(ms - floorMs).toFixed(1)} ms`,
  );
}
agent.destroy();
receiver.close();
await stack.stop();
