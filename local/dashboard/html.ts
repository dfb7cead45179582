import { escapeHtml } from '#shared/wire/html.ts';

/** HTML that is already safe: built by `html`, never from a string that came from outside. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/** A template whose every value is escaped unless it is `Html` (arrays are joined; null, undefined and false vanish). */
export const html = (strings: TemplateStringsArray, ...values: unknown[]): Html =>
  new Html(strings.reduce((out, chunk, index) => out + chunk + (index < values.length ? render(values[index]) : ''), ''));

/** JSON for a `<script type="application/json">` block (read by the page's script, never run). */
export const jsonBlock = (id: string, value: unknown): Html =>
  new Html(`<script type="application/json" id="${escapeHtml(id)}">${JSON.stringify(value).replace(/</g, '\\u003c')}</script>`);

/** Seconds or milliseconds since the epoch, or an ISO string, as `2026-11-25 17:04:05` in a `<time>` (UTC). */
export function when(value: number | string | null | undefined): Html {
  if (value === null || value === undefined) return html`—`;
  const date = typeof value === 'number' ? new Date(value < 1e11 ? value * 1000 : value) : new Date(value);
  if (Number.isNaN(date.getTime())) return html`${String(value)}`;
  const iso = date.toISOString();
  return html`<time datetime="${iso}" title="${iso}">${iso.slice(0, 10)} <b>${iso.slice(11, 19)}</b></time>`;
}

/** A value as indented JSON, escaped, in a `<pre>`. */
export const jsonView = (value: unknown): Html => html`<pre class="json">${JSON.stringify(value, null, 2)}</pre>`;

/** A status word as a coloured badge. */
export function badge(text: string | null | undefined): Html {
  const tone =
    {
      succeeded: 'good',
      enabled: 'good',
      active: 'good',
      delivered: 'good',
      failed: 'bad',
      disabled: 'bad',
      inactive: 'muted',
      canceled: 'muted',
      pending: 'warn',
      restricted: 'warn',
      unsupported: 'muted',
      applied: 'good',
      'currently due': 'warn',
      'past due': 'bad',
    }[text ?? ''] ?? 'muted';
  return html`<span class="badge ${tone}">${text ?? '—'}</span>`;
}

/** A dotted or slashed name (`customer.subscription.created`, `/v1/customers/cus_…`) that may wrap after its dots, slashes and underscores, never inside a word. */
export function breakable(text: string): Html {
  return new Html(escapeHtml(text).replace(/([./_])/g, '$1<wbr>'));
}
