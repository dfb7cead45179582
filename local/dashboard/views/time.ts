import type Stripe from 'stripe';
import { ClockChangeError, parseDuration } from '../../clock.ts';
import { ApiAnswerError, isApiId } from '../api.ts';
import { badge, html, type Html, when } from '../html.ts';
import type { ViewAnswer, ViewContext } from '../server.ts';

type TestClock = Stripe.TestHelpers.TestClock;

/** The test mode's test clocks, newest first, each with its status and the buttons that advance it. */
async function testClocksSection(context: ViewContext): Promise<Html> {
  if (context.mode !== 'test') return html``;
  let clocks: TestClock[];
  try {
    clocks = (await context.api.get<{ data: TestClock[] }>('/v1/test_helpers/test_clocks', { limit: 100 })).data;
  } catch (error) {
    if (!(error instanceof ApiAnswerError)) throw error;
    return html`<h2>Test clocks</h2><p class="notice">The test clocks could not be read: ${error.message}</p>`;
  }
  const rows = clocks.map(
    (clock) =>
      html`<tr data-test-clock="${clock.id}"><td><code>${clock.id}</code>${clock.name ? html`<br><small>${clock.name}</small>` : ''}</td><td>${when(clock.frozen_time)}</td><td>${badge(clock.status)}${
        clock.status_details?.advancing ? html` to ${when(clock.status_details.advancing.target_frozen_time)}` : ''
      }</td><td>${when(clock.deletes_after)}</td><td class="presets">${['1d', '1w', '30d'].map(
        (step) =>
          html` <button type="button" class="secondary" data-test-clock="${clock.id}" data-test-clock-advance="${step}"${clock.status === 'ready' ? '' : ' disabled'}>+${step}</button>`,
      )}</td></tr>`,
  );
  return html`<h2>Test clocks</h2>
<p class="hint">A test clock is the time of the customers created on it (<code>test_clock</code>) and of their subscriptions and invoices. Advancing it runs everything that falls due on it, in time order; it is <em>advancing</em> until that is done.</p>
${
  clocks.length === 0
    ? html`<p class="empty" id="test-clocks">No test clocks in test mode.</p>`
    : html`<table class="test-clocks" id="test-clocks"><thead><tr><th>Test clock</th><th>Frozen time</th><th>Status</th><th>Deleted after</th><th>Advance</th></tr></thead><tbody>${rows}</tbody></table>`
}
<p><button type="button" class="secondary" id="test-clock-create">New test clock at the stack's time</button></p>
<p class="action-result" id="test-clock-result" role="status"></p>`;
}

/** Time: the local clock, and the control that moves it forward (the stack's own `/_local/clock`); the test clocks. */
export async function timePage(context: ViewContext): Promise<ViewAnswer> {
  const { clock } = context;
  const body = html`<dl class="facts"><dt>The stack's clock</dt><dd id="clock-now">${when(clock.iso)}</dd><dt>Ahead of this machine's by</dt><dd id="clock-offset">${clock.offset_seconds} s</dd></dl>
<p class="hint">Moving the clock makes everything time-based happen as if that time had passed: delivery retries come due and are sent, tokens, links and sessions expire, meter error reports are sent. It only moves forward; it answers once what became due has been done (up to a few seconds).</p>
<form class="clock-move" id="clock-form">
  <label>Advance by <input type="text" name="advance" id="clock-advance" value="1h" placeholder="90s, 15m, 24h, 1d12h" required></label>
  <button type="submit">Advance</button>
  <span class="presets">${['1h', '1d', '3d', '1w'].map((step) => html` <button type="button" class="secondary" data-advance="${step}">+${step}</button>`)}</span>
</form>
<p class="action-result" id="clock-result" role="status"></p>
${await testClocksSection(context)}`;
  return { page: { section: 'time', title: 'Time', body } };
}

/** Moves the clock forward through the stack's `/_local/clock` (the same checks and waiting as `npm run admin -- clock`). */
export async function clockAction(context: ViewContext): Promise<ViewAnswer> {
  const { advance } = context.body;
  if (typeof advance !== 'string' || advance.length > 40)
    return { json: { error: { message: 'Name how far to advance, like 90s, 15m, 24h or 1d12h.' } }, status: 400 };
  const response = await fetch(`${context.stackUrl}/_local/clock`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ advance }),
  });
  return { json: await response.json(), status: response.status };
}

/**
 * A test clock action through the public API with the platform's test key: `{clock, advance}` advances the
 * clock by a duration from its frozen time; `{create: true}` makes a clock at the stack's time.
 */
export async function testClockAction(context: ViewContext): Promise<ViewAnswer> {
  if (context.mode !== 'test') return { json: { error: { message: 'Test clocks are only available in test mode.' } }, status: 400 };
  const { clock, advance, create } = context.body;
  if (create === true) {
    const frozen_time = Math.floor(Date.parse(context.clock.iso) / 1000);
    return { json: await context.api.post<TestClock>('/v1/test_helpers/test_clocks', { frozen_time, name: 'Dashboard' }) };
  }
  if (!isApiId(clock)) return { json: { error: { message: 'Name the test clock to advance.' } }, status: 400 };
  let millis: number;
  try {
    millis = parseDuration(advance);
  } catch (error) {
    if (error instanceof ClockChangeError) return { json: { error: { message: error.message } }, status: 400 };
    throw error;
  }
  const current = await context.api.get<TestClock>(`/v1/test_helpers/test_clocks/${clock}`);
  const frozen_time = current.frozen_time + Math.max(1, Math.floor(millis / 1000));
  return { json: await context.api.post<TestClock>(`/v1/test_helpers/test_clocks/${clock}/advance`, { frozen_time }) };
}
