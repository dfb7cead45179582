import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { CloudEvent } from '#shared/delivery/event-grid-sender.ts';
import { closeServer, listenOnLoopback, readCapped, refusedForeignHost, sendJson } from './http-io.ts';

/** One event a partner topic accepted, as the local receiver recorded it. */
export interface ReceivedCloudEvent {
  topic: string;
  /** ISO 8601, when the receiver accepted the event. */
  receivedAt: string;
  /** The event as posted. Only the attributes CloudEvents requires (`specversion`, `id`, `source`, `type`) were checked. */
  event: CloudEvent;
}

export interface EventGridReceiverOptions {
  /** @default 0 (a free port) */
  port?: number;
}

export interface EventGridReceiver {
  /** `http://127.0.0.1:<port>`, for the `CLOUDTWO_EVENT_GRID_ENDPOINT` variable. */
  endpoint: string;
  /**
   * Every accepted event, oldest first. The same array for the receiver's whole life (clearing empties it in
   * place), so a reference taken once stays current. Also served at `GET <endpoint>/events[?topic=]` and
   * emptied by `DELETE <endpoint>/events`.
   */
  events: ReceivedCloudEvent[];
  /** Makes a topic disappear; posts to it get 404, as after a deletion. Every other topic exists. */
  removeTopic(name: string): void;
  /** Undoes `removeTopic`. */
  restoreTopic(name: string): void;
  stop(): Promise<void>;
}

const maxRequestBytes = 1024 * 1024;
const singleType = 'application/cloudevents+json';
const batchType = 'application/cloudevents-batch+json';

/**
 * Starts a stand-in for cloudtwo Event Grid partner topics on 127.0.0.1:
 * `POST /partner-topics/<topic>/events` takes one CloudEvents 1.0 event in structured JSON mode
 * (`application/cloudevents+json`) or an array of them (`application/cloudevents-batch+json`), all or none.
 * Errors are `{"error": {"code", "message"}}` bodies: 400 `BadRequest`, 404 `NotFound`, 413
 * `RequestEntityTooLarge`, 415 `UnsupportedMediaType`.
 */
export async function startEventGridReceiver(options: EventGridReceiverOptions = {}): Promise<EventGridReceiver> {
  const removedTopics = new Set<string>();
  const events: ReceivedCloudEvent[] = [];

  const server = createServer((request, response) => {
    if (refusedForeignHost(request, response)) return;
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendError(response, 500, 'InternalServerError', String(error));
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://receiver');
    if (url.pathname === '/events' && request.method === 'GET') {
      const topic = url.searchParams.get('topic');
      return sendJson(response, 200, topic === null ? events : events.filter((received) => received.topic === topic), 'application/json; charset=utf-8');
    }
    if (url.pathname === '/events' && request.method === 'DELETE') {
      events.length = 0;
      response.writeHead(204).end();
      return;
    }
    // Test control from other processes: DELETE removes a partner topic, PUT restores it.
    const control = /^\/partner-topics\/([^/]+)$/.exec(url.pathname);
    if (control && (request.method === 'PUT' || request.method === 'DELETE')) {
      const name = topicName(control[1]!);
      if (name !== undefined && request.method === 'DELETE') removedTopics.add(name);
      if (name !== undefined && request.method === 'PUT') removedTopics.delete(name);
      response.writeHead(name === undefined ? 400 : 204).end();
      return;
    }
    const route = /^\/partner-topics\/([^/]+)\/events$/.exec(url.pathname);
    if (!route || request.method !== 'POST') return sendError(response, 404, 'NotFound', `No route for ${request.method} ${url.pathname}`);
    const topic = topicName(route[1]!);
    if (topic === undefined) return sendError(response, 400, 'BadRequest', 'The topic name is not validly percent-encoded');

    const body = await readCapped(request, maxRequestBytes);
    if (body === undefined) return sendError(response, 413, 'RequestEntityTooLarge', `The request body exceeds ${maxRequestBytes} bytes`);
    if (removedTopics.has(topic)) return sendError(response, 404, 'NotFound', `Partner topic ${topic} does not exist`);

    const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (mediaType !== singleType && mediaType !== batchType) {
      return sendError(response, 415, 'UnsupportedMediaType', `Content-Type must be ${singleType} or ${batchType}`);
    }
    let payload: unknown;
    try {
      payload = JSON.parse(body.toString('utf8'));
    } catch {
      return sendError(response, 400, 'BadRequest', 'The request body is not valid JSON');
    }
    const batch = mediaType === batchType;
    if (batch !== Array.isArray(payload)) {
      return sendError(response, 400, 'BadRequest', batch ? `${batchType} needs a JSON array of events` : `${singleType} needs one JSON object`);
    }
    const posted: unknown[] = batch ? (payload as unknown[]) : [payload];
    if (posted.length === 0) return sendError(response, 400, 'BadRequest', 'The batch holds no events');
    for (const [index, candidate] of posted.entries()) {
      const problem = cloudEventProblem(candidate);
      if (problem) return sendError(response, 400, 'BadRequest', batch ? `Event ${index}: ${problem}` : problem);
    }

    const receivedAt = new Date().toISOString();
    for (const event of posted) events.push({ topic, receivedAt, event: event as CloudEvent });
    response.writeHead(200, { 'content-length': 0 }).end();
  }

  const port = await listenOnLoopback(server, options.port);

  return {
    endpoint: `http://127.0.0.1:${port}`,
    events,
    removeTopic: (name) => void removedTopics.add(name),
    restoreTopic: (name) => void removedTopics.delete(name),
    stop: () => closeServer(server),
  };
}

function topicName(encoded: string): string | undefined {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return undefined;
  }
}

/** What makes a value not a CloudEvents 1.0 event (its required context attributes), or undefined. */
function cloudEventProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'An event must be a JSON object';
  const attributes = value as Record<string, unknown>;
  if (attributes.specversion !== '1.0') return "Attribute 'specversion' must be '1.0'";
  for (const name of ['id', 'source', 'type'] as const) {
    if (typeof attributes[name] !== 'string' || attributes[name] === '') return `Required attribute '${name}' must be a non-empty string`;
  }
  return undefined;
}

function sendError(response: ServerResponse, status: number, code: string, message: string): void {
  sendJson(response, status, { error: { code, message } }, 'application/json; charset=utf-8');
}
