import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '#local/service-process.ts';
import { eventually } from '../support/wait.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'service-billing-crash-'));
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

describe('kill -9 of the local stack while test clocks advance, and a restart on the same data', () => {
  it('ends every advance, with exactly one invoice per subscription period: none lost, none doubled', async () => {
    const first = await startServiceProcess([], env, startTimeout);
    const start = Math.floor(Date.UTC(new Date().getUTCFullYear() + 1, 0, 10, 9) / 1000);
    const product = await call(first, 'POST', '/v1/products', 'name=Crash plan');
    const price = await call(first, 'POST', '/v1/prices', `product=${product.id}&unit_amount=1000&currency=usd&recurring[interval]=week`);
    const token = () =>
      call(first, 'POST', '/v1/tokens', `card[number]=4242424242424242&card[exp_month]=12&card[exp_year]=${new Date().getUTCFullYear() + 4}&card[cvc]=123`);

    // Several clocks, each with customers and weekly subscriptions, all advanced two weeks at once (the reference's limit: two intervals).
    // The clocks are set up side by side: one request at a time left a core idle while the other worked.
    const subscriptions: string[] = [];
    const clocks = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const clock = await call(first, 'POST', '/v1/test_helpers/test_clocks', `frozen_time=${start}`);
        for (let n = 0; n < 3; n++) {
          const customer = await call(first, 'POST', '/v1/customers', `test_clock=${clock.id}&source=${(await token()).id}`);
          subscriptions.push((await call(first, 'POST', '/v1/subscriptions', `customer=${customer.id}&items[0][price]=${price.id}`)).id);
        }
        return clock.id as string;
      }),
    );
    const target = start + 14 * day;
    await Promise.all(clocks.map((clock) => call(first, 'POST', `/v1/test_helpers/test_clocks/${clock}/advance`, `frozen_time=${target}`)));
    // Killed as soon as the renewals have begun (or at once on a fast machine: every point must be safe).
    await eventually(async () => ((await call(first, 'GET', '/v1/invoices?limit=100')).data.length > subscriptions.length ? true : undefined), 60_000).catch(
      () => undefined,
    );
    await first.crash();

    const second = await startServiceProcess([], env, startTimeout);
    try {
      const ready = (clock: string) =>
        eventually(async () => ((await call(second, 'GET', `/v1/test_helpers/test_clocks/${clock}`)).status === 'ready' ? true : undefined), 120_000).catch(
          async (error: Error) => {
            // Name what the clock is stuck at: its state and its subscriptions' invoices.
            const state = await call(second, 'GET', `/v1/test_helpers/test_clocks/${clock}`);
            const failures = second
              .output()
              .split('\n')
              .filter((line) => line.includes('"level":"ERROR"'))
              .slice(-3);
            throw new Error(`${error.message}: ${JSON.stringify(state)}\n${failures.join('\n')}`);
          },
        );
      for (const clock of clocks) await ready(clock);
      // An hour more: the second renewal's invoice is finalized and charged.
      for (const clock of clocks) await call(second, 'POST', `/v1/test_helpers/test_clocks/${clock}/advance`, `frozen_time=${target + 3600}`);
      for (const clock of clocks) await ready(clock);
      for (const subscription of subscriptions) {
        const invoices = (await call(second, 'GET', `/v1/invoices?subscription=${subscription}&limit=100`)).data as Array<{
          period_start: number;
          billing_reason: string;
          status: string;
        }>;
        // Creation, then the renewals at one and two weeks: one invoice each, every one paid.
        expect(invoices.map((invoice) => invoice.billing_reason).sort()).toEqual(['subscription_create', 'subscription_cycle', 'subscription_cycle']);
        expect(new Set(invoices.map((invoice) => invoice.period_start)).size).toBe(3);
        expect(invoices.every((invoice) => invoice.status === 'paid')).toBe(true);
      }
    } finally {
      await second.stop();
    }
  }, 300_000);
});
