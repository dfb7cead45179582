import { ApiAnswerError } from '../api.ts';
import { badge, html, when, type Html } from '../html.ts';
import type { ViewAnswer, ViewContext } from '../server.ts';

interface Customer {
  id: string;
  name: string | null;
  email: string | null;
  created: number;
  balance: number;
  currency?: string | null;
  invoice_prefix: string | null;
  default_source: string | null;
  test_clock?: string | null;
  description: string | null;
}
interface Price {
  id: string;
  unit_amount: number | null;
  currency: string;
  billing_scheme?: string;
  tiers_mode?: string | null;
  recurring: { interval: string; interval_count: number; usage_type?: string; meter?: string | null } | null;
}
interface SubscriptionItem {
  id: string;
  /** Absent on a metered item: its quantity is its meter's usage. */
  quantity?: number;
  current_period_start: number;
  current_period_end: number;
  price: Price;
}
interface Subscription {
  id: string;
  status: string;
  created: number;
  cancel_at_period_end: boolean;
  cancel_at?: number | null;
  trial_end?: number | null;
  items: { data: SubscriptionItem[] };
}
interface InvoiceLine {
  id: string;
  description: string | null;
  amount: number;
  quantity: number | null;
  period: { start: number; end: number };
  pricing?: { price_details: { price: string } | null } | null;
}
interface Invoice {
  id: string;
  number: string | null;
  status: string | null;
  created: number;
  currency: string;
  total: number;
  amount_due: number;
  amount_remaining: number;
  due_date: number | null;
  billing_reason: string | null;
  period_start?: number;
  period_end?: number;
  lines?: { data: InvoiceLine[] };
}
interface Source {
  id: string;
  object: string;
  brand?: string;
  last4?: string;
  exp_month?: number;
  exp_year?: number;
  bank_name?: string | null;
  status?: string;
}
interface List<T> {
  data: T[];
  has_more: boolean;
}

/** An amount in minor units as the currency writes it (`Intl` knows zero- and three-decimal currencies). */
export function money(amount: number | null | undefined, currency: string | null | undefined): Html {
  if (amount === null || amount === undefined) return html`—`;
  if (!currency) return html`${amount}`;
  try {
    const format = new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return html`<span class="money">${format.format(amount / 10 ** digits)}</span>`;
  } catch {
    return html`${amount} ${currency}`;
  }
}

/** The API's answer, or the message of its refusal (a view shows what it could not read instead of failing whole). */
async function readOr<T>(read: Promise<T>): Promise<T | { refused: string }> {
  try {
    return await read;
  } catch (error) {
    if (error instanceof ApiAnswerError) return { refused: error.message };
    throw error;
  }
}
const refused = (value: object): value is { refused: string } => 'refused' in value;

/** Customers: the newest first, with their balance and test clock; each opens its billing page. */
export async function customersPage(context: ViewContext): Promise<ViewAnswer> {
  const after = context.query.get('after');
  const page = await context.api.get<List<Customer>>('/v1/customers', {
    limit: 50,
    starting_after: after && /^cus_\w{1,100}$/.test(after) ? after : undefined,
  });
  const rows = page.data.map(
    (customer) =>
      html`<tr><td><a href="${context.base}/customers/${customer.id}">${customer.name ?? customer.email ?? customer.id}</a><br><small>${customer.id}</small></td><td>${customer.email ?? '—'}</td><td>${money(customer.balance, customer.currency)}</td><td>${customer.test_clock ?? '—'}</td><td>${when(customer.created)}</td></tr>`,
  );
  const body =
    page.data.length === 0
      ? html`<p class="empty">No customers yet in this mode.</p>`
      : html`<table id="customers"><thead><tr><th>Customer</th><th>Email</th><th>Balance</th><th>Test clock</th><th>Created</th></tr></thead><tbody>${rows}</tbody></table>${
          page.has_more ? html`<p><a href="${context.base}/customers?after=${page.data.at(-1)!.id}">Older customers →</a></p>` : ''
        }`;
  return { page: { section: 'customers', title: 'Customers', body } };
}

function sourceTable(sources: Source[], defaultSource: string | null): Html {
  if (sources.length === 0) return html`<p class="empty" id="sources">No payment sources.</p>`;
  return html`<table id="sources"><thead><tr><th>Source</th><th>Kind</th><th>Details</th><th>Status</th></tr></thead><tbody>${sources.map(
    (source) =>
      html`<tr data-source="${source.id}"><td>${source.id}${source.id === defaultSource ? html` ${badge('default')}` : ''}</td><td>${source.object.replaceAll('_', ' ')}</td><td>${
        source.object === 'card'
          ? html`${source.brand ?? 'card'} ending ${source.last4 ?? '—'}${source.exp_month ? html`<br><small>expires ${String(source.exp_month).padStart(2, '0')}/${source.exp_year}</small>` : ''}`
          : html`${source.bank_name ?? ''} ${source.last4 ? `ending ${source.last4}` : ''}`
      }</td><td>${source.status ? badge(source.status) : '—'}</td></tr>`,
  )}</tbody></table>`;
}

function subscriptionTable(subscriptions: Subscription[]): Html {
  if (subscriptions.length === 0) return html`<p class="empty">No subscriptions.</p>`;
  return html`<table id="subscriptions"><thead><tr><th>Subscription</th><th>Status</th><th>Items</th><th>Renews</th></tr></thead><tbody>${subscriptions.map(
    (subscription) =>
      html`<tr data-subscription="${subscription.id}"><td>${subscription.id}<br><small>created ${when(subscription.created)}</small></td><td>${badge(subscription.status)}${
        subscription.cancel_at_period_end ? html`<br><small>cancels at period end</small>` : ''
      }${subscription.trial_end ? html`<br><small>trial ends ${when(subscription.trial_end)}</small>` : ''}</td><td><ul>${subscription.items.data.map(
        (item) =>
          html`<li>${metered(item.price) ? 'usage' : item.quantity} × ${
            item.price.billing_scheme === 'tiered' ? `tiered (${item.price.tiers_mode})` : money(item.price.unit_amount, item.price.currency)
          }${
            item.price.recurring
              ? html` / ${item.price.recurring.interval_count > 1 ? `${item.price.recurring.interval_count} ` : ''}${item.price.recurring.interval}`
              : ''
          } <small>${item.price.id}</small></li>`,
      )}</ul></td><td>${subscription.status === 'canceled' ? '—' : when(Math.min(...subscription.items.data.map((item) => item.current_period_end)))}</td></tr>`,
  )}</tbody></table>`;
}

const metered = (price: Price): boolean => price.recurring?.usage_type === 'metered' && typeof price.recurring.meter === 'string';
const minute = 60;

/** Where a meter's chart shows a customer's usage by day from `since` to `until` (seconds). */
const chartLink = (base: string, meter: string, customer: string, since: number, until: number) =>
  `${base}/metering/${meter}?customer=${customer}&window=day&since=${since}&until=${until}`;

/** Usage lines of an invoice (lines of metered prices), each linked to its meter's chart up to the line's period end. */
function usageLines(base: string, customer: string, invoice: Invoice, meterOf: ReadonlyMap<string, string>): Html {
  const lines = (invoice.lines?.data ?? []).filter((line) => line.pricing?.price_details && meterOf.has(line.pricing.price_details.price));
  if (lines.length === 0) return html``;
  return html`<ul class="usage-lines">${lines.map((line) => {
    const meter = meterOf.get(line.pricing!.price_details!.price)!;
    return html`<li data-line="${line.id}">${line.quantity ?? 0} used ${when(line.period.start)} – ${when(line.period.end)}: ${money(line.amount, invoice.currency)} <a href="${chartLink(base, meter, customer, line.period.start, line.period.end)}">${meter} chart</a></li>`;
  })}</ul>`;
}

/** The running usage of each metered item of a live subscription this period, next to what the upcoming invoice charges for it. */
async function usageThisPeriod(context: ViewContext, customer: string, subscriptions: Subscription[], preview: Invoice | { refused: string }): Promise<Html> {
  const items = subscriptions
    .filter((subscription) => ['active', 'trialing', 'past_due'].includes(subscription.status))
    .flatMap((subscription) => subscription.items.data.filter((item) => metered(item.price)));
  if (items.length === 0) return html`<p class="empty" id="usage-this-period">No metered prices on this customer's subscriptions.</p>`;
  const now = Math.floor(Date.parse(context.clock.iso) / 1000);
  const rows = await Promise.all(
    items.map(async (item) => {
      const meter = item.price.recurring!.meter!;
      const start = Math.floor(item.current_period_start / minute) * minute;
      const end = Math.max(start + minute, Math.ceil(Math.min(now, item.current_period_end) / minute) * minute);
      const summary = await readOr(
        context.api.get<List<{ aggregated_value: number }>>(`/v1/billing/meters/${meter}/event_summaries`, {
          customer,
          start_time: start,
          end_time: end,
          limit: 1,
        }),
      );
      const usage = refused(summary) ? summary.refused : String(summary.data[0]?.aggregated_value ?? 0);
      const line = refused(preview) ? undefined : preview.lines?.data.find((candidate) => candidate.pricing?.price_details?.price === item.price.id);
      return html`<tr data-item="${item.id}"><td><a href="${chartLink(context.base, meter, customer, start, end)}">${meter}</a><br><small>${item.price.id}</small></td><td class="usage">${usage}</td><td>${when(
        item.current_period_start,
      )} – ${when(item.current_period_end)}</td><td class="cost">${line ? money(line.amount, refused(preview) ? null : preview.currency) : '—'}</td></tr>`;
    }),
  );
  return html`<table id="usage-this-period"><thead><tr><th>Meter</th><th>Usage so far</th><th>Period</th><th>On the upcoming invoice</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** The meter of each metered price the invoices' lines name (one price read per distinct price). */
async function metersOfLines(context: ViewContext, invoices: Invoice[]): Promise<Map<string, string>> {
  const prices = new Set(
    invoices.flatMap((invoice) => (invoice.lines?.data ?? []).flatMap((line) => (line.pricing?.price_details ? [line.pricing.price_details.price] : []))),
  );
  const meters = new Map<string, string>();
  await Promise.all(
    [...prices].slice(0, 20).map(async (id) => {
      const price = await readOr(context.api.get<Price>(`/v1/prices/${id}`));
      if (!refused(price) && metered(price)) meters.set(id, price.recurring!.meter!);
    }),
  );
  return meters;
}

function invoiceTable(invoices: Invoice[], usage: (invoice: Invoice) => Html = () => html``): Html {
  if (invoices.length === 0) return html`<p class="empty">No invoices.</p>`;
  return html`<table id="invoices"><thead><tr><th>Invoice</th><th>Status</th><th>Total</th><th>Due</th><th>Created</th></tr></thead><tbody>${invoices.map(
    (invoice) =>
      html`<tr data-invoice="${invoice.id}"><td>${invoice.number ?? invoice.id}<br><small>${invoice.id}${invoice.billing_reason ? ` · ${invoice.billing_reason}` : ''}</small></td><td>${badge(
        invoice.status,
      )}</td><td>${money(invoice.total, invoice.currency)}${
        invoice.amount_remaining > 0 && invoice.status === 'open' ? html`<br><small>${money(invoice.amount_remaining, invoice.currency)} remaining</small>` : ''
      }${usage(invoice)}</td><td>${when(invoice.due_date)}</td><td>${when(invoice.created)}</td></tr>`,
  )}</tbody></table>`;
}

function upcoming(preview: Invoice | { refused: string }): Html {
  if (refused(preview)) return html`<p class="empty" id="upcoming-invoice">${preview.refused}</p>`;
  return html`<div id="upcoming-invoice"><p>${money(preview.total, preview.currency)} ${
    preview.period_end ? html`for the period ending ${when(preview.period_end)}` : ''
  }</p>${
    preview.lines && preview.lines.data.length > 0
      ? html`<table><thead><tr><th>Line</th><th>Quantity</th><th>Period</th><th>Amount</th></tr></thead><tbody>${preview.lines.data.map(
          (line) =>
            html`<tr><td>${line.description ?? line.id}</td><td>${line.quantity ?? '—'}</td><td>${when(line.period.start)} – ${when(line.period.end)}</td><td>${money(line.amount, preview.currency)}</td></tr>`,
        )}</tbody></table>`
      : ''
  }</div>`;
}

/** One customer's billing: details, subscriptions, invoices, and the invoice its next renewal will make. */
export async function customerPage(context: ViewContext): Promise<ViewAnswer> {
  const id = context.ids[0]!;
  const customer = await readOr(context.api.get<Customer>(`/v1/customers/${id}`));
  if (refused(customer)) return { page: { section: 'customers', title: 'Customer', body: html`<p class="empty">${customer.refused}</p>` }, status: 404 };
  const [subscriptions, invoices, sources] = await Promise.all([
    context.api.get<List<Subscription>>('/v1/subscriptions', { customer: id, status: 'all', limit: 20 }),
    readOr(context.api.get<List<Invoice>>('/v1/invoices', { customer: id, limit: 20 })),
    readOr(context.api.get<List<Source>>(`/v1/customers/${id}/sources`, { limit: 20 })),
  ]);
  // The next invoice: a renewing subscription's (its next period with the pending items), else the pending items alone.
  const renewing = subscriptions.data.find(
    (subscription) => ['active', 'trialing', 'past_due'].includes(subscription.status) && !subscription.cancel_at_period_end,
  );
  const preview = await readOr(context.api.post<Invoice>('/v1/invoices/create_preview', { customer: id, ...(renewing ? { subscription: renewing.id } : {}) }));
  const [usage, meterOf] = await Promise.all([
    usageThisPeriod(context, id, subscriptions.data, preview),
    refused(invoices) ? new Map<string, string>() : metersOfLines(context, invoices.data),
  ]);
  const body = html`<dl class="facts"><dt>Id</dt><dd>${customer.id}</dd><dt>Email</dt><dd>${customer.email ?? '—'}</dd><dt>Balance</dt><dd>${money(
    customer.balance,
    customer.currency,
  )}</dd><dt>Default source</dt><dd>${customer.default_source ?? 'none'}</dd><dt>Test clock</dt><dd>${
    customer.test_clock ? html`<a href="${context.base}/time#${customer.test_clock}">${customer.test_clock}</a>` : 'none (the stack’s clock)'
  }</dd><dt>Created</dt><dd>${when(customer.created)}</dd></dl>
<h2>Payment sources</h2>${refused(sources) ? html`<p class="empty">${sources.refused}</p>` : sourceTable(sources.data, customer.default_source)}
<h2>Subscriptions</h2>${subscriptionTable(subscriptions.data)}
<h2>Usage this period</h2>${usage}
<h2>Upcoming invoice</h2>${upcoming(preview)}
<h2>Invoices</h2>${refused(invoices) ? html`<p class="empty">${invoices.refused}</p>` : invoiceTable(invoices.data, (invoice) => usageLines(context.base, id, invoice, meterOf))}`;
  return { page: { section: 'customers', title: customer.name ?? customer.email ?? customer.id, body } };
}
