import type { LoggedRequest } from '../../request-log.ts';
import { breakable, html, when } from '../html.ts';
import type { ViewAnswer, ViewContext } from '../server.ts';

/** How many of the key's newest requests the page shows. */
const shown = 200;

const statusTone = (status: number) => (status >= 500 ? 'bad' : status >= 400 ? 'warn' : 'good');

/**
 * Request log: the newest API requests made with the viewed platform's key in this mode, as the local gateway
 * answered them (it keeps the last 500 of all keys in memory). The dashboard's own calls are left out unless
 * asked for.
 */
export async function requestsPage(context: ViewContext): Promise<ViewAnswer> {
  const withDashboard = context.query.get('source') === 'all';
  const { data } = await context.api.requests<{ data: LoggedRequest[] }>(500);
  const rows = data.filter((request) => withDashboard || request.source === 'api').slice(0, shown);
  const body = html`<p class="hint">The newest ${shown} requests made with this platform's ${context.mode} key since the stack started, as the local gateway answered them (it keeps the last 500 of every key, in memory only; <code>GET /_local/requests</code>). Keys show as their hint.</p>
<nav class="status-filter">Show: <a href="${context.base}/requests"${withDashboard ? '' : html` aria-current="true"`}>your requests</a> <a href="${context.base}/requests?source=all"${withDashboard ? html` aria-current="true"` : ''}>with the dashboard's own</a></nav>
${
  rows.length === 0
    ? html`<p class="empty">No requests with this key yet.</p>`
    : html`<table class="requests" id="requests"><thead><tr><th>Time</th><th>Method</th><th>Path</th><th>Status</th><th>Key</th><th>Request id</th><th>Duration</th></tr></thead><tbody>${rows.map(
        (request) =>
          html`<tr data-request="${request.request_id ?? ''}" data-source="${request.source}"><td>${when(request.at)}</td><td><code>${request.method}</code></td><td class="path"><code>${breakable(request.path)}</code></td><td><span class="badge ${statusTone(request.status)}">${request.status}</span></td><td><code>${request.key ?? '—'}</code></td><td class="id"><code>${request.request_id ?? '—'}</code>${
            request.idempotency_key ? html`<br><small>idempotency key <code class="idempotency-key">${request.idempotency_key}</code></small>` : ''
          }</td><td class="duration">${request.duration_ms} ms</td></tr>`,
      )}</tbody></table>`
}`;
  return { page: { section: 'requests', title: 'Request log', body } };
}
