import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

/** What one try at handing an event to a destination produced, whatever the transport. */
export interface DeliveryAttempt {
  outcome: 'delivered' | 'failed';
  /** The HTTP status, if a response arrived (EventBridge: 200 when accepted, else null). */
  status: number | null;
  durationMs: number;
  /** Short human text, e.g. `HTTP 500`, `timed out after 10000 ms`, `connection refused`; null when delivered. */
  error: string | null;
  /** The bus or topic does not exist (deleted on the customer's side): retrying will not help. */
  missingTarget: boolean;
}

export interface PostRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** At most this much of a response body is read, then the rest is dropped; nobody looks at it. */
const maxResponseBytes = 64 * 1024;

/** Connections are kept open between deliveries to the same host, as a warm worker would. */
const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };

/**
 * POSTs once, following no redirect, and turns the outcome into an attempt: a 2xx whose status arrives
 * within `timeoutMs` is delivered; any other status, a network failure or the timeout is failed. Throws
 * only for a programming error (a malformed URL, another scheme than http(s), a bad header value), never
 * for the network. Uses node:http rather than fetch: on a busy worker, fetch's web streams and abort
 * signals cost about a tenth of the thread.
 */
export async function postAttempt(request: PostRequest): Promise<DeliveryAttempt> {
  const url = new URL(request.url);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`Cannot POST to a ${url.protocol} URL`);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const started = performance.now();
  const headers = { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) };
  const outgoing = send(url, { method: 'POST', headers, agent: agents[url.protocol] });
  return new Promise((resolve) => {
    /** Set once the status is in: from then on the status decides, whatever happens to the body. */
    let verdict: Omit<DeliveryAttempt, 'durationMs'> | undefined;
    const finish = (attempt: Omit<DeliveryAttempt, 'durationMs'>) => {
      clearTimeout(timer);
      resolve({ ...attempt, durationMs: Math.round(performance.now() - started) });
    };
    const fail = (error: string) => finish({ outcome: 'failed', status: null, error, missingTarget: false });
    const timer = setTimeout(() => {
      if (verdict) finish(verdict);
      else fail(`timed out after ${request.timeoutMs} ms`);
      outgoing.destroy();
    }, request.timeoutMs);
    outgoing.on('error', (error) => (verdict ? finish(verdict) : fail(requestFailure(error))));
    outgoing.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const delivered = status >= 200 && status < 300;
      const reached = { outcome: delivered ? 'delivered' : 'failed', status, error: delivered ? null : httpStatusText(status), missingTarget: false } as const;
      verdict = reached;
      // The body is read (bounded, within the same timeout) only to free the connection.
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.byteLength;
        if (read < maxResponseBytes) return;
        response.destroy();
        finish(reached);
      });
      response.on('end', () => finish(reached));
      response.on('error', () => finish(reached));
    });
    outgoing.end(request.body);
  });
}

function httpStatusText(status: number): string {
  return status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
}

const networkErrors: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  UND_ERR_SOCKET: 'connection closed before a response',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS lookup failed)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for response headers',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the response',
};

/** Short text for a failed request (a socket, DNS or TLS error). */
function requestFailure(error: Error): string {
  const known = networkFailure(error);
  if (known !== undefined) return known;
  const code = errorCode(error);
  if (code === undefined) return `request failed (${error.message})`;
  if (code.includes('CERT') || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL')) return `TLS error (${code})`;
  return `request failed (${code})`;
}

/** Short text for a Node socket or DNS error (by its `code`), as fetch and AWS SDK clients raise them; else undefined. */
export function networkFailure(error: unknown): string | undefined {
  const code = errorCode(error);
  return code !== undefined && Object.hasOwn(networkErrors, code) ? networkErrors[code] : undefined;
}

/** Node's `code`; for a connection to several addresses (an AggregateError), the first one's. */
function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errors } = error as { code?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  return Array.isArray(errors) ? errorCode(errors[0]) : undefined;
}
