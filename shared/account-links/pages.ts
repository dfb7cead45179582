import { systemClock } from '#shared/core/clock.ts';
import { escapeHtml, htmlDocument, messagePage, type HtmlRequest, type HtmlResult } from '#shared/wire/html.ts';
import { hostedLinkPath, type AccountLink } from './account-link.ts';
import { renderFields } from './form.ts';
import type { HostedOutcome, HostedSession } from './hosted-flow.ts';

/** The hosted session's cookie: only sent back to this link's own path, never readable by scripts. */
export const sessionCookieName = 'account_link_session';

function sessionCookie(session: HostedSession, linkSecret: string, request: HtmlRequest, now: number): string {
  const maxAge = Math.max(0, Math.floor((session.expiresAt - now) / 1000));
  return `${sessionCookieName}=${session.secret}; Path=${hostedLinkPath(linkSecret)}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${request.secure ? '; Secure' : ''}`;
}

const headingOf = (link: AccountLink): string => (link.useCase.type === 'account_onboarding' ? 'Set up your account' : 'Update your account details');

function errorSummary(issues: Extract<HostedOutcome, { kind: 'form' }>['issues']): string {
  if (issues.length === 0) return '';
  const items = issues
    .map((issue) => (issue.input ? `<li><a href="#${escapeHtml(issue.input)}">${escapeHtml(issue.message)}</a></li>` : `<li>${escapeHtml(issue.message)}</li>`))
    .join('');
  return `<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1"><h2 id="error-summary-title">There is a problem</h2><ul>${items}</ul></div>`;
}

function formPage(outcome: Extract<HostedOutcome, { kind: 'form' }>): string {
  const heading = headingOf(outcome.link);
  const errors = new Map<string, string>();
  for (const issue of outcome.issues) if (issue.input && !errors.has(issue.input)) errors.set(issue.input, issue.message);
  const notice = outcome.saved ? '<div class="notice" role="status"><p>Thank you, those details are saved. A few more are needed.</p></div>' : '';
  const main =
    `<h1>${escapeHtml(heading)}</h1>\n${errorSummary(outcome.issues)}${notice}` +
    `<p>All fields are required unless marked optional.</p>\n` +
    `<form method="post" novalidate>\n${renderFields(outcome.fields, { account: outcome.account, values: outcome.values, errors })}\n` +
    `<button type="submit">Continue</button>\n</form>`;
  return htmlDocument(`${outcome.issues.length > 0 ? 'Error: ' : ''}${heading}`, main);
}

function donePage(link: AccountLink): string {
  const returnUrl = link.useCase.return_url;
  const next = returnUrl ? `<p><a class="button" href="${escapeHtml(returnUrl)}">Continue</a></p>` : '<p>You can close this page.</p>';
  return htmlDocument('Your details are complete', `<h1>Your details are complete</h1>\n<p>Nothing more is needed for now.</p>\n${next}`);
}

/** The HTTP answer to a visit: a page, or a redirect (302 after a GET, 303 after a form post). */
export function accountLinkResponse(outcome: HostedOutcome, request: HtmlRequest, now = systemClock()): HtmlResult {
  const redirect = request.method === 'POST' ? 303 : 302;
  switch (outcome.kind) {
    case 'unknown':
      return { status: 404, html: messagePage('Link not found', 'This link is not valid. Ask the business that sent it to you for a new one.') };
    case 'refresh':
      return { status: redirect, location: outcome.url };
    case 'unavailable':
      return { status: outcome.status, html: messagePage('This link cannot be used', outcome.message) };
    case 'form': {
      const secret = request.pathParameters.secret ?? '';
      return { status: outcome.status, html: formPage(outcome), cookies: outcome.session ? [sessionCookie(outcome.session, secret, request, now)] : undefined };
    }
    case 'done':
      if (request.method === 'POST' && outcome.link.useCase.return_url) return { status: 303, location: outcome.link.useCase.return_url };
      return { status: 200, html: donePage(outcome.link) };
  }
}
