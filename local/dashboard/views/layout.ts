import type { KnownPlatform, Mode } from '../keyring.ts';
import { html, type Html } from '../html.ts';

export type Section = 'events' | 'deliveries' | 'customers' | 'products' | 'metering' | 'requests' | 'accounts' | 'time' | 'keys';

const sections: Array<[Section, string]> = [
  ['events', 'Events'],
  ['deliveries', 'Destinations'],
  ['customers', 'Customers'],
  ['products', 'Products'],
  ['metering', 'Metering'],
  ['requests', 'Requests'],
  ['accounts', 'Accounts'],
  ['time', 'Time'],
  ['keys', 'API keys'],
];

export interface LayoutContext {
  platform: KnownPlatform;
  platforms: KnownPlatform[];
  mode: Mode;
  /** The local clock as shown in the header. */
  clock: { iso: string; offset_seconds: number };
}

/** `/dashboard/<account>/<mode>`: where every view of one platform and mode lives. */
export const basePath = (account: string, mode: Mode) => `/dashboard/${encodeURIComponent(account)}/${mode}`;

/** A whole dashboard page: the platform switcher, the mode, the sections, the clock, then the view. */
export function layout(context: LayoutContext, section: Section, title: string, body: Html): Html {
  const { platform, platforms, mode, clock } = context;
  const base = basePath(platform.account, mode);
  const other: Mode = mode === 'test' ? 'live' : 'test';
  const name = (known: KnownPlatform) => html`${known.account}${known.isDefault ? ' (default)' : ''}`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${title} · ${platform.account} · local dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script src="/dashboard/assets/dashboard.js" defer></script>
</head>
<body data-base="${base}" data-section="${section}">
<header class="top">
  <a class="brand" href="${base}/events">Service API <span>local dashboard</span></a>
  <details class="switcher" id="platform-switcher">
    <summary>Platform: <strong>${name(platform)}</strong></summary>
    <ul>
      ${platforms.map((known) => html`<li><a href="${basePath(known.account, mode)}/${section}"${known.account === platform.account ? html` aria-current="true"` : ''}>${name(known)}</a></li>`)}
      <li><a href="${base}/keys#add-platform">Add a platform…</a></li>
    </ul>
  </details>
  <a class="mode ${mode}" id="mode-switch" href="${basePath(platform.account, other)}/${section}" title="Switch to ${other} mode">${mode === 'test' ? 'Test mode' : 'Live mode'}</a>
  <span class="clock" id="clock" title="The local stack's clock">${clock.iso.slice(0, 19).replace('T', ' ')} UTC${clock.offset_seconds > 0 ? html` <em>(+${clock.offset_seconds} s)</em>` : ''}</span>
</header>
<nav class="sections">
  ${sections.map(([key, label]) => html`<a href="${base}/${key}"${key === section ? html` aria-current="page"` : ''}>${label}</a>`)}
</nav>
<main id="main">
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;
}
