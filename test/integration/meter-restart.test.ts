import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '#local/service-process.ts';
import { eventually } from '../support/wait.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'service-meter-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const env = { SERVICE_DATA_DIR: dataDir, SWEEP_GRACE_SECONDS: '2', LOCAL_JOB_INTERVAL_MS: '2000' };
/**
 * Two of these files run at once (vitest.config.ts, `ownStacks`): a whole stack (DynamoDB Local, the queues)
 * starting beside another may take longer than the default 30 s.
 */
const startTimeout = 120_000;
const client = (key: string, service: ServiceProcess) =>
  new Stripe(key, { host: '127.0.0.1', port: Number(new URL(service.baseUrl).port), protocol: 'http', maxNetworkRetries: 0 });

/** What one load loop learned: usage the service acknowledged, and usage whose fate it never told. */
interface Tally {
  accepted: number;
  unknown: number;
}

async function post(service: ServiceProcess, key: string, path: string, body: unknown): Promise<number | undefined> {
  try {
    const response = await fetch(`${service.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await response.text();
    return response.status;
  } catch {
    return undefined;
  }
}

describe('a crash and restart of the local stack in the middle of a load', () => {
  it('loses no accepted meter event, from the per-event endpoint or the stream', async () => {
    const first = await startServiceProcess([], env, startTimeout);
    const sdk = client(first.secretKey, first);
    await sdk.billing.meters.create({ display_name: 'restart', event_name: 'restart_usage', default_aggregation: { formula: 'sum' } });
    const customers = await Promise.all(Array.from({ length: 5 }, (_, i) => sdk.customers.create({ name: `restart ${i}` })));
    const session = await sdk.v2.billing.meterEventSession.create();

    // Four clients send single events (one customer each, so no 409s); one streams batches of 20.
    let loading = true;
    const tallies = customers.map((): Tally => ({ accepted: 0, unknown: 0 }));
    const singles = customers.slice(0, 4).map(async (customer, index) => {
      for (let i = 0; loading; i++) {
        const status = await post(first, first.secretKey, '/v2/billing/meter_events', {
          event_name: 'restart_usage',
          payload: { service_customer_id: customer.id, value: '3' },
          identifier: `single-${index}-${i}`,
        });
        if (status === 200) tallies[index]!.accepted += 3;
        else if (status === undefined || status >= 500) tallies[index]!.unknown += 3;
      }
    });
    const streamer = (async () => {
      const tally = tallies[4]!;
      for (let i = 0; loading; i++) {
        const events = Array.from({ length: 20 }, (_, j) => ({
          event_name: 'restart_usage',
          payload: { service_customer_id: customers[4]!.id, value: '1' },
          identifier: `stream-${i}-${j}`,
        }));
        const status = await post(first, session.authentication_token, '/v2/billing/meter_event_stream', { events });
        if (status === 202) tally.accepted += 20;
        else if (status === undefined || status >= 500) tally.unknown += 20;
      }
    })();

    // Killed outright: queued messages (the SQS emulator keeps them in memory) and batches in flight are gone.
    // Under load for 2 s, and until every client has had something accepted (a busy machine is slow to start).
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await eventually(async () => (tallies.every((tally) => tally.accepted > 0) ? true : undefined), 60_000);
    await first.crash();
    loading = false;
    await Promise.all([...singles, streamer]);
    expect(tallies.every((tally) => tally.accepted > 0)).toBe(true);

    const second = await startServiceProcess([], env, startTimeout);
    try {
      const meters = await client(second.secretKey, second).billing.meters.list();
      const meterId = meters.data.find((meter) => meter.event_name === 'restart_usage')!.id;
      const now = Math.floor(Date.now() / 60_000) * 60;
      const usageOf = async (customer: string) => {
        const page = await client(second.secretKey, second).billing.meters.listEventSummaries(meterId, {
          customer,
          start_time: now - 3600,
          end_time: now + 120,
        });
        return page.data[0]?.aggregated_value ?? 0;
      };
      for (const [index, customer] of customers.entries()) {
        const { accepted, unknown } = tallies[index]!;
        // Every acknowledged event counts; one cut off by the stop may count too, if it was stored.
        const counted = await eventually(async () => {
          const value = await usageOf(customer.id);
          return value >= accepted ? value : undefined;
        }, 30_000);
        expect(counted).toBeLessThanOrEqual(accepted + unknown);
      }
    } finally {
      await second.stop();
    }
  }, 120_000);
});
