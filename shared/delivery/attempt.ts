import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { PrivateTargetError, privateHostReason, publicOnlyLookup } from './egress-policy.ts';

/** What one try at handing an event to a destination produced, whatever the transport. */
export interface DeliveryAttempt {
  outcome: 'delivered' | 'failed';
  /** The HTTP status, if a response arrived (EventBridge: 200 when accepted, else null). */
  status: number | null;
  durationMs: number;
  /** Short human text, e.g. `HTTP 500`, `timed out after 10000 ms`, `connection refused`; null when delivered. */
  error: string | null;
  /** The start of the response body (at most {@link maxExcerptBytes}), when one arrived; absent for other transports. */
  responseExcerpt?: string | null;
  /** The bus or topic does not exist (deleted on the customer's side): retrying will not help. */
  missingTarget: boolean;
}

export interface PostRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Connect to public addresses only (checked on the address connected to, after DNS). @default false */
  publicOnly?: boolean;
}

/** At most this much of a response body is read, then the rest is dropped. */
const maxResponseBytes = 64 * 1024;

/**
 * The start of the response body kept with each attempt, so a developer can see what the receiver said: small,
 * since it is stored in the delivery record (up to 14 attempts in live mode) and its index entry.
 */
export const maxExcerptBytes = 256;

/**
 * Connections are kept open between deliveries (an idle one closes a little before the server's
 * `Keep-Alive: timeout` hint). node:http rather than fetch, which took about three times the CPU per
 * request (measured on loopback, client and receiver together).
 */
const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };
/** Public-only connections keep their own pool: a socket opened to a private address never serves them. */
const publicAgents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };

/** What one HTTP exchange gave: a status, or a network failure (`reused`: on a kept-alive connection). */
type Exchange = { status: number; excerpt: string } | { failure: unknown; timedOut: boolean; reused: boolean };

/**
 * POSTs once, following no redirect, and turns the outcome into an attempt: a 2xx whose status arrives
 * within `timeoutMs` is delivered; any other status, a network failure or the timeout is failed. Throws
 * only for a programming error (a malformed URL or header value), never for the network.
 *
 * A kept-alive connection the server closed just as the request went out (a reset before any answer) is
 * not the endpoint's failure: that request is sent once more on a new connection.
 */
export async function postAttempt(request: PostRequest): Promise<DeliveryAttempt> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(request.url);
  let exchange = await post(url, request, request.timeoutMs);
  if ('failure' in exchange && exchange.reused && !exchange.timedOut && isReset(exchange.failure)) {
    exchange = await post(url, request, request.timeoutMs - elapsed());
  }
  if ('failure' in exchange) {
    const error = exchange.timedOut ? `timed out after ${request.timeoutMs} ms` : requestFailure(exchange.failure);
    return { outcome: 'failed', status: null, durationMs: elapsed(), error, missingTarget: false, responseExcerpt: null };
  }
  const delivered = exchange.status >= 200 && exchange.status < 300;
  return {
    outcome: delivered ? 'delivered' : 'failed',
    status: exchange.status,
    durationMs: elapsed(),
    error: delivered ? null : httpStatusText(exchange.status),
    missingTarget: false,
    responseExcerpt: exchange.excerpt,
  };
}

/**
 * One POST. The status decides; the body is then read (at most {@link maxResponseBytes}, within the same
 * deadline) only to free the connection. Rejects only when the request cannot be built.
 */
function post(url: URL, request: PostRequest, timeoutMs: number): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
    if (!send) return reject(new TypeError(`Only http and https URLs can be posted to, not ${url.protocol}`));
    // An address literal is connected to without any lookup: judge it here.
    const literal = request.publicOnly ? privateHostReason(url.hostname) : undefined;
    if (literal) return resolve({ failure: new PrivateTargetError(literal), timedOut: false, reused: false });
    const pool = request.publicOnly ? publicAgents : agents;
    let status: number | undefined;
    let timedOut = false;
    const outgoing = send(
      url,
      {
        method: 'POST',
        agent: pool[url.protocol as keyof typeof pool],
        headers: { ...request.headers, 'Content-Length': Buffer.byteLength(request.body) },
        ...(request.publicOnly ? { lookup: publicOnlyLookup as never } : {}),
      },
      (response) => {
        status = response.statusCode ?? 0;
        let read = 0;
        const head: Buffer[] = [];
        const finish = () => {
          clearTimeout(timer);
          resolve({ status: status!, excerpt: excerptOf(Buffer.concat(head)) });
        };
        response.on('data', (chunk: Buffer) => {
          if (read < maxExcerptBytes) head.push(chunk.subarray(0, maxExcerptBytes - read));
          read += chunk.byteLength;
          if (read >= maxResponseBytes) response.destroy();
        });
        response.once('end', finish);
        response.once('close', finish);
        // A body cut short or timed out changes nothing: the status already decided the outcome.
        response.on('error', () => undefined);
      },
    );
    const timer = setTimeout(
      () => {
        timedOut = status === undefined;
        outgoing.destroy(new Error('timed out'));
      },
      Math.max(0, timeoutMs),
    );
    const failed = (failure: unknown) => {
      clearTimeout(timer);
      if (status === undefined) resolve({ failure, timedOut, reused: outgoing.reusedSocket });
    };
    outgoing.on('error', failed);
    outgoing.on('close', () => status === undefined && failed(new Error('connection closed before a response')));
    outgoing.end(request.body);
  });
}

/** The first {@link maxExcerptBytes} of a body as text; a character cut in half at the end is dropped. */
function excerptOf(head: Buffer): string {
  return head
    .subarray(0, maxExcerptBytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

/** The connection was reset or closed before any answer (`socket hang up` is ECONNRESET too). */
const isReset = (failure: unknown) => ['ECONNRESET', 'EPIPE'].includes(errorCode(failure) ?? '');

function httpStatusText(status: number): string {
  return status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
}

const networkErrors: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS lookup failed)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPRIVATETARGET: 'refused: the target is a private, loopback or link-local address (live-mode webhooks go to public addresses only)',
};

/** Short text for a network failure of a request (a Node socket, DNS or TLS error). */
function requestFailure(failure: unknown): string {
  const known = networkFailure(failure);
  if (known !== undefined) return known;
  const code = errorCode(failure);
  if (code === undefined) return failure instanceof Error ? `request failed (${failure.message})` : 'request failed';
  if (code.includes('CERT') || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL')) return `TLS error (${code})`;
  return `request failed (${code})`;
}

/** Short text for a Node socket or DNS error (by its `code`), as node:http and AWS SDK clients raise them; else undefined. */
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
