import { badge, html, when, type Html } from '../html.ts';

/** An `event_delivery` of the delivery attempts routes, as the dashboard reads it. */
export interface EventDelivery {
  id: string;
  created: string;
  event: { id: string; type: string | null; payload: 'thin' | 'snapshot' };
  destination: { type: 'event_destination' | 'webhook_endpoint'; id: string };
  reason: 'resend' | 'ping' | 'subscribed';
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  canceled_reason: string | null;
  next_attempt_at: string | null;
  attempts: Array<{
    attempted_at: string;
    outcome: 'succeeded' | 'failed';
    http_status: number | null;
    duration_ms: number | null;
    error: string | null;
    response_body_excerpt: string | null;
  }>;
}

const attemptSummary = (attempt: EventDelivery['attempts'][number]) =>
  html`${attempt.http_status === null ? (attempt.error ?? attempt.outcome) : `HTTP ${attempt.http_status}`}${attempt.duration_ms === null ? '' : ` in ${Math.round(attempt.duration_ms)} ms`}`;

/**
 * Deliveries as table rows: what was sent where, its status, each attempt (status code, latency, the
 * receiver's answer), the next retry, and a button that sends the event to the same place again.
 * `show` picks the column that varies: the destination (an event's page) or the event (a destination's).
 */
export function deliveryTable(base: string, deliveries: EventDelivery[], show: 'destination' | 'event'): Html {
  if (deliveries.length === 0) return html`<p class="empty">No deliveries.</p>`;
  return html`<table class="deliveries">
<thead><tr><th>${show === 'destination' ? 'Destination' : 'Event'}</th><th>Status</th><th>Why</th><th>Attempts</th><th>Next retry</th><th></th></tr></thead>
<tbody>
${deliveries.map((delivery) => {
  const last = delivery.attempts.at(-1);
  return html`<tr data-delivery="${delivery.id}" data-status="${delivery.status}">
<td>${
    show === 'destination'
      ? html`<a href="${base}/deliveries/${delivery.destination.id}">${delivery.destination.id}</a><br><small>${delivery.destination.type.replace('_', ' ')}</small>`
      : html`<a href="${base}/events/${delivery.event.id}">${delivery.event.type ?? delivery.event.id}</a><br><small>${delivery.event.id} · ${delivery.event.payload}</small>`
  }</td>
<td>${badge(delivery.status)}${delivery.canceled_reason ? html`<br><small>${delivery.canceled_reason.replaceAll('_', ' ')}</small>` : ''}</td>
<td>${delivery.reason}<br><small>${when(delivery.created)}</small></td>
<td>${
    delivery.attempts.length === 0
      ? html`<small>none yet</small>`
      : html`<details class="attempts"><summary>${delivery.attempts.length} · last ${last ? attemptSummary(last) : ''}</summary><ol>${delivery.attempts.map(
          (attempt) =>
            html`<li class="${attempt.outcome}"><span class="attempt-when">${when(attempt.attempted_at)}</span> ${badge(attempt.outcome)} <span class="attempt-status">${attemptSummary(attempt)}</span>${
              attempt.error && attempt.http_status !== null && attempt.error !== `HTTP ${attempt.http_status}` ? html` <small>${attempt.error}</small>` : ''
            }${attempt.response_body_excerpt ? html`<pre class="excerpt">${attempt.response_body_excerpt}</pre>` : ''}</li>`,
        )}</ol></details>`
  }</td>
<td>${delivery.next_attempt_at ? when(delivery.next_attempt_at) : '—'}</td>
<td><button type="button" class="resend" data-event="${delivery.event.id}" data-destination-type="${delivery.destination.type}" data-destination="${delivery.destination.id}">Resend</button></td>
</tr>`;
})}
</tbody>
</table>`;
}
