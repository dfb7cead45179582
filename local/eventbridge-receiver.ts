import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { localAccountId } from '#local/lambda-context.ts';
import { closeServer, listenOnLoopback, readCapped, refusedForeignHost, sendJson } from './http-io.ts';

/** One event EventBridge accepted, as the local receiver recorded it. */
export interface ReceivedEntry {
  eventId: string;
  /** ISO 8601, when the receiver accepted the entry. */
  receivedAt: string;
  /** The bus name, also when the entry named the bus by ARN. */
  eventBusName: string;
  source: string;
  detailType: string;
  detail: unknown;
  resources: string[];
  /** ISO 8601 without milliseconds, as in EventBridge events: the entry's `Time`, else `receivedAt`. */
  time: string;
}

export interface EventBridgeReceiverOptions {
  /** Buses that exist besides `default`. */
  busNames: string[];
  /** @default 0 (a free port) */
  port?: number;
  /** Region in bus ARNs. @default 'us-east-1' */
  region?: string;
}

export interface EventBridgeReceiver {
  /** `http://127.0.0.1:<port>`, for the SDK's `endpoint` and the `EVENTBRIDGE_ENDPOINT` variable. */
  endpoint: string;
  /**
   * Every accepted entry, oldest first. The same array for the receiver's whole life (clearing empties it
   * in place), so a reference taken once stays current. Also served at `GET <endpoint>/entries[?source=]`
   * and emptied by `DELETE <endpoint>/entries`. `PUT|DELETE <endpoint>/buses/<name>` add or remove a bus.
   */
  entries: ReceivedEntry[];
  /** Makes a bus exist; entries for it are accepted from now on. */
  addBus(name: string): void;
  /** Makes a bus disappear; entries for it fail with `ResourceNotFoundException`, as after a deletion. */
  removeBus(name: string): void;
  stop(): Promise<void>;
}

const maxEntriesPerCall = 10;
const maxRequestBytes = 1024 * 1024;

/**
 * Starts a stand-in for the EventBridge API on 127.0.0.1 that speaks its JSON 1.1 protocol well enough for
 * `@aws-sdk/client-eventbridge`: `PutEvents` (per-entry results and errors as AWS reports them) and
 * `DescribeEventBus`. It records accepted entries instead of routing them to rules.
 */
export async function startEventBridgeReceiver(options: EventBridgeReceiverOptions): Promise<EventBridgeReceiver> {
  const region = options.region ?? 'us-east-1';
  const buses = new Set(['default', ...options.busNames]);
  const entries: ReceivedEntry[] = [];
  const busArn = (name: string) => `arn:aws:events:${region}:${localAccountId}:event-bus/${name}`;

  const operations: Record<string, (input: Record<string, unknown>) => ApiResult> = {
    PutEvents: (input) => putEvents(input, buses, entries),
    DescribeEventBus: (input) => {
      const name = busNameOf(input.Name) ?? 'default';
      if (!buses.has(name)) return apiError(400, 'ResourceNotFoundException', `Event bus ${name} does not exist.`);
      return { status: 200, body: { Name: name, Arn: busArn(name) } };
    },
  };

  const server = createServer((request, response) => {
    if (refusedForeignHost(request, response)) return;
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { __type: 'InternalException', message: String(error) });
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://receiver');
    if (url.pathname === '/entries' && request.method === 'GET') {
      const source = url.searchParams.get('source');
      return sendJson(response, 200, source === null ? entries : entries.filter((entry) => entry.source === source));
    }
    if (url.pathname === '/entries' && request.method === 'DELETE') {
      entries.length = 0;
      response.writeHead(204).end();
      return;
    }
    // Test control from other processes: PUT makes a bus exist, DELETE makes it disappear.
    const bus = /^\/buses\/([^/]+)$/.exec(url.pathname);
    if (bus && (request.method === 'PUT' || request.method === 'DELETE')) {
      const name = decodeURIComponent(bus[1]!);
      if (request.method === 'PUT') buses.add(name);
      else buses.delete(name);
      response.writeHead(204).end();
      return;
    }
    const target = request.headers['x-amz-target'];
    if (request.method !== 'POST' || url.pathname !== '/' || typeof target !== 'string') {
      return sendJson(response, 404, { message: 'Not Found' });
    }

    const body = await readCapped(request, maxRequestBytes);
    if (body === undefined) {
      return sendAwsJson(response, apiError(413, 'RequestEntityTooLargeException', 'Request Entity Too Large'));
    }
    const operation = target.startsWith('AWSEvents.') ? operations[target.slice('AWSEvents.'.length)] : undefined;
    if (!operation) return sendAwsJson(response, apiError(400, 'UnknownOperationException', `Unknown operation ${target}`));
    let input: unknown;
    try {
      input = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
    } catch {
      return sendAwsJson(response, apiError(400, 'SerializationException', 'Request body is not valid JSON'));
    }
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return sendAwsJson(response, apiError(400, 'SerializationException', 'Request body must be a JSON object'));
    }
    sendAwsJson(response, operation(input as Record<string, unknown>));
  }

  const port = await listenOnLoopback(server, options.port);

  return {
    endpoint: `http://127.0.0.1:${port}`,
    entries,
    addBus: (name) => void buses.add(name),
    removeBus: (name) => void buses.delete(name),
    stop: () => closeServer(server),
  };
}

interface ApiResult {
  status: number;
  body: unknown;
}

const apiError = (status: number, type: string, message: string): ApiResult => ({ status, body: { __type: type, message } });

type EntryResult = { EventId: string } | { ErrorCode: string; ErrorMessage: string };

function putEvents(input: Record<string, unknown>, buses: Set<string>, entries: ReceivedEntry[]): ApiResult {
  const requested = input.Entries;
  if (!Array.isArray(requested) || requested.length === 0) {
    return apiError(400, 'ValidationException', "1 validation error detected: Value null at 'entries' failed to satisfy constraint: Member must not be null");
  }
  if (requested.length > maxEntriesPerCall) {
    return apiError(
      400,
      'ValidationException',
      `1 validation error detected: Value '[${requested.length} entries]' at 'entries' failed to satisfy constraint: ` +
        `Member must have length less than or equal to ${maxEntriesPerCall}`,
    );
  }
  const receivedAt = new Date();
  const results = requested.map((entry: unknown): EntryResult => {
    const fields = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
    for (const name of ['Source', 'DetailType', 'Detail'] as const) {
      if (typeof fields[name] !== 'string' || fields[name] === '') {
        return { ErrorCode: 'InvalidArgument', ErrorMessage: `Parameter ${name} is not valid. Reason: ${name} is a required argument.` };
      }
    }
    const detail = parseDetail(fields.Detail as string);
    if (detail === undefined) return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    const eventBusName = busNameOf(fields.EventBusName) ?? 'default';
    if (!buses.has(eventBusName)) {
      return { ErrorCode: 'ResourceNotFoundException', ErrorMessage: `Event bus ${eventBusName} does not exist.` };
    }
    const eventId = randomUUID();
    entries.push({
      eventId,
      receivedAt: receivedAt.toISOString(),
      eventBusName,
      source: fields.Source as string,
      detailType: fields.DetailType as string,
      detail,
      resources: Array.isArray(fields.Resources) ? fields.Resources.filter((item) => typeof item === 'string') : [],
      time: eventTime(typeof fields.Time === 'number' ? new Date(fields.Time * 1000) : receivedAt),
    });
    return { EventId: eventId };
  });
  const failed = results.filter((result) => 'ErrorCode' in result).length;
  return { status: 200, body: { FailedEntryCount: failed, Entries: results } };
}

/** EventBridge requires `Detail` to be a JSON object. */
function parseDetail(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Accepts a bus name or a bus ARN (`arn:aws:events:<region>:<account>:event-bus/<name>`). */
function busNameOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const arn = /^arn:[^:]+:events:[^:]*:[^:]*:event-bus\/(.+)$/.exec(value);
  return arn ? arn[1] : value;
}

const eventTime = (date: Date) => (Number.isNaN(date.getTime()) ? new Date() : date).toISOString().replace(/\.\d{3}Z$/, 'Z');

function sendAwsJson(response: ServerResponse, result: ApiResult): void {
  const payload = JSON.stringify(result.body);
  response.writeHead(result.status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': Buffer.byteLength(payload),
    'x-amzn-requestid': randomUUID(),
  });
  response.end(payload);
}
