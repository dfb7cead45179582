import { stringify } from 'qs';
import { dashboardUserAgent } from '../request-log.ts';

/** An answer of the API that was not a 2xx, with the message of its error body. */
export class ApiAnswerError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | string[] | undefined>;

/** An id as the API writes them: what the dashboard puts into an API path (anything else is refused before a call). */
export const isApiId = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9_]{1,128}$/.test(value);

/**
 * The public API as one platform in one mode sees it: every read and action of the dashboard goes through
 * it with that platform's secret key, so a view can only ever show what the key may read.
 */
export function platformApi(baseUrl: string, secretKey: string) {
  async function call<T>(method: string, path: string, query: Query = {}, body?: unknown): Promise<T> {
    const v2 = path.startsWith('/v2/');
    // Arrays as the SDK sends them, v1 and v2 alike: `types[0]=…&types[1]=…`.
    const search = stringify(query, { arrayFormat: 'indices', skipNulls: true });
    const headers: Record<string, string> = { authorization: `Bearer ${secretKey}`, 'user-agent': dashboardUserAgent };
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = v2 ? 'application/json' : 'application/x-www-form-urlencoded';
      payload = v2 ? JSON.stringify(body) : stringify(body, { arrayFormat: 'indices' });
    }
    const url = `${baseUrl}${path}${search ? `?${search}` : ''}`;
    let response = await fetch(url, { method, headers, body: payload });
    // Over the key's rate limit (the developer's own traffic counts too): a 429 changed nothing, so wait (half
    // a second and more, jittered) and try again, up to three times; unless the answer says not to.
    for (let retry = 0; response.status === 429 && response.headers.get('stripe-should-retry') !== 'false' && retry < 3; retry++) {
      await response.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** retry * (0.75 + Math.random() / 2)));
      response = await fetch(url, { method, headers, body: payload });
    }
    const answer = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
    if (!response.ok) throw new ApiAnswerError(response.status, answer.error?.message ?? `HTTP ${response.status}`);
    return answer as T;
  }
  return {
    get: <T>(path: string, query?: Query) => call<T>('GET', path, query),
    post: <T>(path: string, body: unknown) => call<T>('POST', path, {}, body),
    delete: <T>(path: string) => call<T>('DELETE', path),
    /** The local gateway's log of this key's requests (`/_local/requests`, not part of the API). */
    requests: <T>(limit: number) => call<T>('GET', '/_local/requests', { limit }),
  };
}

export type PlatformApi = ReturnType<typeof platformApi>;
