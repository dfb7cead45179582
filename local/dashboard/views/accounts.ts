import { isApiId } from '../api.ts';
import { badge, html, type Html } from '../html.ts';
import type { ViewAnswer, ViewContext } from '../server.ts';

interface Account {
  id: string;
  display_name: string | null;
  contact_email: string | null;
  applied_configurations: string[];
  closed?: boolean;
  configuration: Record<string, { applied: boolean; capabilities?: Record<string, unknown> } | null> | null;
  requirements: { entries: Array<{ description: string; minimum_deadline: { status: string } }> } | null;
}
interface Person {
  id: string;
  given_name: string | null;
  surname: string | null;
  email: string | null;
  relationship?: Record<string, unknown> | null;
}

const include = ['configuration.customer', 'configuration.merchant', 'configuration.recipient', 'requirements'];
/** Accounts shown, newest first (each is read with its configurations and its persons). */
const shownAccounts = 20;

/** Every capability of a configuration with its status, however deep the API nests it. */
function capabilitiesOf(tree: Record<string, unknown> | undefined, prefix = ''): Array<{ name: string; status: string }> {
  return Object.entries(tree ?? {}).flatMap(([name, value]) => {
    if (!value || typeof value !== 'object') return [];
    const leaf = value as { status?: unknown };
    return typeof leaf.status === 'string'
      ? [{ name: `${prefix}${name}`, status: leaf.status }]
      : capabilitiesOf(value as Record<string, unknown>, `${prefix}${name}.`);
  });
}

function accountCard(base: string, account: Account, persons: Person[]): Html {
  const configurations = Object.entries(account.configuration ?? {}).filter(([, config]) => config !== null) as Array<
    [string, NonNullable<Account['configuration']>[string]]
  >;
  const due = (account.requirements?.entries ?? []).filter((entry) => entry.minimum_deadline.status !== 'eventually_due');
  return html`<article class="account" data-account="${account.id}">
<header><h2>${account.display_name ?? account.id}</h2><small>${account.id}${account.contact_email ? ` · ${account.contact_email}` : ''}</small>${account.closed ? html` ${badge('closed')}` : ''}
<button type="button" class="account-link" data-account="${account.id}">Onboarding link</button></header>
<div class="account-grid">
<section><h3>Configurations</h3>${
    configurations.length === 0
      ? html`<p class="empty">None.</p>`
      : configurations.map(
          ([name, config]) =>
            html`<p><strong>${name}</strong> ${config!.applied ? badge('applied') : badge('not applied')}</p><ul class="capabilities">${capabilitiesOf(
              config!.capabilities,
            ).map((capability) => html`<li><code>${capability.name}</code> ${badge(capability.status)}</li>`)}</ul>`,
        )
  }</section>
<section><h3>Currently due</h3>${
    due.length === 0
      ? html`<p class="empty">Nothing.</p>`
      : html`<ul class="due">${due.map((entry) => html`<li>${entry.description} ${badge(entry.minimum_deadline.status.replace('_', ' '))}</li>`)}</ul>`
  }</section>
<section><h3>Persons</h3>${
    persons.length === 0
      ? html`<p class="empty">None.</p>`
      : html`<ul class="persons">${persons.map(
          (person) =>
            html`<li>${[person.given_name, person.surname].filter(Boolean).join(' ') || person.id} <small>${person.id}${person.email ? ` · ${person.email}` : ''}${
              person.relationship
                ? ` · ${Object.entries(person.relationship)
                    .filter(([, value]) => value === true)
                    .map(([role]) => role)
                    .join(', ')}`
                : ''
            }</small></li>`,
        )}</ul>`
  }</section>
</div>
<p class="action-result" role="status" data-result-for="${account.id}"></p>
<p class="hint"><a href="${base}/events?object=${account.id}">Events of this account</a></p>
</article>`;
}

/** Accounts: the v2 accounts with their configurations, capability status, what is due and persons. */
export async function accountsPage(context: ViewContext): Promise<ViewAnswer> {
  const { api, base } = context;
  const list = await api.get<{ data: Array<{ id: string }> }>('/v2/core/accounts', { limit: shownAccounts });
  const cards = await Promise.all(
    list.data.map(async ({ id }) => {
      const [account, persons] = await Promise.all([
        api.get<Account>(`/v2/core/accounts/${id}`, { include }),
        api.get<{ data: Person[] }>(`/v2/core/accounts/${id}/persons`, { limit: 20 }),
      ]);
      return accountCard(base, account, persons.data);
    }),
  );
  const body = html`<p class="hint">The newest ${shownAccounts} accounts in ${context.mode} mode. "Onboarding link" creates an account link and opens its hosted onboarding page in a new tab.</p>
${cards.length === 0 ? html`<p class="empty">No accounts in ${context.mode} mode yet.</p>` : cards}`;
  return { page: { section: 'accounts', title: 'Accounts', body } };
}

/** Creates an onboarding account link for an account's configurations, back to this page when done. */
export async function accountLinkAction(context: ViewContext): Promise<ViewAnswer> {
  const id = context.body.account;
  if (!isApiId(id)) return { json: { error: { message: 'Name the account.' } }, status: 400 };
  const account = await context.api.get<Account>(`/v2/core/accounts/${id}`, { include });
  const present = Object.entries(account.configuration ?? {})
    .filter(([, config]) => config !== null)
    .map(([name]) => name);
  const configurations = account.applied_configurations.length > 0 ? account.applied_configurations : present.length > 0 ? present : ['customer'];
  const back = `${context.stackUrl}${context.base}/accounts`;
  const link = await context.api.post<{ url: string; expires_at: string }>('/v2/core/account_links', {
    account: id,
    use_case: { type: 'account_onboarding', account_onboarding: { configurations, refresh_url: back, return_url: back } },
  });
  return { json: { url: link.url, expires_at: link.expires_at } };
}
