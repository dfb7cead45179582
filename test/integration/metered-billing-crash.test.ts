import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '#local/service-process.ts';
import { eventually } from '../support/wait.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'service-metered-crash-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Sweepers every half second: an advance a crash cut short is found again quickly. */
const env = { SERVICE_DATA_DIR: dataDir, SWEEP_GRACE_SECONDS: '2', LOCAL_JOB_INTERVAL_MS: '2000' };
/**
 * Two of these files run at once (vitest.config.ts, `ownStacks`): a whole stack (DynamoDB Local, the queues)
 * starting beside another may take longer than the default 30 s.
 */
const startTimeout = 120_000;

async function call(service: ServiceProcess, method: string, path: string, form?: string): Promise<any> {
  const response = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${service.secretKey}`, ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }) },
    body: form,
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

const day = 86_400;
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('kill -9 of the local stack while usage is invoiced, and a restart on the same data', () => {
  it('bills every customer exactly the usage it reported: the invoiced quantity equals the events sent, none lost, none doubled', async () => {
    const first = await startServiceProcess([], env, startTimeout);
    // Near now: meter event timestamps are checked against the stack's clock and must fall in the first period.
    const start = nowSeconds() - 120;
    await call(first, 'POST', '/v1/billing/meters', 'display_name=Calls&event_name=calls&default_aggregation[formula]=sum');
    const meter = (await call(first, 'GET', '/v1/billing/meters')).data[0].id;
    const product = await call(first, 'POST', '/v1/products', 'name=Usage plan');
    const price = await call(
      first,
      'POST',
      '/v1/prices',
      `product=${product.id}&unit_amount=50&currency=usd&recurring[interval]=week&recurring[usage_type]=metered&recurring[meter]=${meter}`,
    );
    const token = () =>
      call(first, 'POST', '/v1/tokens', `card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=${new Date().getUTCFullYear() + 4}&card[cvc]=123`);

    // Three clocks of three customers each, every customer reporting its own number of events (one unit each).
    // The clocks are set up side by side: one request at a time left a core idle while the other worked.
    const sent = new Map<string, { customer: string; events: number }>();
    const clocks = await Promise.all(
      Array.from({ length: 3 }, async (_, c) => {
        const clock = await call(first, 'POST', '/v1/test_helpers/test_clocks', `frozen_time=${start}`);
        for (let n = 0; n < 3; n++) {
          const customer = await call(first, 'POST', '/v1/customers', `test_clock=${clock.id}&source=${(await token()).id}`);
          const subscription = await call(first, 'POST', '/v1/subscriptions', `customer=${customer.id}&items[0][price]=${price.id}`);
          const events = 1 + c * 3 + n;
          for (let e = 0; e < events; e++)
            await call(
              first,
              'POST',
              '/v1/billing/meter_events',
              `event_name=calls&payload[service_customer_id]=${customer.id}&payload[value]=1&timestamp=${nowSeconds() - 5}`,
            );
          sent.set(subscription.id, { customer: customer.id, events });
        }
        return clock.id as string;
      }),
    );
    // Every event counted before the period ends (the usage an invoice reads).
    const minute = (seconds: number) => Math.floor(seconds / 60) * 60;
    for (const { customer, events } of sent.values()) {
      await eventually(async () => {
        const summaries = await call(
          first,
          'GET',
          `/v1/billing/meters/${meter}/event_summaries?customer=${customer}&start_time=${minute(start)}&end_time=${minute(nowSeconds()) + 60}`,
        );
        return summaries.data[0]?.aggregated_value === events ? true : undefined;
      }, 30_000);
    }

    // Past the week's end and the draft's hour: each renewal bills the week's usage and finalizes it.
    const target = start + 7 * day + 2 * 3600;
    await Promise.all(clocks.map((clock) => call(first, 'POST', `/v1/test_helpers/test_clocks/${clock}/advance`, `frozen_time=${target}`)));
    // Killed as soon as the renewals have begun (or at once on a fast machine: every point must be safe).
    await eventually(async () => ((await call(first, 'GET', '/v1/invoices?limit=100')).data.length > sent.size ? true : undefined), 60_000).catch(
      () => undefined,
    );
    await first.crash();

    const second = await startServiceProcess([], env, startTimeout);
    try {
      for (const clock of clocks)
        await eventually(async () => ((await call(second, 'GET', `/v1/test_helpers/test_clocks/${clock}`)).status === 'ready' ? true : undefined), 120_000);
      for (const [subscription, { events }] of sent) {
        const invoices = (await call(second, 'GET', `/v1/invoices?subscription=${subscription}&limit=100`)).data as Array<{
          billing_reason: string;
          status: string;
          amount_paid: number;
          lines: { data: Array<{ quantity: number; amount: number }> };
        }>;
        const cycles = invoices.filter((invoice) => invoice.billing_reason === 'subscription_cycle');
        expect(cycles).toHaveLength(1);
        const invoiced = cycles.flatMap((invoice) => invoice.lines.data).reduce((sum, line) => sum + line.quantity, 0);
        expect({ subscription, invoiced }).toEqual({ subscription, invoiced: events });
        expect(cycles[0]).toMatchObject({ status: 'paid', amount_paid: events * 50 });
      }
    } finally {
      await second.stop();
    }
  }, 600_000);
});
