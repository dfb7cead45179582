import { badge, html, when, type Html } from '../html.ts';
import type { ViewAnswer, ViewContext } from '../server.ts';
import { money } from './customers.ts';

interface Product {
  id: string;
  name: string;
  active: boolean;
  description: string | null;
  default_price: string | null;
  created: number;
}
interface Price {
  id: string;
  product: string;
  active: boolean;
  nickname: string | null;
  lookup_key: string | null;
  currency: string;
  unit_amount: number | null;
  billing_scheme: string;
  tiers_mode: string | null;
  type: string;
  recurring: { interval: string; interval_count: number; usage_type: string; meter?: string | null } | null;
  created: number;
}
interface List<T> {
  data: T[];
  has_more: boolean;
}

/** What a price charges, in words: `$12.00 / month`, `tiered (graduated) / month, metered by mtr_…`. */
function charge(base: string, price: Price): Html {
  const amount = price.billing_scheme === 'tiered' ? html`tiered (${price.tiers_mode})` : money(price.unit_amount, price.currency);
  if (!price.recurring) return html`${amount} <small>one time</small>`;
  const { interval, interval_count: count, usage_type: usage, meter } = price.recurring;
  return html`${amount} / ${count > 1 ? `${count} ` : ''}${interval}${
    usage === 'metered' ? html`<br><small>metered${meter ? html` by <a href="${base}/metering/${meter}">${meter}</a>` : ''}</small>` : ''
  }`;
}

function priceTable(base: string, prices: Price[], defaultPrice: string | null): Html {
  if (prices.length === 0) return html`<p class="empty">No prices.</p>`;
  return html`<table class="prices"><thead><tr><th>Price</th><th>Charges</th><th>Currency</th><th>Status</th><th>Created</th></tr></thead><tbody>${prices.map(
    (price) =>
      html`<tr data-price="${price.id}"><td>${price.nickname ?? price.lookup_key ?? price.id}${price.id === defaultPrice ? html` ${badge('default')}` : ''}<br><small>${price.id}</small></td><td>${charge(
        base,
        price,
      )}</td><td>${price.currency.toUpperCase()}</td><td>${badge(price.active ? 'active' : 'inactive')}</td><td>${when(price.created)}</td></tr>`,
  )}</tbody></table>`;
}

/** Products, the newest first, each with its prices (the newest 100 prices of the mode, by product). */
export async function productsPage(context: ViewContext): Promise<ViewAnswer> {
  const after = context.query.get('after');
  const [products, prices] = await Promise.all([
    context.api.get<List<Product>>('/v1/products', { limit: 50, starting_after: after && /^prod_\w{1,100}$/.test(after) ? after : undefined }),
    context.api.get<List<Price>>('/v1/prices', { limit: 100 }),
  ]);
  const byProduct = new Map<string, Price[]>();
  for (const price of prices.data) byProduct.set(price.product, [...(byProduct.get(price.product) ?? []), price]);
  const body =
    products.data.length === 0
      ? html`<p class="empty">No products yet in this mode.</p>`
      : html`<table id="products"><thead><tr><th>Product</th><th>Prices</th><th>Status</th><th>Created</th></tr></thead><tbody>${products.data.map(
          (product) => {
            const own = byProduct.get(product.id) ?? [];
            return html`<tr data-product="${product.id}"><td><a href="${context.base}/products/${product.id}">${product.name}</a><br><small>${product.id}</small></td><td>${
              own.length === 0
                ? html`<small>none among the newest 100 prices</small>`
                : html`<ul class="plain">${own.slice(0, 5).map((price) => html`<li>${charge(context.base, price)}</li>`)}${own.length > 5 ? html`<li><small>and ${own.length - 5} more</small></li>` : ''}</ul>`
            }</td><td>${badge(product.active ? 'active' : 'inactive')}</td><td>${when(product.created)}</td></tr>`;
          },
        )}</tbody></table>${products.has_more ? html`<p><a href="${context.base}/products?after=${products.data.at(-1)!.id}">Older products →</a></p>` : ''}`;
  return { page: { section: 'products', title: 'Products and prices', body } };
}

/** One product: what it is, and all its prices (active and archived). */
export async function productPage(context: ViewContext): Promise<ViewAnswer> {
  const id = context.ids[0]!;
  const [product, prices] = await Promise.all([
    context.api.get<Product>(`/v1/products/${id}`),
    context.api.get<List<Price>>('/v1/prices', { product: id, limit: 100 }),
  ]);
  const body = html`<dl class="facts"><dt>Id</dt><dd>${product.id}</dd><dt>Description</dt><dd>${product.description ?? '—'}</dd><dt>Status</dt><dd>${badge(
    product.active ? 'active' : 'inactive',
  )}</dd><dt>Created</dt><dd>${when(product.created)}</dd></dl>
<h2>Prices</h2>${priceTable(context.base, prices.data, product.default_price)}${prices.has_more ? html`<p class="hint">Showing the newest 100 prices.</p>` : ''}`;
  return { page: { section: 'products', title: product.name, body } };
}
