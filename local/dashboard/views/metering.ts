import { badge, html, jsonBlock, when, type Html } from '../html.ts';
import type { ViewAnswer, ViewContext } from '../server.ts';

interface Meter {
  id: string;
  display_name: string;
  event_name: string;
  status: string;
  default_aggregation: { formula: string };
  customer_mapping: { event_payload_key: string };
  value_settings: { event_payload_key: string };
}
interface ErrorReport {
  id: string;
  type: string;
  created: string;
  related_object: { id: string } | null;
  data: {
    developer_message_summary: string;
    reason: {
      error_count: number;
      error_types: Array<{ code: string; error_count: number; sample_errors: Array<{ error_message: string; request: { identifier: string } }> }>;
    };
    validation_start: string;
    validation_end: string;
  };
}

const errorReportTypes = ['v1.billing.meter.error_report_triggered', 'v1.billing.meter.no_meter_found'];

function errorReports(base: string, reports: ErrorReport[]): Html {
  if (reports.length === 0) return html`<p class="empty">No error reports. Invalid meter events are reported here once their validation window closes.</p>`;
  return html`<ul class="error-reports" id="error-reports">${reports.map(
    (report) => html`<li><p><strong>${report.data.reason.error_count} error${report.data.reason.error_count === 1 ? '' : 's'}</strong> ${
      report.related_object ? html`for <a href="${base}/metering/${report.related_object.id}">${report.related_object.id}</a>` : 'for events naming no meter'
    } between ${when(report.data.validation_start)} and ${when(report.data.validation_end)} <small>(<a href="${base}/events/${report.id}">${report.id}</a>)</small></p>
<table class="samples"><thead><tr><th>Code</th><th>Count</th><th>Sample errors</th></tr></thead><tbody>${report.data.reason.error_types.map(
      (type) =>
        html`<tr><td><code>${type.code}</code></td><td>${type.error_count}</td><td><ul>${type.sample_errors.map(
          (sample) => html`<li>${sample.error_message} <small>identifier <code>${sample.request.identifier}</code></small></li>`,
        )}</ul></td></tr>`,
    )}</tbody></table></li>`,
  )}</ul>`;
}

/** Stream sessions of the viewed platform's key, with what the local gateway measured of their traffic. */
function streamSessionTable(context: ViewContext): Html {
  const key = context.platform.keys[context.mode];
  const sessions = key ? context.sessions.of([key]) : [];
  if (sessions.length === 0) return html`<p class="empty">No meter event stream sessions since the stack started.</p>`;
  const rate = (value: number | null) => (value === null ? '—' : value >= 10 ? value.toFixed(0) : value.toFixed(1));
  return html`<table class="sessions" id="stream-sessions"><thead><tr><th>Session</th><th>Expires</th><th>Requests</th><th>Events accepted</th><th>Average / s</th><th>Last minute / s</th><th>Peak / s</th></tr></thead><tbody>${sessions.map(
    (session) =>
      html`<tr data-session="${session.id}"><td>${session.id}<br><small>created ${when(session.created)}</small></td><td>${when(session.expiresAt)}</td><td>${session.requests}${
        session.refusedRequests > 0 ? html`<br><small>${session.refusedRequests} refused</small>` : ''
      }</td><td class="events-accepted">${session.events}</td><td>${rate(session.averagePerSecond)}</td><td>${rate(session.lastMinutePerSecond)}</td><td>${session.peakPerSecond}</td></tr>`,
  )}</tbody></table>`;
}

/** Metering: the meters, recent error reports with their sample errors, and stream sessions' throughput. */
export async function meteringPage(context: ViewContext): Promise<ViewAnswer> {
  const { api, base } = context;
  const [meters, reports] = await Promise.all([
    api.get<{ data: Meter[] }>('/v1/billing/meters', { limit: 100 }),
    api.get<{ data: ErrorReport[] }>('/v2/core/events', { limit: 10, types: errorReportTypes }),
  ]);
  const body = html`<h2>Meters</h2>
${
  meters.data.length === 0
    ? html`<p class="empty">No meters in ${context.mode} mode yet.</p>`
    : html`<table class="meters" id="meters"><thead><tr><th>Meter</th><th>Event name</th><th>Aggregation</th><th>Status</th></tr></thead><tbody>${meters.data.map(
        (meter) =>
          html`<tr data-meter="${meter.id}"><td><a href="${base}/metering/${meter.id}">${meter.display_name}</a><br><small>${meter.id}</small></td><td><code>${meter.event_name}</code></td><td>${meter.default_aggregation.formula}</td><td>${badge(meter.status)}</td></tr>`,
      )}</tbody></table>`
}
<h2>Error reports</h2>
${errorReports(base, reports.data)}
<h2>Stream sessions</h2>
<p class="hint">Measured by the local gateway for the sessions this platform's ${context.mode} key created since the stack started.</p>
${streamSessionTable(context)}`;
  return { page: { section: 'metering', title: 'Metering', body } };
}

const hourMillis = 3_600_000;
const dayMillis = 24 * hourMillis;
/** What the chart covers: the last 24 hours by the hour, or the last 30 days by the day (UTC). */
const ranges = { hour: { size: hourMillis, count: 24 }, day: { size: dayMillis, count: 30 } } as const;
/** The most windows a chart of a given period shows (the event summaries' page is 100). */
const maxWindows = 100;

/** How many of the newest customers the meter page looks at for the one with the most recent usage. */
const usageCandidates = 25;

/**
 * The customer (among the newest `usageCandidates`) whose usage of the meter is the most recent in the last 30
 * days, by day; the newest customer when none has any. One event summaries read per candidate, four at a time.
 */
async function latestUser(context: ViewContext, meter: string, customers: string[]): Promise<string | undefined> {
  const end = Math.ceil((Date.parse(context.clock.iso) + 1) / dayMillis) * dayMillis;
  const start = end - ranges.day.size * ranges.day.count;
  let best: { customer: string; at: number } | undefined;
  const candidates = customers.slice(0, usageCandidates);
  for (let index = 0; index < candidates.length; index += 4) {
    const turn = candidates.slice(index, index + 4);
    const latest = await Promise.all(
      turn.map(async (customer) => {
        const { data } = await context.api.get<{ data: Array<{ start_time: number; aggregated_value: number }> }>(
          `/v1/billing/meters/${meter}/event_summaries`,
          {
            customer,
            start_time: start / 1000,
            end_time: end / 1000,
            value_grouping_window: 'day',
            limit: 100,
          },
        );
        return Math.max(-1, ...data.filter((summary) => summary.aggregated_value !== 0).map((summary) => summary.start_time));
      }),
    );
    for (const [place, at] of latest.entries()) if (at >= 0 && (!best || at > best.at)) best = { customer: turn[place]!, at };
  }
  return best?.customer ?? customers[0];
}

/** One meter: a customer's usage as a chart (from the meter's event summaries), and the meter's error reports. */
export async function meterPage(context: ViewContext): Promise<ViewAnswer> {
  const { api, base, query } = context;
  const id = context.ids[0]!;
  const window = query.get('window') === 'day' ? 'day' : 'hour';
  const [meter, customers, reports] = await Promise.all([
    api.get<Meter>(`/v1/billing/meters/${id}`),
    api.get<{ data: Array<{ id: string; name: string | null; email: string | null }> }>('/v1/customers', { limit: 100 }),
    api.get<{ data: ErrorReport[] }>('/v2/core/events', { limit: 10, types: [errorReportTypes[0]!], object_id: id }),
  ]);
  const asked = query.get('customer') ?? '';
  const customer =
    customers.data.find((known) => known.id === asked)?.id ??
    (/^cus_[A-Za-z0-9]{1,120}$/.test(asked)
      ? asked
      : await latestUser(
          context,
          id,
          customers.data.map((known) => known.id),
        ));
  // A customer asked for beyond the 100 newest listed keeps its place in the picker (one that is not the
  // platform's is the API's 404).
  const unlisted = customer !== undefined && !customers.data.some((known) => known.id === customer);
  const choices = unlisted ? [await api.get<(typeof customers.data)[number]>(`/v1/customers/${customer}`), ...customers.data] : customers.data;

  const { size } = ranges[window];
  // `since` and `until` (seconds, from an invoice's usage line) chart that line's period instead of the last 24 hours or 30 days.
  const seconds = (name: string) => {
    const value = Number(query.get(name));
    return Number.isSafeInteger(value) && value > 0 ? value * 1000 : undefined;
  };
  const until = seconds('until');
  const end = Math.ceil((until ?? Date.parse(context.clock.iso) + 1) / size) * size;
  const since = seconds('since');
  const count = since !== undefined && since < end ? Math.min(Math.ceil((end - since) / size), maxWindows) : ranges[window].count;
  const start = end - size * count;
  const points = Array.from({ length: count }, (_, index) => ({ start: start + index * size, value: 0 }));
  if (customer) {
    const summaries = await api.get<{ data: Array<{ start_time: number; aggregated_value: number }> }>(`/v1/billing/meters/${id}/event_summaries`, {
      customer,
      start_time: start / 1000,
      end_time: end / 1000,
      value_grouping_window: window,
      limit: 100,
    });
    for (const summary of summaries.data) {
      const point = points[Math.floor((summary.start_time * 1000 - start) / size)];
      if (point) point.value = summary.aggregated_value;
    }
  }
  const label = (at: number) => (window === 'hour' ? new Date(at).toISOString().slice(11, 16) : new Date(at).toISOString().slice(5, 10));
  const chart = { meter: meter.display_name, customer, window, labels: points.map((point) => label(point.start)), values: points.map((point) => point.value) };
  const body = html`<dl class="facts"><dt>Event name</dt><dd><code>${meter.event_name}</code></dd><dt>Aggregation</dt><dd>${meter.default_aggregation.formula}</dd><dt>Customer key</dt><dd><code>${meter.customer_mapping.event_payload_key}</code></dd><dt>Status</dt><dd>${badge(meter.status)}</dd></dl>
<form class="filters" method="get" action="${base}/metering/${id}">
  <label>Customer <select name="customer">${choices.map(
    (known) => html`<option value="${known.id}"${known.id === customer ? html` selected` : ''}>${known.name ?? known.email ?? known.id} (${known.id})</option>`,
  )}</select></label>
  <label>Over <select name="window"><option value="hour"${window === 'hour' ? html` selected` : ''}>the last 24 hours, by hour</option><option value="day"${window === 'day' ? html` selected` : ''}>the last 30 days, by day</option></select></label>
  <button type="submit">Show</button>
</form>
${
  customer
    ? html`<figure class="chart"><canvas id="usage-chart" role="img" aria-label="Usage of ${meter.display_name} by ${customer}, by ${window}"></canvas>
<figcaption>${meter.default_aggregation.formula} of <code>${meter.event_name}</code> for ${customer}, per ${window} (UTC), from the meter's event summaries.</figcaption></figure>
${jsonBlock('usage-data', chart)}
<details class="points"><summary>Data points</summary><table id="usage-points"><thead><tr><th>${window === 'hour' ? 'Hour' : 'Day'} starting</th><th>Usage</th></tr></thead><tbody>${points
        .filter((point) => point.value !== 0)
        .map((point) => html`<tr><td>${when(point.start)}</td><td>${point.value}</td></tr>`)}</tbody></table></details>`
    : html`<p class="empty">No customers in ${context.mode} mode yet: usage is shown per customer.</p>`
}
<h2>Error reports</h2>
${errorReports(base, reports.data)}`;
  return { page: { section: 'metering', title: meter.display_name, body } };
}
