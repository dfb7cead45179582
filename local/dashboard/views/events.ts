import { ApiAnswerError, isApiId } from '../api.ts';
import { breakable, html, jsonView, when, type Html } from '../html.ts';
import type { ViewAnswer, ViewContext } from '../server.ts';
import { deliveryTable, type EventDelivery } from './delivery-table.ts';

interface SnapshotEvent {
  id: string;
  type: string;
  created: number;
  pending_webhooks: number;
  data: { object: { id?: string; object?: string } };
}
interface ThinEvent {
  id: string;
  type: string;
  created: string;
  related_object: { id: string; type: string; url: string } | null;
}

/** How many of the newest events of each payload the stream reads (and filters, where the API cannot). */
const streamSize = 50;

/** The filters of the stream: `type` (exact, or a prefix ending in `*`) and `object` (a type like `customer`, or an id). */
function filtersOf(query: URLSearchParams) {
  const type = (query.get('type') ?? '').trim().slice(0, 200);
  const object = (query.get('object') ?? '').trim().slice(0, 200);
  const exactType = type !== '' && !type.endsWith('*') ? type : undefined;
  // An id ends in letters and digits with a digit among them (`cus_10Vc…`); an object type does not (`webhook_endpoint`).
  const objectId = /^[a-z]+_(?=[A-Za-z]*\d)[A-Za-z0-9]{6,}$/.test(object) ? object : undefined;
  const typeMatches = (eventType: string) => type === '' || (type.endsWith('*') ? eventType.startsWith(type.slice(0, -1)) : eventType === type);
  const objectMatches = (id: string | undefined, objectType: string | undefined) => object === '' || (objectId ? id === objectId : objectType === object);
  return { type, object, exactType, objectId, typeMatches, objectMatches };
}

/** The newest snapshot and thin events that pass the filters, read with the platform's key in the viewed mode. */
async function streamOf(context: ViewContext) {
  const filters = filtersOf(context.query);
  const types = filters.exactType ? [filters.exactType] : undefined;
  const [snapshot, thin] = await Promise.all([
    context.api.get<{ data: SnapshotEvent[] }>('/v1/events', { limit: streamSize, types }),
    context.api.get<{ data: ThinEvent[] }>('/v2/core/events', { limit: streamSize, types, object_id: filters.objectId }),
  ]);
  return {
    filters,
    snapshot: snapshot.data.filter((event) => filters.typeMatches(event.type) && filters.objectMatches(event.data.object.id, event.data.object.object)),
    thin: thin.data.filter((event) => filters.typeMatches(event.type) && filters.objectMatches(event.related_object?.id, event.related_object?.type)),
  };
}

const snapshotRow = (base: string, event: SnapshotEvent): Html =>
  html`<tr data-id="${event.id}"><td><a href="${base}/events/${event.id}">${breakable(event.type)}</a><br><small>${event.id}</small></td><td>${event.data.object.object ?? ''}<br><small>${event.data.object.id ?? ''}</small></td><td>${when(event.created)}</td><td>${event.pending_webhooks}</td></tr>`;

const thinRow = (base: string, event: ThinEvent): Html =>
  html`<tr data-id="${event.id}"><td><a href="${base}/events/${event.id}">${breakable(event.type)}</a><br><small>${event.id}</small></td><td>${breakable(event.related_object?.type ?? '—')}<br><small>${event.related_object?.id ?? ''}</small></td><td>${when(event.created)}</td></tr>`;

/** Events: the newest snapshot (v1) and thin (v2) events side by side, filtered, new ones appearing as they come. */
export async function eventsPage(context: ViewContext): Promise<ViewAnswer> {
  const { base } = context;
  const { filters, snapshot, thin } = await streamOf(context);
  const feed = `${base}/events/feed?${new URLSearchParams({ type: filters.type, object: filters.object })}`;
  const body = html`<form class="filters" method="get" action="${base}/events">
  <label>Type <input type="text" name="type" value="${filters.type}" placeholder="customer.created or customer.*"></label>
  <label>Object <input type="text" name="object" value="${filters.object}" placeholder="customer, billing.meter or an id"></label>
  <button type="submit">Filter</button>${filters.type || filters.object ? html` <a href="${base}/events">Clear</a>` : ''}
  <span class="live" id="live-status" data-feed="${feed}" title="New events are added to this page as they happen">Auto-refresh on</span>
</form>
<p class="hint">Showing the ${streamSize} newest of each kind in ${context.mode} mode that match. New events appear here as they happen.</p>
<div class="columns">
<section><h2>Snapshot events <small>v1, the object as it was</small></h2>
<table class="events" id="snapshot-events"><thead><tr><th>Type</th><th>Object</th><th>Created</th><th>Pending webhooks</th></tr></thead>
<tbody>${snapshot.map((event) => snapshotRow(base, event))}</tbody></table>${snapshot.length === 0 ? html`<p class="empty">No snapshot events yet.</p>` : ''}</section>
<section><h2>Thin events <small>v2, a pointer to the object</small></h2>
<table class="events" id="thin-events"><thead><tr><th>Type</th><th>Related object</th><th>Created</th></tr></thead>
<tbody>${thin.map((event) => thinRow(base, event))}</tbody></table>${thin.length === 0 ? html`<p class="empty">No thin events yet.</p>` : ''}</section>
</div>`;
  return { page: { section: 'events', title: 'Events', body } };
}

/** The stream's rows as the page's script inserts them (newest first; the script adds the ones it lacks). */
export async function eventsFeed(context: ViewContext): Promise<ViewAnswer> {
  const { snapshot, thin } = await streamOf(context);
  return {
    json: {
      snapshot: snapshot.map((event) => ({ id: event.id, html: snapshotRow(context.base, event).text })),
      thin: thin.map((event) => ({ id: event.id, html: thinRow(context.base, event).text })),
    },
  };
}

/** The snapshot or thin event with this id (one of the two answers), or the API's 404. */
async function eventOf(
  context: ViewContext,
  id: string,
): Promise<{ thin: ThinEvent & Record<string, unknown> } | { snapshot: SnapshotEvent & Record<string, unknown> }> {
  const [thin, snapshot] = await Promise.allSettled([
    context.api.get<ThinEvent & Record<string, unknown>>(`/v2/core/events/${id}`),
    context.api.get<SnapshotEvent & Record<string, unknown>>(`/v1/events/${id}`),
  ]);
  if (thin.status === 'fulfilled') return { thin: thin.value };
  if (snapshot.status === 'fulfilled') return { snapshot: snapshot.value };
  const refusals = [thin.reason, snapshot.reason] as unknown[];
  throw refusals.find((reason) => !(reason instanceof ApiAnswerError) || reason.status !== 404) ?? new ApiAnswerError(404, `No such event: '${id}'`);
}

async function deliveriesOf(context: ViewContext, id: string): Promise<Html> {
  const { data } = await context.api.get<{ data: EventDelivery[] }>(`/v2/service/events/${id}/deliveries`);
  return deliveryTable(context.base, data, 'destination');
}

/** One event: what it says, the payload a receiver gets, and every delivery of it (refreshed while the page is open). */
export async function eventPage(context: ViewContext): Promise<ViewAnswer> {
  const id = context.ids[0]!;
  const found = await eventOf(context, id);
  const deliveries = await deliveriesOf(context, id);
  let summary: Html;
  let payloads: Html;
  if ('thin' in found) {
    const event = found.thin;
    const related = event.related_object;
    let current: Html = html`<p class="empty">This event names no object.</p>`;
    if (related?.url.startsWith('/v')) {
      current = await context.api
        .get(related.url)
        .then((object) => jsonView(object))
        .catch((error: Error) => html`<p class="empty">${error.message}</p>`);
    }
    summary = html`<dl class="facts"><dt>Type</dt><dd>${event.type}</dd><dt>Payload</dt><dd>thin (v2)</dd><dt>Created</dt><dd>${when(event.created)}</dd><dt>Related object</dt><dd>${related ? `${related.type} ${related.id}` : '—'}</dd></dl>`;
    payloads = html`<h2>The event</h2>${jsonView(event)}<h2>The related object now</h2>${current}`;
  } else {
    const event = found.snapshot;
    summary = html`<dl class="facts"><dt>Type</dt><dd>${event.type}</dd><dt>Payload</dt><dd>snapshot (v1)</dd><dt>Created</dt><dd>${when(event.created)}</dd><dt>Object</dt><dd>${event.data.object.object ?? ''} ${event.data.object.id ?? ''}</dd><dt>Pending webhooks</dt><dd>${event.pending_webhooks}</dd></dl>`;
    payloads = html`<h2>The event <small>as GET /v1/events/:id answers it (endpoints pinned to another version get it rendered at theirs)</small></h2>${jsonView(event)}`;
  }
  const body = html`${summary}
<h2>Deliveries</h2>
<div id="event-deliveries" data-refresh="${context.base}/events/${id}/deliveries">${deliveries}</div>
<p class="action-result" id="resend-result" role="status"></p>
${payloads}`;
  return { page: { section: 'events', title: 'thin' in found ? found.thin.type : found.snapshot.type, body } };
}

/** The event page's deliveries, for its script to refresh them. */
export async function eventDeliveriesFragment(context: ViewContext): Promise<ViewAnswer> {
  return { fragment: await deliveriesOf(context, context.ids[0]!) };
}

/** Sends one event again to one destination or v1 endpoint (the resend route of the delivery attempts). */
export async function resendAction(context: ViewContext): Promise<ViewAnswer> {
  const { event, destination_type: type, destination } = context.body;
  if (!isApiId(event) || !isApiId(destination) || (type !== 'event_destination' && type !== 'webhook_endpoint')) {
    return { json: { error: { message: 'Name the event, the destination and its type (event_destination or webhook_endpoint).' } }, status: 400 };
  }
  const delivery = await context.api.post<EventDelivery>(`/v2/service/events/${event}/resend`, { [type]: destination });
  return { json: delivery };
}
