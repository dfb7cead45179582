import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { makeTable, tableClient, type Table } from '#shared/data/table.ts';
import { dynamoCloudtwoAuthorizationStore } from '#shared/data/event-destination-repository.ts';
import { dynamoPlatformStore } from '#shared/data/platform-store.ts';
import { ensureAccountSecrets } from '#shared/data/account-secret-store.ts';
import { createPlatform, issueApiKeys, maxRollGraceMillis, revokeApiKey, rollApiKey } from '#shared/platform/platform-service.ts';
import { localDataDir, localStackStateFile, type LocalStackState } from '#local/state-file.ts';
import { localClockFileName, readClockOffset } from '#local/clock.ts';
import { tableNamePattern } from '#shared/data/table-schema.ts';
import { ensureTable } from '#local/dynamodb.ts';
import { platformKeysFileName, rememberPlatformKey } from '#local/dashboard/keyring.ts';

const usage = `Usage: npm run admin -- <command> [options]

Commands:
  create-platform [--live] [--no-accounts-v2]
      Creates a platform account with a secret and a publishable key (test mode unless --live) and prints
      {"account", "secret_key", "publishable_key"} as JSON. Keys are stored only as hashes: keep the output.
  create-keys <account id> [--live]
      Adds a secret and a publishable key of one mode to an existing platform and prints them as JSON.
  show-platform <account id>
      Prints the account, its features, its keys (hint, SHA-256, expiry) and its cloudtwo partner authorizations.
  roll-key <key or its SHA-256> [--expires-in-hours <n>]
      Issues a new key of the same kind and mode and prints it; the old key stops working now, or after
      the given number of hours so that clients can switch over.
  revoke-key <key or its SHA-256>
      Makes a key stop working now.
  (A service process trusts a key it has read for API_KEY_CACHE_SECONDS, 60 by default: a rolled or revoked
  key is refused everywhere within that window.)
  authorize-cloudtwo <account id> --subscription-id <id> --resource-group <name> [--expires-at <ISO date>]
      Registers a cloudtwo Event Grid partner authorization, without which the platform cannot create
      cloudtwo_event_grid destinations (default expiry: one year from now).
  ensure-account-secrets
      Gives every account made before accounts got their secret at creation its secret (one Scan of the
      table): until then a read-only request of such an account that needs it (a v2 list, a v1 search) gets
      409 account_secret_missing, which its first POST also cures. Safe to run again. Run it once after the
      upgrade that narrowed account secrets (docs/operations.md, Security).
  table-export <file>    (local stack only)
      Writes every item of the local stack's table to <file>, one JSON object a line. Stop the traffic first.
  table-restore <file> <new table>    (local stack only)
      Creates <new table> with the service's schema in the local DynamoDB and writes the export's items into
      it; \`npm start -- --table <new table>\` then serves it. The rehearsal of a restore
      (docs/operations.md, Backups and restore).
  clock [advance <duration> | set <instant> | reset]    (local stack only)
      Prints the local stack's clock, or moves it forward: by a duration ("90s", "15m", "24h", "1d12h"), or to
      an instant (ISO 8601 or Unix seconds), running everything that falls due on the way in time order, and
      answers once it has been done. \`reset\` takes it back to the machine's time (docs/local.md, Time control).
      --url <base URL> targets a stack that wrote no state file (npm start -- --in-memory).

Target:
  By default the running local stack (npm start). For a deployed stack pass --table <name> (or set
  TABLE_NAME) with AWS credentials and region in the environment as usual.`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

function localStackState(): LocalStackState {
  if (!existsSync(localStackStateFile)) {
    fail(`No local stack is running (${localStackStateFile} not found). Start it with 'npm start', or pass --table <name> for a deployed table.`);
  }
  return JSON.parse(readFileSync(localStackStateFile, 'utf8')) as LocalStackState;
}

/** The table, and the clock its stack runs on: the local stack's may have been moved forward (`clock`). */
function target(tableOption: string | undefined): { table: Table; now: () => number } {
  const tableName = tableOption ?? process.env.TABLE_NAME;
  if (tableName) {
    return { table: makeTable(tableClient({ endpoint: process.env.DYNAMODB_ENDPOINT }), tableName), now: Date.now };
  }
  const state = localStackState();
  const client = tableClient({ endpoint: state.dynamodbEndpoint, region: state.region, credentials: state.credentials });
  const offset = readClockOffset(resolve(localDataDir, localClockFileName));
  const now = () => Date.now() + offset;
  return { table: makeTable(client, state.tableName, now), now };
}

/** An item as a line of an export: JSON has no sets, so the paths of the item's sets are listed beside it. */
interface ExportedItem {
  item: Record<string, unknown>;
  sets: string[][];
}

function withoutSets(item: Record<string, unknown>): ExportedItem {
  const sets: string[][] = [];
  const plain = (value: unknown, path: string[]): unknown => {
    if (value instanceof Set) {
      sets.push(path);
      return [...value];
    }
    if (Array.isArray(value)) return value.map((each, index) => plain(each, [...path, String(index)]));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, plain(each, [...path, key])]));
    return value;
  };
  return { item: plain(item, []) as Record<string, unknown>, sets };
}

function withSets({ item, sets }: ExportedItem): Record<string, unknown> {
  for (const path of sets) {
    const parent = path.slice(0, -1).reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, item);
    const key = path.at(-1)!;
    parent[key] = new Set(parent[key] as unknown[]);
  }
  return item;
}

/**
 * `table-export <file>`: every item of the local stack's table, one JSON object a line (a consistent
 * snapshot only while nothing writes: stop the traffic first, as a backup's point in time would be).
 */
async function exportTable(file: string): Promise<void> {
  const state = localStackState();
  const table = makeTable(tableClient({ endpoint: state.dynamodbEndpoint, region: state.region, credentials: state.credentials }), state.tableName);
  const lines: string[] = [];
  let lastKey: Record<string, unknown> | undefined;
  do {
    const page = await table.scan({ TableName: table.name, ConsistentRead: true, ...(lastKey ? { ExclusiveStartKey: lastKey } : {}) });
    for (const item of page.items) lines.push(JSON.stringify(withoutSets(item)));
    lastKey = page.lastKey;
  } while (lastKey);
  // Never over an existing file: the export holds everything the table does, its secrets included.
  writeFileSync(file, lines.length > 0 ? `${lines.join('\n')}\n` : '', { mode: 0o600, flag: 'wx' });
  process.stdout.write(`${JSON.stringify({ table: state.tableName, items: lines.length, file })}\n`);
}

/**
 * `table-restore <file> <table>`: a new table of the local DynamoDB with the service's schema, holding the
 * items of an export, as DynamoDB restores a backup into a new table; `npm start -- --table <table>` then
 * serves it. Refuses a table that exists.
 */
async function restoreTable(file: string, tableName: string): Promise<void> {
  if (!tableNamePattern.test(tableName)) fail(`Not a DynamoDB table name: '${tableName}'.`);
  const state = localStackState();
  if (tableName === state.tableName) fail(`'${tableName}' is the table the stack serves: restore into a new table.`);
  const client = tableClient({ endpoint: state.dynamodbEndpoint, region: state.region, credentials: state.credentials });
  if ((await ensureTable(client, tableName)) !== 'created') fail(`Table '${tableName}' exists already: restore into a new one.`);
  const table = makeTable(client, tableName);
  const items = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => withSets(JSON.parse(line) as ExportedItem));
  for (let start = 0; start < items.length; start += 25) {
    let requests = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let round = 0; requests.length > 0; round++) {
      if (round > 20) throw new Error('DynamoDB Local kept some writes unprocessed');
      requests = (await table.batchWrite(requests)) as typeof requests;
    }
  }
  process.stdout.write(`${JSON.stringify({ table: tableName, items: items.length, from: file, serve: `npm start -- --table ${tableName}` })}\n`);
}

/** `clock`: reads or moves the local stack's clock through its `/_local/clock` endpoint. */
async function localClock(args: string[], url: string | undefined): Promise<void> {
  if (process.env.TABLE_NAME && url === undefined) fail('The clock can be moved in the local stack only; on AWS it is the machine clock.');
  const [action, value] = args;
  const body =
    action === 'advance'
      ? { advance: value }
      : action === 'set'
        ? { to: /^\d+(\.\d+)?$/.test(value ?? '') ? Number(value) : value }
        : action === 'reset'
          ? { reset: true }
          : undefined;
  if (action !== undefined && (body === undefined || (action === 'reset') !== (value === undefined)))
    fail('Usage: clock [advance <duration> | set <instant> | reset]');
  const base = url ?? localStackState().baseUrl;
  const response = await fetch(`${base.replace(/\/$/, '')}/_local/clock`, {
    method: body ? 'POST' : 'GET',
    ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  const answer = (await response.json()) as { error?: { message: string } };
  if (!response.ok) fail(`clock: ${answer.error?.message ?? `HTTP ${response.status}`}`);
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      live: { type: 'boolean', default: false },
      'no-accounts-v2': { type: 'boolean', default: false },
      table: { type: 'string' },
      'subscription-id': { type: 'string' },
      'resource-group': { type: 'string' },
      'expires-at': { type: 'string' },
      'expires-in-hours': { type: 'string' },
      url: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  if (command === 'clock') {
    if (values.table) fail('The clock can be moved in the local stack only; on AWS it is the machine clock.');
    await localClock(rest, values.url).catch((error: Error) => fail(`clock failed: ${error.message} (is the local stack running?)`));
    return;
  }
  if (command === 'table-export' || command === 'table-restore') {
    if (values.table ?? process.env.TABLE_NAME) {
      fail(`${command} is for the local stack; a deployed table is restored with DynamoDB's own restore (docs/operations.md, Backups and restore).`);
    }
    await (command === 'table-export'
      ? exportTable(rest[0] ?? fail('table-export needs a file.'))
      : restoreTable(rest[0] ?? fail('table-restore needs a file.'), rest[1] ?? fail('table-restore needs the new table name.'))
    ).catch((error: Error) => fail(`${command} failed: ${error.message}`));
    return;
  }
  const { table, now } = target(values.table);
  const store = dynamoPlatformStore(table);
  // The local stack's dashboard lists the platforms made for it (the table keeps only key hashes).
  const deployed = Boolean(values.table ?? process.env.TABLE_NAME);
  // Called once the key is printed: a key the file cannot take is only not listed, never lost.
  const rememberForDashboard = (secretKey: string) => {
    if (deployed) return;
    const file = resolve(localDataDir, platformKeysFileName);
    try {
      rememberPlatformKey(file, secretKey);
    } catch (error) {
      process.stderr.write(`The key was not added to ${file} (${(error as Error).message}): add it on the dashboard's API keys page.\n`);
    }
  };
  const cloudtwo = dynamoCloudtwoAuthorizationStore(table);
  try {
    switch (command) {
      case 'create-platform': {
        const platform = await createPlatform(store, { livemode: values.live, accountsV2: !values['no-accounts-v2'] }, now());
        process.stdout.write(`${JSON.stringify(platform)}\n`);
        rememberForDashboard(platform.secret_key);
        return;
      }
      case 'create-keys': {
        const id = rest[0] ?? fail('create-keys needs an account id.');
        if (!(await store.getAccount(id))) fail(`No such account: ${id}`);
        const keys = await issueApiKeys(store, id, { livemode: values.live }, now());
        process.stdout.write(`${JSON.stringify(keys)}\n`);
        rememberForDashboard(keys.secret_key);
        return;
      }
      case 'show-platform': {
        const id = rest[0] ?? fail('show-platform needs an account id.');
        const account = (await store.getAccount(id)) ?? fail(`No such account: ${id}`);
        const keys = (await store.listApiKeys(id)).map(({ hint, hash, kind, livemode, created, expiresAt }) => ({
          hint,
          sha256: hash,
          kind,
          livemode,
          created,
          ...(expiresAt !== undefined ? { expires_at: new Date(expiresAt).toISOString() } : {}),
        }));
        const cloudtwoAuthorizations = (await cloudtwo.list(id)).map((auth) => ({ ...auth, expiresAt: new Date(auth.expiresAt).toISOString() }));
        process.stdout.write(`${JSON.stringify({ ...account, keys, cloudtwoAuthorizations }, null, 2)}\n`);
        return;
      }
      case 'roll-key': {
        const key = rest[0] ?? fail('roll-key needs the key (or its SHA-256).');
        const hours = values['expires-in-hours'] === undefined ? 0 : Number(values['expires-in-hours']);
        if (!Number.isFinite(hours) || hours < 0 || hours * 3_600_000 > maxRollGraceMillis) fail('--expires-in-hours must be a number of hours from 0 to 168.');
        const rolled = await rollApiKey(store, key, { expiresAt: now() + hours * 3_600_000 }, now());
        process.stdout.write(`${JSON.stringify(rolled)}\n`);
        // The dashboard keeps showing the platform with its new key (a publishable key is not kept).
        rememberForDashboard(rolled.key);
        return;
      }
      case 'revoke-key': {
        const key = rest[0] ?? fail('revoke-key needs the key (or its SHA-256).');
        process.stdout.write(`${JSON.stringify(await revokeApiKey(store, key, now()))}\n`);
        return;
      }
      case 'ensure-account-secrets': {
        process.stdout.write(`${JSON.stringify(await ensureAccountSecrets(table))}\n`);
        return;
      }
      case 'authorize-cloudtwo': {
        const id = rest[0] ?? fail('authorize-cloudtwo needs an account id.');
        const subscriptionId = values['subscription-id'] ?? fail('authorize-cloudtwo needs --subscription-id.');
        const resourceGroupName = values['resource-group'] ?? fail('authorize-cloudtwo needs --resource-group.');
        const expiresAt = values['expires-at'] ? Date.parse(values['expires-at']) : now() + 365 * 24 * 60 * 60 * 1000;
        if (Number.isNaN(expiresAt)) fail(`--expires-at must be an ISO date, not '${values['expires-at']}'.`);
        if (!(await store.getAccount(id))) fail(`No such account: ${id}`);
        await cloudtwo.put(id, { subscriptionId, resourceGroupName, expiresAt });
        process.stdout.write(`${JSON.stringify({ account: id, subscriptionId, resourceGroupName, expiresAt: new Date(expiresAt).toISOString() })}\n`);
        return;
      }
      default:
        fail(`Unknown command '${command}'.\n\n${usage}`);
    }
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'ResourceNotFoundException') fail('The table does not exist: is the stack deployed, or the local stack running?');
    if ((error as { code?: string }).code === 'ECONNREFUSED') fail('Cannot reach the local DynamoDB: is `npm start` still running?');
    fail(`admin ${command} failed: ${(error as Error).message}`);
  }
}

await main();
