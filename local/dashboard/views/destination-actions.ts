import { isApiId } from '../api.ts';
import { html } from '../html.ts';
import type { ViewAnswer, ViewContext } from '../server.ts';

/**
 * What the page says of signing secrets: the reference API shows one only in a create answer (a v1 endpoint's
 * `secret`; a v2 destination's `webhook_endpoint.signing_secret` when the create asks for it with `include`)
 * and has no call that reads or rolls it later, so neither does this dashboard.
 */
export const secretNotice = html`<p class="hint" id="secret-notice">A signing secret is shown once, in the answer that creates the endpoint or destination: the API has no call that reveals it again or rolls it (v1 <code>secret</code> is in the create answer only; v2 <code>webhook_endpoint.signing_secret</code> only with <code>include</code> on create). To change a secret, create a new endpoint or destination and delete the old one.</p>`;

/** The forms that create a v1 webhook endpoint or a v2 webhook destination (cloud destinations need their cloud's ids: create them with the API). */
export const createForms = html`<details class="create" id="create-destination"><summary>New endpoint or destination</summary>
<form class="filters" id="create-endpoint-form" data-kind="webhook_endpoint">
  <strong>v1 webhook endpoint</strong>
  <label>URL <input type="text" name="url" required placeholder="http://localhost:3000/webhooks"></label>
  <label>Events <input type="text" name="enabled_events" value="*" placeholder="* or customer.created, invoice.paid"></label>
  <button type="submit">Create endpoint</button>
</form>
<form class="filters" id="create-destination-form" data-kind="event_destination">
  <strong>v2 event destination (webhook)</strong>
  <label>Name <input type="text" name="name" required placeholder="My receiver"></label>
  <label>URL <input type="text" name="url" required placeholder="http://localhost:3000/events"></label>
  <label>Payload <select name="event_payload"><option value="thin">thin</option><option value="snapshot">snapshot</option></select></label>
  <label>Events <input type="text" name="enabled_events" required placeholder="v1.billing.meter.error_report_triggered"></label>
  <button type="submit">Create destination</button>
</form>
<p class="hint">Amazon EventBridge and Azure Event Grid destinations need their cloud's account ids: create them with the API.</p>
<p class="action-result" id="create-result" role="status"></p>
<div id="created-secret" hidden><p>Signing secret of <code id="created-id"></code>, shown this once: <code class="secret" id="created-secret-value"></code></p></div>
</details>`;

const text = (value: unknown, max: number) => (typeof value === 'string' && value.trim() !== '' && value.length <= max ? value.trim() : undefined);
const eventList = (value: unknown) =>
  (text(value, 4_000) ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .slice(0, 100);

/**
 * Creates a v1 webhook endpoint (`{kind: 'webhook_endpoint', url, enabled_events}`) or a v2 webhook destination
 * (`{kind: 'event_destination', name, url, event_payload, enabled_events}`); answers its id and its signing
 * secret, which the API shows in this answer only. The API checks every field.
 */
export async function createDestinationAction(context: ViewContext): Promise<ViewAnswer> {
  const { kind, event_payload } = context.body;
  const url = text(context.body.url, 2_048);
  const events = eventList(context.body.enabled_events);
  if (!url || events.length === 0) return { json: { error: { message: 'Give the URL and at least one event type.' } }, status: 400 };
  if (kind === 'webhook_endpoint') {
    const endpoint = await context.api.post<{ id: string; secret: string }>('/v1/webhook_endpoints', { url, enabled_events: events });
    return { json: { id: endpoint.id, secret: endpoint.secret } };
  }
  if (kind === 'event_destination') {
    const name = text(context.body.name, 200);
    if (!name || (event_payload !== 'thin' && event_payload !== 'snapshot'))
      return { json: { error: { message: 'Give the destination a name and a payload (thin or snapshot).' } }, status: 400 };
    const destination = await context.api.post<{ id: string; webhook_endpoint: { signing_secret?: string } | null }>('/v2/core/event_destinations', {
      name,
      type: 'webhook_endpoint',
      event_payload,
      enabled_events: events,
      webhook_endpoint: { url },
      include: ['webhook_endpoint.signing_secret'],
    });
    return { json: { id: destination.id, secret: destination.webhook_endpoint?.signing_secret ?? null } };
  }
  return { json: { error: { message: 'Name the kind: webhook_endpoint or event_destination.' } }, status: 400 };
}

/**
 * Enables, disables or deletes a v1 endpoint (`we_…`) or a v2 destination (`{destination, change}` with
 * `change` one of enable, disable, delete), each through its own API call.
 */
export async function changeDestinationAction(context: ViewContext): Promise<ViewAnswer> {
  const { destination, change } = context.body;
  if (!isApiId(destination) || (change !== 'enable' && change !== 'disable' && change !== 'delete'))
    return { json: { error: { message: 'Name the endpoint or destination and the change: enable, disable or delete.' } }, status: 400 };
  const v1 = destination.startsWith('we_');
  const path = v1 ? `/v1/webhook_endpoints/${destination}` : `/v2/core/event_destinations/${destination}`;
  if (change === 'delete') await context.api.delete(path);
  else if (v1) await context.api.post(path, { disabled: change === 'disable' });
  else await context.api.post(`${path}/${change}`, {});
  return { json: { id: destination, change } };
}
