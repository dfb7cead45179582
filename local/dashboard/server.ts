import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readCapped, refusedCrossSitePost, refusedForeignHost, sendJson } from '../http-io.ts';
import type { LocalClockView } from '../clock.ts';
import { ApiAnswerError, isApiId, platformApi, type PlatformApi } from './api.ts';
import type { DashboardKeyring, KnownPlatform } from './keyring.ts';
import { html, type Html } from './html.ts';
import { htmlHeaders } from '#shared/wire/html.ts';
import type { StreamSessions } from './stream-sessions.ts';
import { basePath, layout, type LayoutContext, type Section } from './views/layout.ts';
import { accountLinkAction, accountsPage } from './views/accounts.ts';
import { eventDeliveriesFragment, eventPage, eventsFeed, eventsPage, resendAction } from './views/events.ts';
import { deliveriesPage, targetPage } from './views/deliveries.ts';
import { meterPage, meteringPage } from './views/metering.ts';
import { addPlatformAction, addPlatformForm, keysPage, revealKeyAction } from './views/keys.ts';
import { clockAction, testClockAction, timePage } from './views/time.ts';
import { customerPage, customersPage } from './views/customers.ts';
import { productPage, productsPage } from './views/products.ts';
import { requestsPage } from './views/requests.ts';
import { changeDestinationAction, createDestinationAction } from './views/destination-actions.ts';

/** What a view of one platform and mode works with. */
export interface ViewContext extends LayoutContext {
  api: PlatformApi;
  /** `/dashboard/<account>/<mode>` */
  base: string;
  query: URLSearchParams;
  /** The `:id` segments of the view's path, in order. */
  ids: string[];
  sessions: StreamSessions;
  /** The stack's base URL (the clock's route). */
  stackUrl: string;
  /** The parsed JSON body of an action. */
  body: Record<string, unknown>;
}

export type ViewAnswer = { page: { section: Section; title: string; body: Html }; status?: number } | { fragment: Html } | { json: unknown; status?: number };

type View = (context: ViewContext) => Promise<ViewAnswer>;

/** Every view and action of a platform and mode, by method and path (`:id` takes an id); the first match wins. */
const views: Array<{ method: 'GET' | 'POST'; path: string; view: View }> = [
  { method: 'GET', path: 'events', view: eventsPage },
  { method: 'GET', path: 'events/feed', view: eventsFeed },
  { method: 'GET', path: 'events/:id', view: eventPage },
  { method: 'GET', path: 'events/:id/deliveries', view: eventDeliveriesFragment },
  { method: 'GET', path: 'deliveries', view: deliveriesPage },
  { method: 'GET', path: 'deliveries/:id', view: targetPage },
  { method: 'GET', path: 'metering', view: meteringPage },
  { method: 'GET', path: 'metering/:id', view: meterPage },
  { method: 'GET', path: 'customers', view: customersPage },
  { method: 'GET', path: 'customers/:id', view: customerPage },
  { method: 'GET', path: 'products', view: productsPage },
  { method: 'GET', path: 'products/:id', view: productPage },
  { method: 'GET', path: 'requests', view: requestsPage },
  { method: 'GET', path: 'accounts', view: accountsPage },
  { method: 'GET', path: 'time', view: timePage },
  { method: 'GET', path: 'keys', view: keysPage },
  { method: 'POST', path: 'actions/resend', view: resendAction },
  { method: 'POST', path: 'actions/account-link', view: accountLinkAction },
  { method: 'POST', path: 'actions/clock', view: clockAction },
  { method: 'POST', path: 'actions/test-clock', view: testClockAction },
  { method: 'POST', path: 'actions/reveal-key', view: revealKeyAction },
  { method: 'POST', path: 'actions/create-destination', view: createDestinationAction },
  { method: 'POST', path: 'actions/change-destination', view: changeDestinationAction },
];

function viewFor(method: string, rest: string[]): { view: View; ids: string[] } | undefined {
  for (const entry of views) {
    const pattern = entry.path.split('/');
    if (entry.method !== method || pattern.length !== rest.length) continue;
    const ids: string[] = [];
    const matches = pattern.every((part, index) => (part === ':id' ? isApiId(rest[index]) && ids.push(rest[index]!) > 0 : part === rest[index]));
    if (matches) return { view: entry.view, ids };
  }
  return undefined;
}

/**
 * Headers of every dashboard answer: scripts and styles from the dashboard's own files only (no inline
 * script can run), requests only to itself, no framing (a resend button cannot be clicked through another
 * page), nothing cached, no Referer.
 */
const { 'Content-Type': _, ...pageHeaders } = htmlHeaders;
const securityHeaders = {
  ...pageHeaders,
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'Cross-Origin-Resource-Policy': 'same-origin',
};

const here = dirname(fileURLToPath(import.meta.url));
/** The dashboard's own files, and the charting library's browser build from node_modules. */
const assets: Record<string, { type: string; path: string }> = {
  'dashboard.css': { type: 'text/css; charset=utf-8', path: join(here, 'assets', 'dashboard.css') },
  'dashboard.js': { type: 'text/javascript; charset=utf-8', path: join(here, 'assets', 'dashboard.js') },
  'chart.umd.min.js': { type: 'text/javascript; charset=utf-8', path: join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js') },
};

export interface DashboardOptions {
  keyring: DashboardKeyring;
  sessions: StreamSessions;
  clock: () => LocalClockView;
  /** The stack's base URL, once it listens: the dashboard calls the API there. */
  stackUrl: () => string;
}

function send(response: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) {
  response.writeHead(status, { ...securityHeaders, 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers });
  response.end(body);
}

const pageType = 'text/html; charset=utf-8';

/**
 * `/dashboard`: the local stack's dashboard. Served by the local gateway to loopback names only; every view
 * reads through the public API with the viewed platform's secret key; actions are JSON posts from the
 * dashboard's own pages (a page of another site can neither send them nor read any answer).
 */
export function dashboardRoute(options: DashboardOptions) {
  const cache = new Map<string, Buffer>();
  const asset = (name: string) => {
    const known = Object.hasOwn(assets, name) ? assets[name] : undefined;
    if (!known) return undefined;
    if (!cache.has(name)) cache.set(name, readFileSync(known.path));
    return { type: known.type, body: cache.get(name)! };
  };

  async function serve(request: IncomingMessage, response: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    // HEAD is answered as GET (Node sends the head only); anything else is not a dashboard method.
    const method = request.method === 'HEAD' ? 'GET' : (request.method ?? 'GET');
    if (method !== 'GET' && method !== 'POST') return notAllowed(response, 'GET, HEAD, POST');
    const parts = path
      .split('/')
      .slice(2)
      .filter((part, index, all) => part !== '' || index < all.length - 1);
    if (parts[0] === 'assets' && parts.length === 2 && method === 'GET') {
      const found = asset(parts[1]!);
      if (found) return send(response, 200, found.type, found.body, { 'Cache-Control': 'no-cache' });
    }
    const platforms = await options.keyring.list();
    if (parts.length === 0 || (parts.length === 1 && parts[0] === '')) {
      const working = (known: KnownPlatform) => known.keys.test !== undefined;
      const start = platforms.find((known) => known.isDefault && working(known)) ?? platforms.find(working) ?? platforms[0];
      if (!start)
        return standalone(
          response,
          200,
          'Add a platform',
          'The dashboard knows no working key of any platform (was the default key revoked?). Add one with one of its secret keys.',
        );
      return send(response, 302, pageType, '', { location: `${basePath(start.account, 'test')}/events` });
    }
    let body: Record<string, unknown> = {};
    if (method === 'POST') {
      if (refusedCrossSitePost(request, response)) return;
      const raw = await readCapped(request, 16 * 1024);
      try {
        const parsed = raw === undefined ? undefined : (JSON.parse(raw.toString('utf8')) as unknown);
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
        body = parsed as Record<string, unknown>;
      } catch {
        return answer(response, { json: { error: { message: 'Post a JSON object of at most 16 KB.' } }, status: 400 });
      }
    }
    if (method === 'POST' && parts.length === 1 && parts[0] === 'platforms') return answer(response, await addPlatformAction(options.keyring, body));

    const [account, mode, ...rest] = parts as [string, string, ...string[]];
    const platform = platforms.find((known) => known.account === account);
    if (platform && mode === undefined && method === 'GET')
      return send(response, 302, pageType, '', { location: `${basePath(platform.account, 'test')}/events` });
    if (!platform) return notFound(response, method, 'This dashboard knows no such platform. Add it with one of its secret keys.');
    if (mode !== 'test' && mode !== 'live') return notFound(response, method, `The mode is test or live: /dashboard/${platform.account}/test/events.`);
    const segments = rest.length === 0 ? ['events'] : rest;
    const found = viewFor(method, segments);
    if (!found) {
      if (viewFor(method === 'GET' ? 'POST' : 'GET', segments)) return notAllowed(response, method === 'GET' ? 'POST' : 'GET, HEAD');
      return notFound(response, method, 'There is no such page.');
    }
    const clock = options.clock();
    const key = platform.keys[mode];
    const context: ViewContext = {
      platform,
      platforms,
      mode,
      clock,
      api: platformApi(options.stackUrl(), key ?? ''),
      base: basePath(platform.account, mode),
      query,
      ids: found.ids,
      sessions: options.sessions,
      stackUrl: options.stackUrl(),
      body,
    };
    // The clock and the key pages need no key of the mode (the reveal answers 404 for a key it does not know).
    if (!key && ![keysPage, timePage, clockAction, revealKeyAction].includes(found.view)) {
      const title = `No ${mode} key for this platform`;
      const rolled = platform.expired[mode];
      const message = html`<p class="notice">${rolled ? html`The ${mode}-mode key the dashboard knew of ${platform.account}, <code>${rolled}</code>, was rolled or revoked and no longer works. ` : ''}The dashboard knows no working ${mode}-mode secret key of ${platform.account}, so it cannot read its ${mode}-mode data. Add one on the <a href="${context.base}/keys#add-platform">API keys</a> page (for example the one <code>npm run admin -- create-keys ${platform.account}${mode === 'live' ? ' --live' : ''}</code> prints).</p>`;
      return method === 'GET'
        ? answer(response, { page: { section: 'keys', title, body: message }, status: 404 }, context)
        : answer(response, { json: { error: { message: title } }, status: 404 });
    }
    try {
      return answer(response, await found.view(context), context);
    } catch (error) {
      if (!(error instanceof ApiAnswerError)) throw error;
      // The API refused (another platform's id answers 404 here as it does to the API's own clients).
      const status = error.status >= 500 ? 502 : error.status;
      if (method !== 'GET' || found.view === eventsFeed || found.view === eventDeliveriesFragment)
        return answer(response, { json: { error: { message: error.message } }, status });
      return answer(
        response,
        {
          page: {
            section: sectionOf(rest[0]),
            title: error.status === 404 ? 'Not found' : 'The API refused',
            body: html`<p class="notice error">${error.message}</p>`,
          },
          status,
        },
        context,
      );
    }
  }

  function answer(response: ServerResponse, result: ViewAnswer, context?: ViewContext): void {
    if ('json' in result) send(response, result.status ?? 200, 'application/json', JSON.stringify(result.json));
    else if ('fragment' in result) send(response, 200, pageType, result.fragment.text);
    else send(response, result.status ?? 200, pageType, layout(context!, result.page.section, result.page.title, result.page.body).text);
  }

  /** A page outside any platform's view (none known, or not this one): what is wrong, and the form that adds a platform. */
  function standalone(response: ServerResponse, status: number, title: string, message: string): void {
    const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} · local dashboard</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/dashboard/assets/dashboard.css"><script src="/dashboard/assets/dashboard.js" defer></script></head>
<body><main id="main"><h1>${title}</h1><p>${message}</p>
${addPlatformForm}
<p><a href="/dashboard">Open the dashboard</a></p></main></body></html>`;
    send(response, status, pageType, page.text);
  }

  function notAllowed(response: ServerResponse, allow: string): void {
    send(response, 405, 'application/json', JSON.stringify({ error: { message: `This address answers ${allow}.` } }), { allow });
  }

  function notFound(response: ServerResponse, method: string, message: string): void {
    if (method !== 'GET') answer(response, { json: { error: { message } }, status: 404 });
    else standalone(response, 404, 'Not found', message);
  }

  return (request: IncomingMessage, response: ServerResponse, path: string): boolean => {
    if (path !== '/dashboard' && !path.startsWith('/dashboard/')) return false;
    // Refusals carry the dashboard's headers too.
    for (const [name, value] of Object.entries(securityHeaders)) response.setHeader(name, value);
    if (refusedForeignHost(request, response)) return true;
    const query = new URLSearchParams((request.url ?? '').split('?')[1] ?? '');
    serve(request, response, path, query).catch((error: unknown) => {
      console.error('The dashboard failed to answer', error);
      if (!response.headersSent) sendJson(response, 500, { error: { message: 'The dashboard failed; see the stack’s output.' } });
      else response.destroy();
    });
    return true;
  };
}

function sectionOf(name: string | undefined): Section {
  return (
    (['events', 'deliveries', 'customers', 'products', 'metering', 'requests', 'accounts', 'time', 'keys'] as const).find((section) => section === name) ??
    'events'
  );
}
