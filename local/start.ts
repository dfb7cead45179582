import { parseArgs } from 'node:util';
import { tableNamePattern } from '#shared/data/table-schema.ts';
import { javaRequiredMessage } from './dynamodb.ts';
import { startLocalStack } from './stack.ts';
import { localDataDir, localStackStateFile } from './state-file.ts';

const { values } = parseArgs({
  options: {
    'in-memory': { type: 'boolean', default: process.env.SERVICE_IN_MEMORY === 'true' },
    port: { type: 'string', default: process.env.PORT ?? '4242' },
    // Another table of the same DynamoDB Local: a copy restored by `npm run admin -- table-restore`.
    table: { type: 'string' },
    // The reference's rate limits (100 requests a second per key, …), for testing 429 handling; off by default.
    'rate-limits': { type: 'boolean', default: false },
  },
});
if (values.table !== undefined && !tableNamePattern.test(values.table)) {
  process.stderr.write(`--table must be a DynamoDB table name (3 to 255 letters, digits, '_', '-', '.'), got '${values.table}'\n`);
  process.exit(1);
}

const started = performance.now();
const inMemory = values['in-memory'];
try {
  const stack = await startLocalStack({
    port: Number(values.port),
    tableName: values.table,
    dataDir: inMemory ? undefined : localDataDir,
    stateFile: inMemory ? undefined : localStackStateFile,
    secretKey: process.env.SERVICE_SECRET_KEY || undefined,
    publishableKey: process.env.SERVICE_PUBLISHABLE_KEY || undefined,
    workerConcurrency: process.env.LOCAL_WORKER_CONCURRENCY ? Number(process.env.LOCAL_WORKER_CONCURRENCY) : undefined,
    jobIntervalMs: process.env.LOCAL_JOB_INTERVAL_MS ? Number(process.env.LOCAL_JOB_INTERVAL_MS) : undefined,
    rateLimits: values['rate-limits'],
  });
  const { defaultPlatform: platform } = stack;
  const clock = stack.clock.describe();
  process.stdout.write(
    [
      `Service API listening on ${stack.baseUrl}`,
      `  dashboard        ${stack.baseUrl}/dashboard`,
      `  account          ${platform.account}`,
      `  secret key       ${platform.secret_key}`,
      `  publishable key  ${platform.publishable_key}`,
      `  data             ${inMemory ? 'in memory (gone when stopped)' : localDataDir}`,
      `  DynamoDB Local   ${stack.dynamodbEndpoint}${values.table ? ` (table ${values.table})` : ''}`,
      `  SQS (fauxqs)     ${stack.sqs.endpoint}`,
      `  engine key id    ${stack.engineCredentials.accessKeyId} (new at each start: DynamoDB Local and SQS refuse any other, and any Host but loopback)`,
      `  EventBridge      ${stack.eventBridge.endpoint} (received entries: ${stack.baseUrl}/_local/eventbridge/entries)`,
      ...(clock.offset_seconds > 0
        ? [`  clock            ${clock.iso}, moved ${clock.offset_seconds} s ahead of this machine's (${stack.baseUrl}/_local/clock)`]
        : []),
      `  rate limits      ${values['rate-limits'] ? "the reference's (--rate-limits)" : 'off, except where a RATE_LIMIT_* variable sets one (--rate-limits: the reference’s)'}`,
      `Ready in ${((performance.now() - started) / 1000).toFixed(1)} s. Press Ctrl+C to stop.`,
      '',
    ].join('\n'),
  );
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await stack.stop();
    process.exit(0);
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
} catch (error) {
  const message = (error as Error).message;
  process.stderr.write(`${message.startsWith(javaRequiredMessage) || message.includes('Java') ? message : `Could not start the local stack: ${message}`}\n`);
  process.exit(1);
}
