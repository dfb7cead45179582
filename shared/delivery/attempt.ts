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

/**
 * POSTs once, following no redirect, and turns the outcome into an attempt: a 2xx whose status arrives
 * within `timeoutMs` is delivered; any other status, a network failure or the timeout is failed. Throws
 * only for a programming error (a malformed URL or header value), never for the network.
 */
export async function postAttempt(request: PostRequest): Promise<DeliveryAttempt> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(request.timeoutMs);
  let response: Response;
  try {
    response = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body, redirect: 'manual', signal });
  } catch (error) {
    const text = fetchFailure(error, request.timeoutMs);
    if (text === undefined) throw error;
    return { outcome: 'failed', status: null, durationMs: elapsed(), error: text, missingTarget: false };
  }
  // The verdict is the status; the body is read (bounded by the same timeout) only to free the connection.
  await discardBody(response.body);
  const delivered = response.status >= 200 && response.status < 300;
  return {
    outcome: delivered ? 'delivered' : 'failed',
    status: response.status,
    durationMs: elapsed(),
    error: delivered ? null : httpStatusText(response.status),
    missingTarget: false,
  };
}

function httpStatusText(status: number): string {
  return status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
}

async function discardBody(body: ReadableStream<Uint8Array> | null): Promise<void> {
  if (!body) return;
  const reader = body.getReader();
  let read = 0;
  try {
    while (read < maxResponseBytes) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
  } catch {
    // A body cut short or timed out changes nothing: the status already decided the outcome.
  } finally {
    reader.cancel().catch(() => undefined);
  }
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

/**
 * Short text for fetch's failure (`TypeError: fetch failed` and its cause, or the timeout signal);
 * undefined for anything else, which the caller rethrows.
 */
function fetchFailure(error: unknown, timeoutMs: number): string | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.name === 'TimeoutError') return `timed out after ${timeoutMs} ms`;
  if (!(error instanceof TypeError && error.message === 'fetch failed')) return undefined;
  const known = networkFailure(error.cause);
  if (known !== undefined) return known;
  const code = errorCode(error.cause);
  if (code === undefined) return error.cause instanceof Error ? `request failed (${error.cause.message})` : 'request failed';
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
