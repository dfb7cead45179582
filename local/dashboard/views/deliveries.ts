import { badge, html, when, type Html } from '../html.ts';
import type { ViewAnswer, ViewContext } from '../server.ts';
import { deliveryTable, type EventDelivery } from './delivery-table.ts';
import { createForms, secretNotice } from './destination-actions.ts';

interface Target {
  id: string;
  kind: 'event_destination' | 'webhook_endpoint';
  /** What it is: a v1 endpoint, or a destination's type and payload. */
  label: string;
  /** Where it sends: a URL, a bus, a topic. */
  where: string;
  status: 'enabled' | 'disabled';
  disabledReason: string | null;
  enabledEvents: string[];
}

interface Destination {
  id: string;
  name: string;
  type: string;
  event_payload: string;
  enabled_events: string[];
  status: 'enabled' | 'disabled';
  status_details: { disabled: { reason: string } } | null;
  webhook_endpoint: { url: string | null } | null;
  cloudone_eventbridge: { cloudone_event_source_arn: string } | null;
  cloudtwo_event_grid: { cloudtwo_partner_topic_name: string } | null;
}
interface Endpoint {
  id: string;
  url: string;
  status: 'enabled' | 'disabled';
  enabled_events: string[];
}

const fromDestination = (destination: Destination): Target => ({
  id: destination.id,
  kind: 'event_destination',
  label: `${destination.name} · ${destination.type.replaceAll('_', ' ')} · ${destination.event_payload}`,
  where:
    destination.webhook_endpoint?.url ??
    destination.cloudone_eventbridge?.cloudone_event_source_arn ??
    destination.cloudtwo_event_grid?.cloudtwo_partner_topic_name ??
    '',
  status: destination.status,
  disabledReason: destination.status_details?.disabled.reason ?? null,
  enabledEvents: destination.enabled_events,
});
const fromEndpoint = (endpoint: Endpoint): Target => ({
  id: endpoint.id,
  kind: 'webhook_endpoint',
  label: 'v1 webhook endpoint · snapshot',
  where: endpoint.url,
  status: endpoint.status,
  disabledReason: null,
  enabledEvents: endpoint.enabled_events,
});

const deliveriesPath = (target: Pick<Target, 'id' | 'kind'>) => `/v2/service/${target.kind}s/${target.id}/deliveries`;

/** Most deliveries read for a destination's health: the API's page, and the last 30 days' are kept. */
const healthSample = 100;

/**
 * A destination's health from deliveries read with the API: the share of finished ones that succeeded, the
 * newest failed attempt (a pending delivery's too: a receiver that fails every time shows before its retries
 * run out), and what is still to be retried. `deliveries` is one status's page, or an unfiltered one (which
 * the API orders pending, failed, succeeded, canceled, each newest first).
 */
function healthOf(deliveries: EventDelivery[]) {
  const count = (status: EventDelivery['status']) => deliveries.filter((delivery) => delivery.status === status).length;
  const counts = { succeeded: count('succeeded'), failed: count('failed'), pending: count('pending') };
  const finished = counts.succeeded + counts.failed;
  const failures = deliveries.flatMap((delivery) =>
    delivery.attempts.filter((attempt) => attempt.outcome === 'failed').map((attempt) => ({ delivery, attempt })),
  );
  const lastFailure = failures.sort((a, b) => (a.attempt.attempted_at < b.attempt.attempted_at ? 1 : -1))[0];
  const nextRetry = deliveries
    .map((delivery) => delivery.next_attempt_at)
    .filter((at): at is string => at !== null)
    .sort()[0];
  return { rate: finished === 0 ? null : Math.round((counts.succeeded / finished) * 100), counts, lastFailure, nextRetry };
}

type Health = ReturnType<typeof healthOf>;

/**
 * What a full unfiltered page may have cut short: it lists pending, then failed, then succeeded, then
 * canceled deliveries, so the status of its last one, and every one listed after it, may have more.
 */
function cutShort(page: EventDelivery[]): ReadonlySet<Counted> {
  if (page.length < healthSample) return new Set();
  const order: Counted[] = ['pending', 'failed', 'succeeded'];
  const last = order.indexOf(page.at(-1)!.status as Counted);
  // Ending in canceled ones (listed last), it holds every pending, failed and succeeded one.
  return new Set(last === -1 ? [] : order.slice(last));
}

type Counted = 'succeeded' | 'failed' | 'pending';

/**
 * The health cells. `cut` names the statuses whose count the read may have cut short (a full page of them):
 * those counts show as "100+", and a rate that would rest on one of them is not shown.
 */
function healthCells(base: string, health: Health, cut: ReadonlySet<Counted>): Html {
  const { counts, lastFailure, nextRetry } = health;
  const count = (status: Counted) => (cut.has(status) ? `${counts[status]}+` : String(counts[status]));
  const rate = cut.has('succeeded') || cut.has('failed') ? null : health.rate;
  return html`<td class="rate">${rate === null ? '—' : `${rate}%`}<br><small>${count('succeeded')} ok · ${count('failed')} failed</small></td>
<td>${
    lastFailure
      ? html`<a href="${base}/events/${lastFailure.delivery.event.id}">${when(lastFailure.attempt.attempted_at)}</a><br><small>${
          lastFailure.attempt.http_status === null ? lastFailure.attempt.error : `HTTP ${lastFailure.attempt.http_status}`
        }</small>`
      : '—'
  }</td>
<td>${counts.pending === 0 ? '—' : html`${count('pending')} pending<br><small>next ${when(nextRetry ?? null)}</small>`}</td>`;
}

/** Runs `work` on each item, at most `limit` at a time (the dashboard spends the viewed key's rate limit). */
async function inTurns<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const lane = async () => {
    // Once one has failed the page fails: start nothing more.
    while (next < items.length && !failed) {
      const index = next++;
      results[index] = await work(items[index]!).catch((error: unknown) => {
        failed = true;
        throw error;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

const statusCell = (target: Target) =>
  html`${badge(target.status)}${target.disabledReason ? html`<br><small>${target.disabledReason.replaceAll('_', ' ')}</small>` : ''}`;

/** Enable or disable, and delete (the page asks first). */
const manageButtons = (target: Target): Html =>
  html`<button type="button" class="secondary change-destination" data-destination="${target.id}" data-change="${target.status === 'enabled' ? 'disable' : 'enable'}">${
    target.status === 'enabled' ? 'Disable' : 'Enable'
  }</button> <button type="button" class="secondary danger change-destination" data-destination="${target.id}" data-change="delete">Delete</button>`;

/** Deliveries: every v2 destination and v1 endpoint of the platform in this mode, with its health. */
export async function deliveriesPage(context: ViewContext): Promise<ViewAnswer> {
  const { api, base } = context;
  const [destinations, endpoints] = await Promise.all([
    api.get<{ data: Destination[] }>('/v2/core/event_destinations', { limit: 100, include: ['webhook_endpoint.url'] }),
    api.get<{ data: Endpoint[] }>('/v1/webhook_endpoints', { limit: 100 }),
  ]);
  const targets = [...destinations.data.map(fromDestination), ...endpoints.data.map(fromEndpoint)];
  // One read per destination, a few at a time: the page costs the key 2 + n requests, whatever their traffic.
  const pages = await inTurns(targets, 4, (target) => api.get<{ data: EventDelivery[] }>(deliveriesPath(target), { limit: healthSample }));
  const body = html`${createForms}
${secretNotice}
<p class="action-result" id="change-result" role="status"></p>
<p class="hint">Health from each destination's ${healthSample} deliveries of the last 30 days that need attention most (pending, then failed, then succeeded): "100+" where there are more, and then no rate here. Open one for its counts by status, its attempts, and to send events again.</p>
${
  targets.length === 0
    ? html`<p class="empty">No event destinations or webhook endpoints in ${context.mode} mode yet.</p>`
    : html`<table class="targets" id="targets"><thead><tr><th>Destination</th><th>Status</th><th>Success rate</th><th>Last failure</th><th>Retrying</th><th></th></tr></thead><tbody>
${targets.map(
  (
    target,
    index,
  ) => html`<tr data-target="${target.id}"><td><a href="${base}/deliveries/${target.id}">${target.id}</a><br><small>${target.label}</small><br><small class="where">${target.where}</small></td>
<td>${statusCell(target)}</td>${healthCells(base, healthOf(pages[index]!.data), cutShort(pages[index]!.data))}<td class="manage">${manageButtons(target)}</td></tr>`,
)}</tbody></table>`
}`;
  return { page: { section: 'deliveries', title: 'Deliveries', body } };
}

const statuses = ['pending', 'failed', 'succeeded', 'canceled'] as const;

/** One destination or v1 endpoint: its health, and its recent deliveries with every attempt, by status. */
export async function targetPage(context: ViewContext): Promise<ViewAnswer> {
  const { api, base, query } = context;
  const id = context.ids[0]!;
  const target = id.startsWith('we_')
    ? fromEndpoint(await api.get<Endpoint>(`/v1/webhook_endpoints/${id}`))
    : fromDestination(await api.get<Destination>(`/v2/core/event_destinations/${id}`, { include: ['webhook_endpoint.url'] }));
  const status = statuses.find((name) => name === query.get('status'));
  // Health from a page of each status (three reads); the list is the asked status's page, or one more read (all, or canceled).
  const read = (only?: string) => api.get<{ data: EventDelivery[] }>(deliveriesPath(target), { status: only, limit: healthSample }).then((page) => page.data);
  const counted = status === 'succeeded' || status === 'failed' || status === 'pending';
  const [succeeded, failed, pending, other] = await Promise.all([read('succeeded'), read('failed'), read('pending'), counted ? undefined : read(status)]);
  const shown = other ?? { succeeded, failed, pending }[status as Counted];
  const health = healthOf([...pending, ...failed, ...succeeded]);
  const cut = new Set((['succeeded', 'failed', 'pending'] as const).filter((_, index) => [succeeded, failed, pending][index]!.length === healthSample));
  const body = html`<dl class="facts"><dt>Kind</dt><dd>${target.label}</dd><dt>Sends to</dt><dd class="where">${target.where}</dd><dt>Status</dt><dd>${statusCell(target)}</dd><dt>Events</dt><dd>${target.enabledEvents.join(', ')}</dd></dl>
<p class="manage" id="manage">${manageButtons(target)}</p>
<p class="action-result" id="change-result" role="status"></p>
${secretNotice}
<table class="targets"><thead><tr><th>Success rate</th><th>Last failure</th><th>Retrying</th></tr></thead><tbody><tr>${healthCells(base, health, cut)}</tr></tbody></table>
<nav class="status-filter">Show: <a href="${base}/deliveries/${id}"${status ? '' : html` aria-current="true"`}>all</a>${statuses.map(
    (name) => html` <a href="${base}/deliveries/${id}?status=${name}"${status === name ? html` aria-current="true"` : ''}>${name}</a>`,
  )}</nav>
<div id="target-deliveries">${deliveryTable(base, shown, 'event')}</div>
<p class="action-result" id="resend-result" role="status"></p>`;
  return { page: { section: 'deliveries', title: target.id, body } };
}
