import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServiceProcess, type ServiceProcess } from '#local/service-process.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { eventually } from '../support/wait.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'service-crash-'));
let receiver: WebhookReceiver | undefined;
afterAll(async () => {
  await receiver?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Sweepers every half second, deliveries overdue after 2 s: what a crash leaves behind is found quickly. */
const env = {
  SERVICE_DATA_DIR: dataDir,
  SWEEP_GRACE_SECONDS: '2',
  LOCAL_JOB_INTERVAL_MS: '2000',
  DELIVERY_RETRY_SCHEDULE_TEST: '1,1,1',
  DELIVERY_TIMEOUT_MS: '2000',
};
/**
 * Two of these files run at once (vitest.config.ts, `ownStacks`): a whole stack (DynamoDB Local, the queues)
 * starting beside another may take longer than the default 30 s.
 */
const startTimeout = 120_000;

/** A request and what the service said: its status and body, or undefined when it never answered (the crash). */
async function send(service: ServiceProcess, method: string, path: string, body?: { json?: unknown; form?: string }) {
  const headers: Record<string, string> = { authorization: `Bearer ${service.secretKey}` };
  if (body?.json !== undefined) headers['content-type'] = 'application/json';
  if (body?.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  try {
    const response = await fetch(`${service.baseUrl}${path}`, { method, headers, body: body?.json !== undefined ? JSON.stringify(body.json) : body?.form });
    const text = await response.text();
    return { status: response.status, body: JSON.parse(text || 'null') };
  } catch {
    return undefined;
  }
}

describe('kill -9 of the whole local stack under load, and a restart on the same data', () => {
  it('counts every acknowledged meter event once (and every cut-off one once its client sends it again), keeps every acknowledged create, and delivers every acknowledged change’s event', async () => {
    receiver = await startWebhookReceiver();
    const first = await startServiceProcess([], env, startTimeout);
    const setup = async (path: string, form: string) => (await send(first, 'POST', path, { form }))!.body;
    await setup('/v1/webhook_endpoints', `url=${encodeURIComponent(receiver.url)}&enabled_events[0]=customer.created`);
    const meter = await setup('/v1/billing/meters', 'display_name=Crash&event_name=crash_calls&default_aggregation[formula]=sum');
    const metered = await Promise.all(Array.from({ length: 3 }, (_, i) => setup('/v1/customers', `name=metered-${i}`)));

    // Load: three clients send meter events (one customer each, so no 409s), three create customers.
    let loading = true;
    const usage = metered.map(() => ({ acknowledged: [] as string[], unknown: [] as string[] }));
    const created: string[] = [];
    let unknownCreates = 0;
    const meterClients = metered.map(async (customer, index) => {
      for (let i = 0; loading; i++) {
        const identifier = `crash-${index}-${i}`;
        const answer = await send(first, 'POST', '/v2/billing/meter_events', {
          json: { event_name: 'crash_calls', identifier, payload: { service_customer_id: customer.id, value: '1' } },
        });
        if (answer?.status === 200) usage[index]!.acknowledged.push(identifier);
        else if (answer === undefined || answer.status >= 500) usage[index]!.unknown.push(identifier);
        if (answer === undefined) break;
      }
    });
    const createClients = Array.from({ length: 3 }, async (_, index) => {
      for (let i = 0; loading; i++) {
        const answer = await send(first, 'POST', '/v1/customers', { form: `name=created-${index}-${i}` });
        if (answer?.status === 200) created.push(answer.body.id);
        else if (answer === undefined || answer.status >= 500) unknownCreates++;
        if (answer === undefined) break;
      }
    });

    // Killed outright mid-flight: the SQS emulator's messages (in memory) and every request in progress are gone.
    // Under load for 4 s, and until every client has had something acknowledged (a busy machine is slow to start).
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    await eventually(async () => (usage.every((tally) => tally.acknowledged.length > 0) && created.length > 0 ? true : undefined), 60_000);
    await first.crash();
    loading = false;
    await Promise.all([...meterClients, ...createClients]);
    expect(usage.every((tally) => tally.acknowledged.length > 0)).toBe(true);
    expect(created.length).toBeGreaterThan(0);

    const second = await startServiceProcess([], env, startTimeout);
    try {
      // Every acknowledged create exists
      for (const id of created) expect((await send(second, 'GET', `/v1/customers/${id}`))?.status, id).toBe(200);

      // Every acknowledged meter event counts exactly once, and so does each event the crash cut off once
      // its client sends it again, as a client would: accepted now, or a duplicate because its claim stood
      // before the crash (then it must be counted too, whatever minute its lease was in: nothing is lost)
      const now = Math.floor(Date.now() / 60_000) * 60;
      for (const [index, customer] of metered.entries()) {
        const { acknowledged, unknown } = usage[index]!;
        for (const identifier of unknown) {
          const resend = () =>
            send(second, 'POST', '/v2/billing/meter_events', {
              json: { event_name: 'crash_calls', identifier, payload: { service_customer_id: customer.id, value: '1' } },
            });
          let last: Awaited<ReturnType<typeof resend>>;
          const answer = await eventually(async () => {
            last = await resend();
            return last?.status === 409 ? undefined : last;
          }, 60_000).catch((error) => {
            throw new Error(`${identifier} was never accepted again; the last answer: ${JSON.stringify(last)}`, { cause: error });
          });
          expect(answer?.status === 200 || answer?.body?.error?.code === 'duplicate_meter_event', JSON.stringify(answer?.body)).toBe(true);
        }
        const expected = acknowledged.length + unknown.length;
        const counted = await eventually(async () => {
          const page = await send(
            second,
            'GET',
            `/v1/billing/meters/${meter.id}/event_summaries?customer=${customer.id}&start_time=${now - 3600}&end_time=${now + 120}`,
          );
          const value = page?.body?.data?.[0]?.aggregated_value ?? 0;
          return value >= expected ? value : undefined;
        }, 60_000);
        expect(counted).toBe(expected);
        // and none of them can be sent again
        const again = await send(second, 'POST', '/v2/billing/meter_events', {
          json: { event_name: 'crash_calls', identifier: acknowledged.at(-1), payload: { service_customer_id: customer.id, value: '1' } },
        });
        expect(again?.body?.error?.code).toBe('duplicate_meter_event');
      }

      // Every acknowledged create's event reaches the endpoint at least once
      const delivered = () =>
        new Set(
          receiver!.received
            .map((request) => JSON.parse(request.body))
            .filter((event) => event.type === 'customer.created')
            .map((event) => event.data.object.id),
        );
      const missing = await eventually(async () => {
        const seen = delivered();
        const left = created.filter((id) => !seen.has(id));
        return left.length === 0 ? left : undefined;
      }, 60_000).catch(() => created.filter((id) => !delivered().has(id)));
      expect(missing).toEqual([]);
      console.info(
        `crash safety: ${usage.reduce((sum, tally) => sum + tally.acknowledged.length, 0)} meter events and ${created.length} creates acknowledged ` +
          `(${usage.reduce((sum, tally) => sum + tally.unknown.length, 0)} and ${unknownCreates} cut off), all kept; ${receiver.received.length} webhooks received`,
      );
    } finally {
      await second.stop();
    }
  }, 180_000);
});
