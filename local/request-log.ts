import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { keyHint, parseApiKey } from '#shared/platform/api-keys.ts';
import type { AnsweredRequest } from './http-gateway.ts';
import { sendJson } from './http-io.ts';

/** The `User-Agent` of the dashboard's own API calls: the request log tells them from the developer's. */
export const dashboardUserAgent = 'local-dashboard';

/** One API request as the local gateway answered it. Never the key itself: its hint. */
export interface LoggedRequest {
  /** Increasing within a run: what a reader asks for the ones after. */
  seq: number;
  /** When it arrived, by the stack's clock (ISO). */
  at: string;
  method: string;
  path: string;
  status: number;
  /** `sk_test_…abcd`, or null when the request carried no key. */
  key: string | null;
  request_id: string | null;
  idempotency_key: string | null;
  duration_ms: number;
  /** `dashboard` for the local dashboard's own reads and actions, `api` for everything else. */
  source: 'api' | 'dashboard';
}

/** The default number of requests kept. */
const requestLogSize = 500;

const digest = (key: string) => createHash('sha256').update(key).digest('hex');

/** The key a request presented (Bearer, or Basic with the key as user name), or undefined. */
function presentedKey(authorization: string | undefined): string | undefined {
  const [scheme = '', credentials = ''] = (authorization ?? '').trim().split(/\s+/);
  if (scheme.toLowerCase() === 'bearer') return credentials || undefined;
  if (scheme.toLowerCase() !== 'basic' || !credentials) return undefined;
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  return decoded.split(':')[0] || undefined;
}

/** A hint that reveals no more than the API's own error messages do (four last characters of a key-shaped value). */
function hintOf(key: string): string {
  return parseApiKey(key) ? keyHint(key) : `${key.slice(0, 8).replace(/[^\w]/g, '')}…`;
}

const header = (headers: IncomingMessage['headers'], name: string): string | undefined => {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value)?.slice(0, 255);
};

/**
 * The last `size` API requests the local gateway answered, in memory only (nothing of it exists on AWS, where
 * API Gateway's access logs play this part). Each keeps a digest of its key so that a reader holding a key can
 * ask for that key's requests; the digest never leaves this module.
 */
export function requestLog(options: { size?: number; clock: () => number }) {
  const size = options.size ?? requestLogSize;
  const entries: Array<LoggedRequest & { keyDigest: string | null }> = [];
  let seq = 0;
  return {
    record(request: AnsweredRequest): void {
      const key = presentedKey(header(request.headers, 'authorization'));
      entries.push({
        seq: ++seq,
        at: new Date(options.clock() - (Date.now() - request.startedAt)).toISOString(),
        method: request.method,
        path: request.path.slice(0, 300),
        status: request.status,
        key: key ? hintOf(key) : null,
        request_id: request.requestId ?? null,
        idempotency_key: header(request.headers, 'idempotency-key') ?? null,
        duration_ms: Math.round(request.durationMs * 10) / 10,
        source: header(request.headers, 'user-agent') === dashboardUserAgent ? 'dashboard' : 'api',
        keyDigest: key ? digest(key) : null,
      });
      if (entries.length > size) entries.splice(0, entries.length - size);
    },
    /** Newest first; only the requests made with `key` when one is given. */
    list(filter: { key?: string; limit?: number } = {}): LoggedRequest[] {
      const wanted = filter.key === undefined ? undefined : digest(filter.key);
      const found: LoggedRequest[] = [];
      for (let index = entries.length - 1; index >= 0 && found.length < (filter.limit ?? size); index--) {
        const { keyDigest, ...entry } = entries[index]!;
        if (wanted === undefined || keyDigest === wanted) found.push(entry);
      }
      return found;
    },
  };
}

type RequestLog = ReturnType<typeof requestLog>;

/**
 * `GET /_local/requests[?limit=n]`: the newest requests the gateway answered (all of them, or with
 * `Authorization: Bearer <key>` only those made with that key). The stack's other `/_local` checks (loopback
 * host only, none of its own webhooks) run before it.
 */
export function requestLogRoute(log: RequestLog) {
  return (request: IncomingMessage, response: ServerResponse, path: string): boolean => {
    if (path !== '/_local/requests') return false;
    if (request.method !== 'GET') {
      response.setHeader('allow', 'GET');
      sendJson(response, 405, { error: { type: 'invalid_request_error', message: '/_local/requests answers GET.' } });
      return true;
    }
    const query = new URLSearchParams((request.url ?? '').split('?')[1] ?? '');
    const limit = query.has('limit') ? Number(query.get('limit')) : requestLogSize;
    if (!Number.isInteger(limit) || limit < 1 || limit > requestLogSize) {
      sendJson(response, 400, { error: { type: 'invalid_request_error', message: `limit is a whole number from 1 to ${requestLogSize}.` } });
      return true;
    }
    const key = presentedKey(header(request.headers, 'authorization'));
    sendJson(response, 200, { object: 'list', data: log.list({ key, limit }) });
    return true;
  };
}
