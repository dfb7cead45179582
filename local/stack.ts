import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { callTotals, withCallScope } from '#shared/aws/aws-calls.ts';
import { functionCallScope } from './iam.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fallbackRoute, queueWorkers, routes, scheduledJobs, type QueueWorker, type ScheduledJob } from '#functions/routes.ts';
import { makeTable } from '#shared/data/table.ts';
import { dynamoMeterRepository } from '#shared/data/meter-repository.ts';
import { dynamoPlatformStore } from '#shared/data/platform-store.ts';
import { batchedSender } from '#shared/messaging/batched-sender.ts';
import { queueSeal } from '#shared/messaging/message-seal.ts';
import { dynamoServiceSecretStore } from '#shared/data/service-secret-store.ts';
import { localTableName } from '#shared/data/table-schema.ts';
import { queues, type QueueDefinition } from '#shared/messaging/queues.ts';
import type { CreatedPlatform } from '#shared/platform/platform-service.ts';
import { ensureDefaultPlatform } from './default-platform.ts';
import { createLocalDynamoDbClient, ensureTable, startDynamoDbLocal } from './dynamodb.ts';
import { newEngineCredentials } from './engine-guard.ts';
import { startEventBridgeReceiver, type EventBridgeReceiver } from './eventbridge-receiver.ts';
import { startEventGridReceiver, type EventGridReceiver } from './event-grid-receiver.ts';
import { refusedForeignHost, sendJson } from './http-io.ts';
import { createLambdaContext } from './lambda-context.ts';
import { createModuleLoader, startHttpGateway, type HttpGatewayOptions } from './http-gateway.ts';
import { startQueueWorkers, type InvalidBatchResponse } from './queue-workers.ts';
import { createLocalSqsClient, startSqs, type LocalSqs } from './sqs.ts';
import { leftSettleWork } from './lease-recovery.ts';
import { localRateLimitEnv } from './rate-limits.ts';
import { settleDelaySeconds } from '#shared/meter-events/usage-lease.ts';
import { cacheWindows, readThrough } from '#shared/core/cache.ts';
import { useLocalEngines, type EmulatorCredentials } from './engine-clients.ts';
import { localKmsKeyFileName, localKmsMasterKey, localSecretsKeyId } from './local-kms.ts';
import { followLocalClock } from '#shared/core/clock.ts';
import { createLocalClock, localClockFileName, localClockRoute, replayTo, type LocalClock } from './clock.ts';
import { nextDueAt, type DueQueue } from '#shared/data/due-index.ts';
import type { LocalStackState } from './state-file.ts';
import { dashboardKeyring, platformKeysFileName } from './dashboard/keyring.ts';
import { requestLog, requestLogRoute } from './request-log.ts';
import { dashboardRoute } from './dashboard/server.ts';
import { streamSessions } from './dashboard/stream-sessions.ts';

export interface LocalStackOptions {
  /** Port of the HTTP API; 0 picks a free one. @default 4242 */
  port?: number;
  /** The table the stack serves (created if missing): another name serves a restored copy. @default 'service' */
  tableName?: string;
  /** Where data persists across restarts; undefined keeps everything in memory. */
  dataDir?: string;
  /** Write this file so that `npm run admin` can find the running stack. */
  stateFile?: string;
  /** Pin the default platform's test keys. */
  secretKey?: string;
  publishableKey?: string;
  /** Queue workers to run. @default queueWorkers from the route table */
  workers?: QueueWorker[];
  /** Queues besides the service's own (tests use short visibility timeouts). */
  extraQueues?: QueueDefinition[];
  /** Scheduled jobs to run. @default scheduledJobs from the route table */
  jobs?: ScheduledJob[];
  /** Milliseconds between runs of each scheduled job locally (their AWS schedule is in minutes). @default 10_000 */
  jobIntervalMs?: number;
  /**
   * The scheduled jobs start on their interval once this settles (at once without it); a clock move runs them
   * either way. A test run's shared stack passes its first answer: idle runs before any test uses it only
   * took CPU from the tests that ran meanwhile.
   */
  jobsFrom?: Promise<unknown>;
  /** Batches each queue worker handles at once: like concurrent Lambda invocations. @default 8 */
  workerConcurrency?: number;
  /** Environment for the handlers over the stack's own (e.g. faster retry schedules in tests). */
  env?: Record<string, string>;
  /**
   * Enforce the reference's rate limits (per key, meter events, search) with their documented figures; off, a
   * limit is enforced only where its variable is set (in `env` or the environment). @default false
   */
  rateLimits?: boolean;
  /** Quieter logs (tests). @default false */
  quiet?: boolean;
  /** Sees each routed answer of the HTTP API before it is sent (see `HttpGatewayOptions.inspectResponse`). */
  inspectResponse?: HttpGatewayOptions['inspectResponse'];
  /** Told of each batch response of a queue worker that Lambda would reject (see `QueuePollerOptions.onInvalidResponse`). */
  onInvalidBatchResponse?: (report: InvalidBatchResponse) => void;
}

export interface LocalStack {
  baseUrl: string;
  /** The environment the handler modules run with. */
  env: Record<string, string>;
  defaultPlatform: CreatedPlatform;
  dynamodbEndpoint: string;
  /** The credentials this start generated: DynamoDB Local and the SQS emulator refuse any other access key id. */
  engineCredentials: EmulatorCredentials;
  sqs: LocalSqs;
  eventBridge: EventBridgeReceiver;
  eventGrid: EventGridReceiver;
  /** The stack's clock (`/_local/clock`), ahead of the machine's once moved. */
  clock: LocalClock;
  /** The master key of the stack's KMS stand-in (`local/local-kms.ts`): what opens its sealed secrets. */
  kmsMasterKey: Buffer;
  stop(): Promise<void>;
}

/** The bus that cloudone destinations publish to, locally. */
export const localEventBusName = 'service-events';
const region = 'us-east-1';
let started = false;

/**
 * How long moving the clock waits for the queues to settle (before the change, so that no message in flight
 * outlives its visibility timeout; after it, so that what became due has been handled when it answers).
 * Longer than a webhook's default timeout.
 */
const clockSettleMillis = 15_000;

/**
 * The due-index queues whose entries are instants a clock move steps to: a delivery retry past SQS's longest
 * delay (the sweeper's), a meter error window's end, a usage partition's daily roll, a billing object falling
 * due on the stack's clock. Not: fan-outs and meter work (due there only if their message was lost, swept after
 * a grace at whichever step comes next) and billing alerts (waiting for usage, not a time; evaluated each step).
 */
const replayedDueQueues: DueQueue[] = ['deliveries', 'meter-reports', 'meter-rolls', 'billing'];
/** What must be done by the time a step ends (deliveries due wait on their queue message, or on the sweeper's grace). */
const quietDueQueues: DueQueue[] = ['meter-reports', 'meter-rolls', 'billing'];
/** Runs of the scheduled jobs in one step at most, while work due by then is left. */
const maxQuietRounds = 5;

/**
 * `/_local/eventbridge/entries` and `/_local/event-grid/events`: what the local EventBridge and Event Grid
 * receivers accepted (GET lists, DELETE clears); `/_local/clock`: the local clock (`local/clock.ts`);
 * `/_local/requests`: the last API requests the gateway answered (`local/request-log.ts`).
 */
function localDiagnostics(
  eventBridge: EventBridgeReceiver,
  eventGrid: EventGridReceiver,
  clockRoute: ReturnType<typeof localClockRoute>,
  requestsRoute: ReturnType<typeof requestLogRoute>,
) {
  const lists: Record<string, unknown[]> = { '/_local/eventbridge/entries': eventBridge.entries, '/_local/event-grid/events': eventGrid.events };
  return (request: IncomingMessage, response: ServerResponse): boolean => {
    const path = (request.url ?? '').split('?')[0] ?? '';
    if (path.startsWith('/_local/') && refusedForeignHost(request, response)) return true;
    // A webhook of this very stack (test mode may target 127.0.0.1) must not read or move the stack's own
    // diagnostics: its signature header gives it away.
    if (path.startsWith('/_local/') && request.headers['service-signature'] !== undefined) {
      sendJson(response, 403, {
        error: { type: 'invalid_request_error', code: 'webhook_not_allowed', message: "The local stack's /_local/ routes do not take its own webhooks." },
      });
      return true;
    }
    if (clockRoute(request, response, path) || requestsRoute(request, response, path)) return true;
    const list = lists[path];
    if (!list) return false;
    if (request.method !== 'GET' && request.method !== 'DELETE') {
      sendJson(response, 405, { error: { type: 'invalid_request_error', message: `${path} answers GET (what was received) and DELETE (forget it).` } });
      return true;
    }
    if (request.method === 'DELETE') list.splice(0);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(list));
    return true;
  };
}

/**
 * Brings up the whole service on this machine: DynamoDB Local, the SQS emulator, the EventBridge receiver,
 * the queue workers and the HTTP API, all running the same handler modules that deploy to Lambda.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  // Handler modules are loaded once per process and keep their clients, as warm Lambdas do, so a second
  // stack in the same process (even after the first stopped) would talk to the first one's DynamoDB.
  if (started) throw new Error('A local stack was already started in this process; start another one in its own process.');
  started = true;
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
    stops.length = 0;
  };
  try {
    // The data directory holds the database, the default platform's keys and the engines' credentials.
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
      chmodSync(options.dataDir, 0o700);
    }
    const engineCredentials = newEngineCredentials();
    const kmsMasterKey = localKmsMasterKey(options.dataDir && join(options.dataDir, localKmsKeyFileName));
    // One clock for the whole stack: this thread's handlers and jobs, the queue workers' thread and the SQS
    // emulator all follow its shared offset; with a data directory it is kept there across restarts.
    const clock = createLocalClock(options.dataDir && join(options.dataDir, localClockFileName));
    followLocalClock(clock.offset);
    const [dynamodb, sqs, eventBridge, eventGrid] = await Promise.all([
      startDynamoDbLocal({ dataDir: options.dataDir && join(options.dataDir, 'dynamodb'), credentials: engineCredentials }),
      startSqs({ extraQueues: options.extraQueues, clockOffset: clock.offset, credentials: engineCredentials }),
      startEventBridgeReceiver({ busNames: [localEventBusName], region }),
      startEventGridReceiver(),
    ]);
    stops.push(dynamodb.stop, sqs.stop, eventBridge.stop, eventGrid.stop);
    const dynamoClient = createLocalDynamoDbClient(dynamodb.endpoint, engineCredentials);
    const tableName = options.tableName ?? localTableName;
    await ensureTable(dynamoClient, tableName);

    const env: Record<string, string> = {
      TABLE_NAME: tableName,
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: engineCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: engineCredentials.secretAccessKey,
      DYNAMODB_ENDPOINT: dynamodb.endpoint,
      SQS_ENDPOINT: sqs.endpoint,
      EVENTBRIDGE_ENDPOINT: eventBridge.endpoint,
      EVENT_BUS_NAME: localEventBusName,
      CLOUDTWO_EVENT_GRID_ENDPOINT: eventGrid.endpoint,
      SECRETS_KEY_ID: localSecretsKeyId,
      // Test-mode webhooks may reach receivers on this machine; live mode never reaches private addresses.
      WEBHOOK_ALLOW_PRIVATE_TARGETS: process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? 'true',
      POWERTOOLS_LOG_LEVEL: process.env.POWERTOOLS_LOG_LEVEL ?? (options.quiet ? 'ERROR' : 'WARN'),
      // CloudWatch metrics (embedded in log lines) mean nothing here; X-Ray is not even loaded (shared/core/observability.ts).
      POWERTOOLS_METRICS_DISABLED: 'true',
      ...localRateLimitEnv(options.rateLimits ?? false, { ...process.env, ...options.env }),
      ...Object.fromEntries(Object.entries(queues).map(([name, queue]) => [queue.urlVariable, sqs.queueUrls[name as keyof typeof queues]])),
      ...options.env,
    };
    // The handler modules read their configuration from the environment at cold start, as on Lambda, and
    // reach the engines with this start's credentials (the runtime's one hook into their clients).
    Object.assign(process.env, env);
    useLocalEngines(engineCredentials, kmsMasterKey);

    const localTable = makeTable(dynamoClient, tableName);
    const platformStore = dynamoPlatformStore(localTable);
    const defaultPlatform = await ensureDefaultPlatform(platformStore, {
      file: options.dataDir && join(options.dataDir, 'default-platform.json'),
      secretKey: options.secretKey,
      publishableKey: options.publishableKey,
    });
    // Kept data may hold usage leases whose settle messages died with the last run's in-memory queues. They go
    // out again as they first did, delayed past the lease: a lease the last run took just before it stopped
    // may not have run out yet, and a settle that finds it held waits a whole visibility timeout (3 min).
    if (options.dataDir) {
      const settles = await leftSettleWork(localTable, dynamoMeterRepository(localTable));
      if (settles.length > 0)
        await batchedSender(sqs.queueUrls['meter-events'], createLocalSqsClient(sqs.endpoint, engineCredentials))(
          await queueSeal(dynamoServiceSecretStore(localTable).secret, 'meter-events').seal(settles.map((work) => JSON.stringify(work))),
          settleDelaySeconds,
        );
    }

    const workers = (options.workers ?? queueWorkers).map((worker) => {
      const queue = sqs.queues.get(worker.queue) ?? sqs.queues.get(queues[worker.queue as keyof typeof queues]?.name ?? '');
      if (!queue) throw new Error(`Worker ${worker.name} consumes unknown queue ${worker.queue}`);
      return {
        name: worker.name,
        handler: worker.handler,
        permissions: worker.permissions,
        queueUrl: queue.url,
        queueArn: queue.arn,
        batchSize: Math.min(10, worker.batchSize ?? 10),
      };
    });
    const queueWorkerThread = await startQueueWorkers({
      sqsEndpoint: sqs.endpoint,
      sqsCredentials: engineCredentials,
      workers,
      concurrency: options.workerConcurrency ?? 8,
      clockOffset: clock.offset,
      kmsMasterKey,
      onInvalidResponse: options.onInvalidBatchResponse,
    });
    stops.push(queueWorkerThread.stop);

    const load = createModuleLoader();
    const timers: NodeJS.Timeout[] = [];
    const running = new Set<Promise<unknown>>();
    const runs: Array<() => Promise<unknown>> = [];
    const ticks: Array<() => void> = [];
    let jobsStopped = false;
    const jobs = options.jobs ?? scheduledJobs;
    const jobIntervalMs = options.jobIntervalMs ?? 10_000;
    for (const job of jobs) {
      const handler = (await load(job.handler)) as unknown as (event: unknown, context: unknown) => Promise<unknown>;
      let inFlight: Promise<unknown> | undefined;
      const run = () => {
        // Like EventBridge Scheduler: a scheduled event; a failed run is logged and the next one comes anyway.
        const event = { source: 'local.scheduler', 'detail-type': 'Scheduled Event', time: new Date(clock.now()).toISOString(), detail: {} };
        // `LOCAL_AWS_CALLS=true`: what each run cost is printed, as the queue workers print theirs.
        const measure = process.env.LOCAL_AWS_CALLS === 'true';
        const scope = functionCallScope(job.name, job.permissions, measure);
        const done: Promise<unknown> = withCallScope(scope, () => handler(event, createLambdaContext({ functionName: job.name })))
          .then(() => {
            if (measure) console.log(`aws-calls ${JSON.stringify({ function: job.name, ...callTotals(scope) })}`);
          })
          .catch((error: unknown) => console.error(`Scheduled job ${job.name} failed`, error))
          .finally(() => {
            running.delete(done);
            if (inFlight === done) inFlight = undefined;
          });
        running.add(done);
        inFlight = done;
        return done;
      };
      // A tick skips a job whose last run is still going, as a minute's schedule on AWS never overlaps a run under
      // a minute (a billing sweep may take 20 s): runs every 500 ms in tests would otherwise pile up on one another.
      ticks.push(() => void (inFlight ?? run()));
      // A run asked for (a clock move) waits for the one going, then runs at the new time.
      runs.push(async () => {
        await inFlight;
        return run();
      });
    }
    // Each job on its own phase of the interval, as schedules on AWS do not fire together: started in one
    // instant, seven jobs' shard queries (32 each) would reach DynamoDB Local as one burst every interval.
    const startJobs = () => {
      if (jobsStopped) return;
      for (const [index, tick] of ticks.entries()) {
        timers.push(setTimeout(() => timers.push(setInterval(tick, jobIntervalMs)), Math.round((jobIntervalMs * index) / ticks.length)));
      }
    };
    if (options.jobsFrom) void options.jobsFrom.then(startJobs, startJobs);
    else startJobs();
    stops.push(async () => {
      jobsStopped = true;
      timers.forEach(clearInterval);
      await Promise.all(running);
    });

    // Moving the clock replays the time it skips: step by step to each instant at which work falls due (a delayed
    // message, a due-index entry of the queues the stack's clock drives), each time letting the messages it made
    // due be handled and running the scheduled jobs until nothing due by then is left (`replayTo`, local/clock.ts).
    const settleQueues = () => sqs.settled(clockSettleMillis);
    const nextDue = async (after: number) => {
      const dues = await Promise.all([sqs.nextDue(after), ...replayedDueQueues.map((queue) => nextDueAt(localTable, queue, after))]);
      return dues.reduce<number | undefined>((earliest, due) => (due !== undefined && (earliest === undefined || due < earliest) ? due : earliest), undefined);
    };
    const dueByNow = async () => {
      const now = clock.now();
      const firsts = await Promise.all(quietDueQueues.map((queue) => nextDueAt(localTable, queue, -1)));
      return firsts.some((due) => due !== undefined && due <= now);
    };
    const runDue = async () => {
      // The emulator moves messages whose delay has passed every 20 ms while a receive waits.
      await new Promise((resolve) => setTimeout(resolve, 100));
      await settleQueues();
      // A sweep takes at most its limit at once; work that stays due (a failing billing object) ends the rounds.
      for (let round = 0; round < maxQuietRounds; round++) {
        await Promise.all(runs.map((run) => run()));
        await settleQueues();
        if (!(await dueByNow())) break;
      }
    };
    const clockRoute = localClockRoute(clock, async (change, target) => {
      // Nothing in flight outlives its visibility timeout across the change.
      await settleQueues();
      if ('reset' in change) {
        clock.apply(change);
        return undefined;
      }
      return replayTo(clock, target, { nextDue, runDue });
    });

    // The dashboard (/dashboard) reads through the API with the viewed platform's key, at the gateway's own URL.
    let baseUrl = '';
    const sessions = streamSessions();
    const dashboard = dashboardRoute({
      keyring: dashboardKeyring({
        defaultAccount: defaultPlatform.account,
        defaultKey: defaultPlatform.secret_key,
        file: options.dataDir && join(options.dataDir, platformKeysFileName),
        // Trusted as long as the API trusts a key it has read (API_KEY_CACHE_SECONDS).
        findKey: readThrough(
          (hash: string) => platformStore.findApiKey(hash),
          (hash) => hash,
          { ttlMillis: cacheWindows.apiKeys(), maxEntries: 1_000 },
        ),
        clock: () => clock.now(),
      }),
      sessions,
      clock: () => clock.describe(),
      stackUrl: () => baseUrl,
    });
    const requests = requestLog({ clock: () => clock.now() });
    const diagnostics = localDiagnostics(eventBridge, eventGrid, clockRoute, requestLogRoute(requests));
    const gateway = await startHttpGateway({
      port: options.port ?? 4242,
      routes,
      fallbackRoute,
      loadHandler: load,
      region,
      extraRoutes: (request, response) => dashboard(request, response, (request.url ?? '').split('?')[0] ?? '') || diagnostics(request, response),
      inspectResponse: (route, result, event) => {
        sessions.observe(route.name, result, event);
        options.inspectResponse?.(route, result, event);
      },
      onAnswered: requests.record,
    });
    baseUrl = gateway.url;
    stops.push(gateway.stop);

    if (options.stateFile) {
      const state: LocalStackState = {
        pid: process.pid,
        baseUrl: gateway.url,
        dynamodbEndpoint: dynamodb.endpoint,
        sqsEndpoint: sqs.endpoint,
        credentials: engineCredentials,
        region,
        tableName,
      };
      // It carries the engines' credentials: its owner's only, a stale one of a crashed run included.
      writeFileSync(options.stateFile, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
      chmodSync(options.stateFile, 0o600);
      const file = options.stateFile;
      stops.push(async () => rmSync(file, { force: true }));
    }
    return {
      baseUrl: gateway.url,
      env,
      defaultPlatform,
      dynamodbEndpoint: dynamodb.endpoint,
      engineCredentials,
      sqs,
      eventBridge,
      eventGrid,
      clock,
      kmsMasterKey,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
