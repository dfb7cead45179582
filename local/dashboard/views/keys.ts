import { keyHint, parseApiKey } from '#shared/platform/api-keys.ts';
import { html } from '../html.ts';
import type { DashboardKeyring, Mode } from '../keyring.ts';
import type { ViewAnswer, ViewContext } from '../server.ts';

/** The form that adds a platform by one of its secret keys (the API keys page, and pages outside any platform). */
export const addPlatformForm = html`<form class="add-platform" id="add-platform-form">
  <label>Secret key <input type="password" name="secret_key" id="add-platform-key" autocomplete="off" placeholder="sk_test_…" required></label>
  <button type="submit">Add</button>
</form>
<p class="action-result" id="add-platform-result" role="status"></p>`;

/** API keys: the platform's secret keys the dashboard knows, masked until revealed, and adding another platform. */
export async function keysPage(context: ViewContext): Promise<ViewAnswer> {
  const { platform } = context;
  const modes: Mode[] = ['test', 'live'];
  const body = html`<table class="keys"><thead><tr><th>Mode</th><th>Secret key</th><th></th></tr></thead><tbody>
${modes.map((mode) => {
  const key = platform.keys[mode];
  return html`<tr><td>${mode}</td><td><code class="secret" id="key-${mode}">${key ? keyHint(key) : 'not known to the dashboard'}</code>${
    !key && platform.expired[mode] ? html`<br><small>${platform.expired[mode]} was rolled or revoked: add the new key below</small>` : ''
  }</td><td>${key ? html`<button type="button" class="secondary reveal" data-mode="${mode}" aria-controls="key-${mode}">Reveal</button>` : ''}</td></tr>`;
})}
</tbody></table>
<p class="hint">Keys never appear in an address: pages name the platform by its account id, and the dashboard keeps the keys on the server.</p>
<h2 id="add-platform">Add a platform</h2>
<p class="hint">Platforms made with <code>npm run admin -- create-platform</code> for this stack appear in the switcher by themselves. Add any other (or another mode's key) with one of its secret keys:</p>
${addPlatformForm}`;
  return { page: { section: 'keys', title: 'API keys', body } };
}

/** The whole secret key of one mode, for the reveal button (a JSON post: another site's page cannot read it). */
export async function revealKeyAction(context: ViewContext): Promise<ViewAnswer> {
  const mode = context.body.mode;
  const key = mode === 'test' || mode === 'live' ? context.platform.keys[mode] : undefined;
  if (!key) return { json: { error: { message: 'The dashboard knows no such key.' } }, status: 404 };
  return { json: { secret_key: key } };
}

/** Adds a platform by a secret key; answers where its dashboard is. */
export async function addPlatformAction(keyring: DashboardKeyring, body: Record<string, unknown>): Promise<ViewAnswer> {
  const key = typeof body.secret_key === 'string' && body.secret_key.length <= 200 ? body.secret_key.trim() : undefined;
  const platform = key ? await keyring.add(key) : undefined;
  if (!platform) return { json: { error: { message: 'That is not a working secret key of this stack.' } }, status: 400 };
  const mode: Mode = parseApiKey(key!)?.livemode ? 'live' : 'test';
  return { json: { account: platform.account, url: `/dashboard/${platform.account}/${mode}/events` } };
}
