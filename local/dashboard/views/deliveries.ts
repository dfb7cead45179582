import type { PlatformApi } from '../api.ts';
import { badge, html, when, type Html } from '../html.ts';
import type { ViewAnswer, ViewContext } from '../server.ts';
import { deliveryTable, type EventDelivery } from './delivery-table.ts';

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

/** Most deliveries of each status read for a destination's health (the last 30 days' are kept). */
const healthSample = 100;

/**
 * A destination's health from its recent deliveries: the share that succeeded of those that finished, the
 * newest failure, and what is still to be retried. Three reads, one per status (each one query).
 */
async function healthOf(api: PlatformApi, target: Target) {
  const read = (status: string) => api.get<{ data: EventDelivery[] }>(deliveriesPath(target), { status, limit: healthSample }).then((page) => page.data);
  const [succeeded, failed, pending] = await Promise.all([read('succeeded'), read('failed'), read('pending')]);
  const finished = succeeded.length + failed.length;
  const lastFailure = failed[0];
  const nextRetry = pending
    .map((delivery) => delivery.next_attempt_at)
    .filter((at): at is string => at !== null)
    .sort()[0];
  return {
    rate: finished === 0 ? null : Math.round((succeeded.length / finished) * 100),
    counts: { succeeded: succeeded.length, failed: failed.length, pending: pending.length },
    lastFailure: lastFailure && { delivery: lastFailure, attempt: lastFailure.attempts.at(-1) },
    nextRetry,
  };
}

type Health = Awaited<ReturnType<typeof healthOf>>;

const capped = (count: number) => (count >= healthSample ? `${healthSample}+` : String(count));

function healthCells(base: string, health: Health): Html {
  const { rate, counts, lastFailure, nextRetry } = health;
  return html`<td class="rate">${rate === null ? '—' : `${rate}%`}<br><small>${capped(counts.succeeded)} ok · ${capped(counts.failed)} failed</small></td>
<td>${
    lastFailure
      ? html`<a href="${base}/events/${lastFailure.delivery.event.id}">${when(lastFailure.attempt?.attempted_at ?? lastFailure.delivery.created)}</a><br><small>${
          lastFailure.attempt
            ? lastFailure.attempt.http_status === null
              ? lastFailure.attempt.error
              : `HTTP ${lastFailure.attempt.http_status}`
            : lastFailure.delivery.canceled_reason
        }</small>`
      : '—'
  }</td>
<td>${counts.pending === 0 ? '—' : html`${capped(counts.pending)} pending<br><small>next ${when(nextRetry ?? null)}</small>`}</td>`;
}

const statusCell = (target: Target) =>
  html`${badge(target.status)}${target.disabledReason ? html`<br><small>${target.disabledReason.replaceAll('_', ' ')}</small>` : ''}`;

/** Deliveries: every v2 destination and v1 endpoint of the platform in this mode, with its health. */
export async function deliveriesPage(context: ViewContext): Promise<ViewAnswer> {
  const { api, base } = context;
  const [destinations, endpoints] = await Promise.all([
    api.get<{ data: Destination[] }>('/v2/core/event_destinations', { limit: 100, include: ['webhook_endpoint.url'] }),
    api.get<{ data: Endpoint[] }>('/v1/webhook_endpoints', { limit: 100 }),
  ]);
  const targets = [...destinations.data.map(fromDestination), ...endpoints.data.map(fromEndpoint)];
  const health = await Promise.all(targets.map((target) => healthOf(api, target)));
  const body = html`<p class="hint">Health counts the deliveries of the last 30 days (up to ${healthSample} of each status). Open one to see its attempts and send events again.</p>
${
  targets.length === 0
    ? html`<p class="empty">No event destinations or webhook endpoints in ${context.mode} mode yet.</p>`
    : html`<table class="targets" id="targets"><thead><tr><th>Destination</th><th>Status</th><th>Success rate</th><th>Last failure</th><th>Retrying</th></tr></thead><tbody>
${targets.map(
  (
    target,
    index,
  ) => html`<tr data-target="${target.id}"><td><a href="${base}/deliveries/${target.id}">${target.id}</a><br><small>${target.label}</small><br><small class="where">${target.where}</small></td>
<td>${statusCell(target)}</td>${healthCells(base, health[index]!)}</tr>`,
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
  const [health, page] = await Promise.all([healthOf(api, target), api.get<{ data: EventDelivery[] }>(deliveriesPath(target), { status, limit: 50 })]);
  const body = html`<dl class="facts"><dt>Kind</dt><dd>${target.label}</dd><dt>Sends to</dt><dd class="where">${target.where}</dd><dt>Status</dt><dd>${statusCell(target)}</dd><dt>Events</dt><dd>${target.enabledEvents.join(', ')}</dd></dl>
<table class="targets"><thead><tr><th>Success rate</th><th>Last failure</th><th>Retrying</th></tr></thead><tbody><tr>${healthCells(base, health)}</tr></tbody></table>
<nav class="status-filter">Show: <a href="${base}/deliveries/${id}"${status ? '' : html` aria-current="true"`}>all</a>${statuses.map(
    (name) => html` <a href="${base}/deliveries/${id}?status=${name}"${status === name ? html` aria-current="true"` : ''}>${name}</a>`,
  )}</nav>
<div id="target-deliveries">${deliveryTable(base, page.data, 'event')}</div>
<p class="action-result" id="resend-result" role="status"></p>`;
  return { page: { section: 'deliveries', title: target.id, body } };
}
