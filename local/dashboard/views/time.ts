import { html, when } from '../html.ts';
import type { ViewAnswer, ViewContext } from '../server.ts';

/** Time: the local clock, and the control that moves it forward (the stack's own `/_local/clock`). */
export async function timePage(context: ViewContext): Promise<ViewAnswer> {
  const { clock } = context;
  const body = html`<dl class="facts"><dt>The stack's clock</dt><dd id="clock-now">${when(clock.iso)}</dd><dt>Ahead of this machine's by</dt><dd id="clock-offset">${clock.offset_seconds} s</dd></dl>
<p class="hint">Moving the clock makes everything time-based happen as if that time had passed: delivery retries come due and are sent, tokens, links and sessions expire, meter error reports are sent. It only moves forward; it answers once what became due has been done (up to a few seconds).</p>
<form class="clock-move" id="clock-form">
  <label>Advance by <input type="text" name="advance" id="clock-advance" value="1h" placeholder="90s, 15m, 24h, 1d12h" required></label>
  <button type="submit">Advance</button>
  <span class="presets">${['1h', '1d', '3d', '1w'].map((step) => html` <button type="button" class="secondary" data-advance="${step}">+${step}</button>`)}</span>
</form>
<p class="action-result" id="clock-result" role="status"></p>`;
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
