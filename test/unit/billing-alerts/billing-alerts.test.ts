import { describe, expect, it } from 'vitest';
import type { AlertTrigger, BillingAlert, BillingAlertRepository } from '#shared/billing-alerts/alert.ts';
import { alertEvaluator } from '#shared/billing-alerts/evaluator.ts';
import { createAlertParams } from '#shared/billing-alerts/schemas.ts';
import { billingAlertService, transition } from '#shared/billing-alerts/service.ts';
import { InvalidRequestError } from '#shared/core/errors.ts';
import { eventEmitter } from '#shared/events/emitter.ts';
import type { Outbox } from '#shared/events/event.ts';
import type { UsageReader } from '#shared/meter-events/meter-event.ts';
import type { Scope } from '#shared/platform/types.ts';
import { memoryMeterRepository, meterFixture, originOf } from '../../support/fakes.ts';

const scope: Scope = { accountId: 'acct_alerts', livemode: false };

/** Where a fault strikes a firing: before its transaction, or after it committed (the process dies before it answers). */
type Fault = 'before-commit' | 'after-commit';

/**
 * In-memory alerts with the DynamoDB adapter's conditions: a firing commits the trigger record (only if
 * absent), the alert's fired mark (only while active at the version read) and the outbox all at once, or nothing.
 */
function memoryAlerts() {
  const alerts = new Map<string, BillingAlert>();
  const triggers = new Map<string, AlertTrigger>();
  const committed: Outbox[] = [];
  const counts = new Map<string, number>();
  const faults: Fault[] = [];
  const capKey = (alert: BillingAlert) => `${alert.usageThreshold.meterId}|${alert.usageThreshold.customerId}`;
  const repository: BillingAlertRepository = {
    async create(alert, limit) {
      if ((counts.get(capKey(alert)) ?? 0) >= limit) return false;
      counts.set(capKey(alert), (counts.get(capKey(alert)) ?? 0) + 1);
      alerts.set(alert.id, structuredClone(alert));
      return true;
    },
    get: async (_scope, id) => structuredClone(alerts.get(id)),
    async replace(next, before) {
      if (alerts.get(next.id)?.version !== before.version) return false;
      if (next.status === 'archived' && before.status !== 'archived') counts.set(capKey(next), counts.get(capKey(next))! - 1);
      alerts.set(next.id, structuredClone(next));
      return true;
    },
    async list() {
      return { items: [...alerts.values()].filter((alert) => alert.status !== 'archived').reverse(), hasMore: false };
    },
    async *pending() {
      yield [...alerts.values()].filter((alert) => alert.status === 'active' && alert.triggeredAt === null).map((alert) => structuredClone(alert));
    },
    async trigger(alert, trigger, outbox) {
      if (faults[0] === 'before-commit') throw new Error(`crash ${faults.shift()}`);
      const key = `${alert.id}|${trigger.customerId}`;
      const stored = alerts.get(alert.id)!;
      if (triggers.has(key) || stored.status !== 'active' || stored.version !== alert.version) return false;
      triggers.set(key, trigger);
      alerts.set(alert.id, { ...stored, triggeredAt: trigger.at, version: stored.version + 1 });
      committed.push(outbox);
      if (faults[0] === 'after-commit') throw new Error(`crash ${faults.shift()}`);
      return true;
    },
  };
  return { repository, alerts, triggers, committed, faults, counts };
}

function setup(usageOf: (customerId: string) => number) {
  const store = memoryAlerts();
  const meters = memoryMeterRepository();
  const enqueued: unknown[] = [];
  const events = eventEmitter({ store: { commit: async () => undefined }, queue: { enqueue: async (messages) => void enqueued.push(...messages) } });
  const usage: UsageReader = { aggregate: async (_scope, _meter, customerId) => usageOf(customerId) };
  let now = 1_700_000_000_000;
  const clock = () => now++;
  const service = billingAlertService({ repository: store.repository, meters, customerExists: async (_scope, id) => id.startsWith('cus_'), clock });
  const evaluator = () => alertEvaluator({ repository: store.repository, usage, events, clock });
  return { ...store, meters, service, evaluator, enqueued };
}

const params = (overrides: Record<string, unknown> = {}) =>
  createAlertParams.parse({
    alert_type: 'usage_threshold',
    title: 'At ten',
    usage_threshold: { gte: '10', meter: 'mtr_1', recurrence: 'one_time', filters: [{ type: 'customer', customer: 'cus_1' }], ...overrides },
  });

async function withMeter(setupResult: ReturnType<typeof setup>, status: 'active' | 'inactive' = 'active') {
  await setupResult.meters.create(meterFixture({ scope, status }));
  return setupResult;
}

describe('billing alert status transitions', () => {
  it('moves active ↔ inactive and either to archived, and refuses every other move naming the status', () => {
    expect(transition({ id: 'alrt_1', status: 'active' }, 'deactivate')).toBe('inactive');
    expect(transition({ id: 'alrt_1', status: 'inactive' }, 'activate')).toBe('active');
    expect(transition({ id: 'alrt_1', status: 'active' }, 'archive')).toBe('archived');
    expect(transition({ id: 'alrt_1', status: 'inactive' }, 'archive')).toBe('archived');
    expect(() => transition({ id: 'alrt_1', status: 'active' }, 'activate')).toThrow(expect.objectContaining({ code: 'alert_already_active' }));
    expect(() => transition({ id: 'alrt_1', status: 'inactive' }, 'deactivate')).toThrow(expect.objectContaining({ code: 'alert_already_inactive' }));
    for (const move of ['activate', 'deactivate', 'archive'] as const) {
      expect(() => transition({ id: 'alrt_1', status: 'archived' }, move)).toThrow(InvalidRequestError);
      expect(() => transition({ id: 'alrt_1', status: 'archived' }, move)).toThrow(expect.objectContaining({ code: 'alert_archived', param: 'id' }));
    }
  });
});

describe('creating billing alerts', () => {
  it('refuses an alert without a customer, on a missing or inactive meter, or for a missing customer', async () => {
    const { service } = await withMeter(setup(() => 0));
    const origin = originOf(scope);
    await expect(service.create(origin, params({ filters: undefined }))).rejects.toMatchObject({
      code: 'parameter_missing',
      param: 'usage_threshold[filters]',
    });
    await expect(service.create(origin, params({ filters: [{ type: 'customer' }] }))).rejects.toMatchObject({
      param: 'usage_threshold[filters][0][customer]',
    });
    await expect(service.create(origin, params({ meter: 'mtr_gone' }))).rejects.toMatchObject({ code: 'resource_missing', param: 'usage_threshold[meter]' });
    await expect(service.create(origin, params({ filters: [{ type: 'customer', customer: 'nobody' }] }))).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'usage_threshold[filters][0][customer]',
    });
    const inactive = await withMeter(
      setup(() => 0),
      'inactive',
    );
    await expect(inactive.service.create(origin, params())).rejects.toMatchObject({ code: 'archived_meter', param: 'usage_threshold[meter]' });
  });

  it('keeps at most 25 alerts per meter and customer, and an archived alert frees its place', async () => {
    const { service } = await withMeter(setup(() => 0));
    const origin = originOf(scope);
    const made = [];
    for (let i = 0; i < 25; i++) made.push(await service.create(origin, params()));
    await expect(service.create(origin, params())).rejects.toMatchObject({ code: 'alert_limit_reached' });
    // Another customer of the same meter has a cap of its own
    await service.create(origin, params({ filters: [{ type: 'customer', customer: 'cus_2' }] }));
    await service.archive(scope, made[0]!.id);
    expect(await service.create(origin, params())).toMatchObject({ status: 'active' });
  });
});

describe('evaluating billing alerts exactly once', () => {
  it('writes nothing while usage is below gte, then fires once with the value that reached it', async () => {
    let value = 9;
    const world = await withMeter(setup(() => value));
    const alert = await world.service.create(originOf(scope), params());
    const evaluator = world.evaluator();

    expect(await evaluator.evaluatePending()).toEqual({ evaluated: 1, triggered: 0, failed: 0 });
    expect(world.committed).toHaveLength(0);

    value = 12;
    expect(await evaluator.evaluatePending()).toEqual({ evaluated: 1, triggered: 1, failed: 0 });
    expect(await evaluator.evaluatePending()).toEqual({ evaluated: 0, triggered: 0, failed: 0 });

    expect(world.committed).toHaveLength(1);
    const [event] = world.committed[0]!.snapshotEvents;
    expect(event).toMatchObject({
      type: 'billing.alert.triggered',
      object: { object: 'billing.alert_triggered', customer: 'cus_1', value: 12, livemode: false, alert: { id: alert.id, status: 'active' } },
    });
    expect(world.enqueued).toHaveLength(1);
    // The alert stays active, out of the pending set
    expect(world.alerts.get(alert.id)).toMatchObject({ status: 'active', triggeredAt: expect.any(Number) });
  });

  it('fires once when evaluators race over the same alert', async () => {
    const world = await withMeter(setup(() => 50));
    await world.service.create(originOf(scope), params());
    const runs = await Promise.all(Array.from({ length: 5 }, () => world.evaluator().evaluatePending()));
    expect(runs.reduce((sum, run) => sum + run.triggered, 0)).toBe(1);
    expect(world.committed).toHaveLength(1);
    expect(world.triggers.size).toBe(1);
  });

  it('fires once when a run crashes after its firing committed, and the next run finds nothing to do', async () => {
    const world = await withMeter(setup(() => 10));
    await world.service.create(originOf(scope), params());
    world.faults.push('after-commit');

    expect(await world.evaluator().evaluatePending()).toMatchObject({ failed: 1, triggered: 0 });
    // The event's outbox committed with the trigger: the fan-out sweeper delivers it without a second firing
    expect(world.committed).toHaveLength(1);
    expect(await world.evaluator().evaluatePending()).toEqual({ evaluated: 0, triggered: 0, failed: 0 });
    expect(world.committed).toHaveLength(1);
  });

  it('fires on the next run when a run crashes before its firing committed', async () => {
    const world = await withMeter(setup(() => 10));
    await world.service.create(originOf(scope), params());
    world.faults.push('before-commit');

    expect(await world.evaluator().evaluatePending()).toMatchObject({ failed: 1 });
    expect(world.committed).toHaveLength(0);
    expect(await world.evaluator().evaluatePending()).toMatchObject({ triggered: 1 });
    expect(world.committed).toHaveLength(1);
  });

  it('does not fire an alert deactivated between the usage read and the firing', async () => {
    const world = await withMeter(setup(() => 10));
    const alert = await world.service.create(originOf(scope), params());
    const [pending] = (await world.repository.pending()[Symbol.asyncIterator]().next()).value as BillingAlert[];
    await world.service.deactivate(scope, alert.id);

    expect(await world.evaluator().evaluate(pending!)).toBe('not-fired');
    expect(world.committed).toHaveLength(0);
    // Once activated again it fires
    await world.service.activate(scope, alert.id);
    expect(await world.evaluator().evaluatePending()).toMatchObject({ triggered: 1 });
  });
});
