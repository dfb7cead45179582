import { callScope, callTotals, meterAwsCalls, withCallScope } from '#shared/aws/aws-calls.ts';
import { meterUsage } from '#shared/data/keys.ts';
import { dynamoMeterEventStore } from '#shared/data/metering/store.ts';
import { makeTable } from '#shared/data/table.ts';
import { localTableName } from '#shared/data/table-schema.ts';
import { hourMillis } from '#shared/meter-events/counting-plan.ts';
import { minuteUsageReader } from '#shared/meter-events/summaries.ts';
import { wireUsageRollups } from '#shared/meter-events/wiring.ts';
import { createLocalDynamoDbClient, ensureTable, startDynamoDbLocal } from '#local/dynamodb.ts';

/**
 * `npm run bench:aggregation`: a busy customer's month of usage (an event every minute: 44,640 minute
 * items, ~4.4 MB) seeded on DynamoDB Local (in memory, with the stack's table), then the aggregate an invoice line reads for
 * it, BENCH_READS (200) times each way: minute by minute (`minuteUsageReader`, what the invoice read before
 * rollups), through the rollups before any roll (cold: the first read reads the minutes and rolls a week),
 * and after the scheduled roll (warm: one Query of hour rollups). Prints p50 and p99 read time, and the
 * Queries, calls and read units of one read (measured in a separate read: asking DynamoDB Local for the
 * consumed capacity slows it). DynamoDB Local is far slower per item than DynamoDB; docs/capacity.md
 * turns the items and read units into the estimate on AWS.
 */
const reads = Number(process.env.BENCH_READS ?? 200);

// DynamoDB Local in memory, alone: the local stack's table, nothing else running on it.
const dynamoDb = await startDynamoDbLocal({ startTimeoutMs: 120_000 });
const client = meterAwsCalls(createLocalDynamoDbClient(dynamoDb.endpoint, dynamoDb.credentials), 'dynamodb');
await ensureTable(client, localTableName);

const monthStart = Date.UTC(2026, 9, 1);
const monthEnd = Date.UTC(2026, 10, 1);
const now = monthEnd + 2 * hourMillis;
const table = makeTable(client, localTableName, () => now);
const scope = { accountId: 'acct_benchaggregation1', livemode: false };
const meter = { id: 'mtr_benchaggregation', formula: 'sum' as const };

async function seed(customerId: string) {
  const pk = meterUsage.pk(scope, meter.id, customerId);
  const minutes = Array.from({ length: (monthEnd - monthStart) / 60_000 }, (_, i) => monthStart + i * 60_000);
  const chunks: number[][] = [];
  for (let start = 0; start < minutes.length; start += 25) chunks.push(minutes.slice(start, start + 25));
  await Promise.all(
    Array.from({ length: 8 }, async (_, lane) => {
      for (let index = lane; index < chunks.length; index += 8) {
        let requests = chunks[index]!.map((minute) => ({
          PutRequest: { Item: { PK: pk, SK: meterUsage.sk(minute), entity: 'meter_usage', minuteStart: minute, total: 3, events: 1 } },
        }));
        while (requests.length > 0) requests = (await table.batchWrite(requests)) as typeof requests;
      }
    }),
  );
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/**
 * Times `times` reads, then measures one more read's Queries, calls and read units; a single read (a cold
 * one, which changes what the next read finds) is timed and measured at once.
 */
async function bench(label: string, read: () => Promise<number>, times: number) {
  const millis: number[] = [];
  for (let i = 0; i < (times === 1 ? 0 : times); i++) {
    const started = performance.now();
    const value = await read();
    millis.push(performance.now() - started);
    if (value !== 3 * 44_640) throw new Error(`${label}: read ${value}, expected ${3 * 44_640}`);
  }
  const measured = callScope({ measure: true });
  const started = performance.now();
  const value = await withCallScope(measured, read);
  if (times === 1) millis.push(performance.now() - started);
  if (value !== 3 * 44_640) throw new Error(`${label}: read ${value}, expected ${3 * 44_640}`);
  millis.sort((a, b) => a - b);
  const totals = callTotals(measured);
  const queries = measured.calls.filter((call) => call.operation === 'Query').length;
  console.log(
    `| ${label} | ${times} | ${percentile(millis, 50).toFixed(1)} | ${percentile(millis, 99).toFixed(1)} | ${queries} | ${totals.calls} | ${totals.readUnits} | ${totals.writeUnits} |`,
  );
}

const seeded = performance.now();
await Promise.all([seed('cus_minutes'), seed('cus_cold'), seed('cus_warm')]);
console.log(`seeded 3 × 44,640 minute items in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

const store = dynamoMeterEventStore(table);
const rollups = wireUsageRollups(table);
const minuteReader = minuteUsageReader(store);
const aggregate = (reader: typeof minuteReader, customerId: string) => () => reader.aggregate(scope, meter, customerId, monthStart, monthEnd);

console.log('| read of one customer-meter-month | reads | p50 ms | p99 ms | Queries | calls | read units | write units |');
console.log('|---|---|---|---|---|---|---|---|');
await bench('every minute (minuteUsageReader)', aggregate(minuteReader, 'cus_minutes'), Math.min(reads, 20));
// Cold: never rolled; each read reads what it must from minutes and rolls up to a week of it.
await bench('rollups, first read (cold: rolls a week)', aggregate(rollups.reader, 'cus_cold'), 1);
await bench('rollups, second read (rolls the next week)', aggregate(rollups.reader, 'cus_cold'), 1);
// Warm: the scheduled roll caught up.
while (!(await rollups.roll({ scope, meterId: meter.id, customerId: 'cus_warm' })).caughtUp) {}
await bench('rollups after the scheduled roll (warm)', aggregate(rollups.reader, 'cus_warm'), reads);
await bench(
  'rollups, a period with partial hours at both edges',
  () => rollups.reader.aggregate(scope, meter, 'cus_warm', monthStart + 17 * 60_000, monthEnd - 13 * 60_000).then((value) => value + 3 * 30),
  reads,
);
client.destroy();
await dynamoDb.stop();
process.exit(0);
