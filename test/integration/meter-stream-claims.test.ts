import { beforeAll, describe, expect, it, vi } from 'vitest';
import { logger } from '#shared/core/logger.ts';
import { meterEvent as eventKeys, meterEventBatch as batchKeys, meterWorkDue } from '#shared/data/keys.ts';
import { dynamoMeterEventStore } from '#shared/data/metering/store.ts';
import { dynamoMeterRepository } from '#shared/data/meter-repository.ts';
import type { Caller, Scope } from '#shared/platform/types.ts';
import type { MeterEventRecord, MeterWork } from '#shared/meter-events/meter-event.ts';
import { adjustmentKey, eventItem } from '#shared/data/metering/items.ts';
import { meterEventProcessor } from '#shared/meter-events/processor.ts';
import { meterEventService } from '#shared/meter-events/service.ts';
import { fakePlatformStore } from '../support/fakes.ts';
import { newPlatform, sdk, stackTable } from '../support/stack.ts';

/**
 * Stream events of one batch, customer, meter and minute are claimed one by one and counted with the
 * batch's mark (TABLE_DESIGN.md, 19): these are the ways that could count an event twice or lose it.
 */
describe('stream events claimed for their batch and counted with its mark', () => {
  const table = stackTable();
  const store = dynamoMeterEventStore(table);
  const meters = dynamoMeterRepository(table);
  const queued: MeterWork[] = [];
  const service = meterEventService({
    store,
    meters,
    customerExists: async () => true,
    queue: { send: async (work) => void queued.push(...work) },
    apiKeys: fakePlatformStore(),
  });
  const processor = meterEventProcessor({ store, meters, customerExists: async () => true, errorWindowMillis: 60_000 });
  let scope: Scope;
  let caller: Caller;
  let meterId: string;
  let customer: string;

  beforeAll(async () => {
    const platform = await newPlatform();
    const client = sdk(platform.secret_key);
    meterId = (await client.billing.meters.create({ display_name: 'claims', event_name: 'claims_calls', default_aggregation: { formula: 'sum' } })).id;
    customer = (await client.customers.create({ name: 'claims' })).id;
    scope = { accountId: platform.account, livemode: false };
    caller = { platformId: platform.account, livemode: false, keyKind: 'secret', credentialId: 'claims', scope };
  });

  /** A stream request of `count` events worth 1 each, as the worker receives it. */
  async function streamed(prefix: string, count: number): Promise<MeterWork> {
    queued.length = 0;
    const events = Array.from({ length: count }, (_, i) => ({
      event_name: 'claims_calls',
      identifier: `${prefix}-${i}`,
      payload: { service_customer_id: customer, value: '1' },
    }));
    await service.acceptStream(caller, events);
    return queued[0]!;
  }

  const total = async () => (await store.usage(scope, meterId, customer, 0, Date.now() + 60_000)).reduce((sum, minute) => sum + minute.total, 0);

  it('counts a batch once however often it is delivered, and refuses identifiers another batch holds', async () => {
    const before = await total();
    const first = await streamed('once', 10);

    // When the same message is processed twice (a redelivery), and twice more at the same time
    await processor.process([first]);
    await processor.process([first]);
    await Promise.all([processor.process([first]), processor.process([first])]);

    // Then its 10 events count once
    expect(await total()).toBe(before + 10);

    // When another batch repeats 5 of those identifiers with 5 new ones
    queued.length = 0;
    await service.acceptStream(
      caller,
      Array.from({ length: 10 }, (_, i) => ({
        event_name: 'claims_calls',
        identifier: `once-${i + 5}`,
        payload: { service_customer_id: customer, value: '1' },
      })),
    );
    await processor.process([queued[0]!]);

    // Then only the 5 new ones count
    expect(await total()).toBe(before + 15);
  });

  it('finds a large batch through its small due item, and drops a due item whose batch was never stored', async () => {
    // Given a large batch accepted but never processed (its message lost), and a due item without a batch
    const work = await streamed('lost', 20);
    if (work.kind !== 'batch') throw new Error('expected a batch');
    const orphan = { PK: batchKeys.pk('mtrbatch_orphan_claims'), SK: batchKeys.dueSk() };
    await table.put({
      TableName: table.name,
      Item: { ...orphan, entity: 'meter_event_batch_due', GSI2PK: meterWorkDue.gsi2pk('work', 0), GSI2SK: meterWorkDue.gsi2sk(1, orphan.PK) },
    });

    // When the sweeper claims overdue work from a minute later
    const later = Date.now() + 60_000;
    let found: MeterWork[] = [];
    for (let round = 0; round < 20 && !found.some((each) => each.kind === 'batch' && each.batch.id === work.batch.id); round++) {
      found = [...found, ...(await store.claimOverdueWork(later, later, 1_000, 10)).claimed];
    }

    // Then the lost batch comes back whole, and the orphan leaves the due index
    expect(found.find((each) => each.kind === 'batch' && each.batch.id === work.batch.id)).toEqual(work);
    const stored = await table.get(orphan);
    expect(stored?.GSI2PK).toBeUndefined();
  });

  it('finishes a large batch stored before due items existed, in its own place in the due index', async () => {
    // Given a large batch stored the old way: its due entry on the batch item itself, no due item
    const work = await streamed('legacy', 20);
    if (work.kind !== 'batch') throw new Error('expected a batch');
    const key = { PK: batchKeys.pk(work.batch.id), SK: batchKeys.sk() };
    await table.delete({ TableName: table.name, Key: { PK: key.PK, SK: batchKeys.dueSk() } });
    await table.update({
      TableName: table.name,
      Key: key,
      UpdateExpression: 'SET GSI2PK = :pk, GSI2SK = :sk',
      ExpressionAttributeValues: { ':pk': meterWorkDue.gsi2pk('work', 1), ':sk': meterWorkDue.gsi2sk(work.batch.created, key.PK) },
    });

    // When it is processed
    await processor.process([work]);

    // Then it leaves the due index, and no due item is made up for it
    expect((await table.get(key))?.GSI2PK).toBeUndefined();
    expect(await table.get({ PK: key.PK, SK: batchKeys.dueSk() })).toBeUndefined();
  });

  it('counts the events a crashed try claimed but did not count', async () => {
    const before = await total();
    const work = await streamed('crashed', 6);
    if (work.kind !== 'batch') throw new Error('expected a batch');

    // Given a try that claimed 4 of the 6 events for the batch, then stopped before counting
    for (const input of work.batch.events.slice(0, 4)) {
      const key = { PK: eventKeys.pk(scope, input.identifier), SK: eventKeys.sk() };
      await table.put({
        TableName: table.name,
        Item: {
          ...key,
          entity: 'meter_event',
          ...input,
          scope,
          platformId: scope.accountId,
          created: work.batch.created,
          source: 'stream',
          batchId: work.batch.id,
          status: 'processed',
          meterId,
          expiresAt: Math.floor(Date.now() / 1000) + 3600,
        },
      });
    }

    // When the batch is processed again
    await processor.process([work]);

    // Then all 6 count, once
    expect(await total()).toBe(before + 6);
    await processor.process([work]);
    expect(await total()).toBe(before + 6);
  });

  describe('an API event an older version stored `accepted` and queued as `event` work (legacy-accepted-events)', () => {
    /**
     * The record such a version wrote, in the meter work queue of the due index: due 30 s ahead, so the
     * stack's own sweeper (2 s grace) leaves it to this file's sweeps.
     */
    async function storeLegacy(identifier: string, cancelAdjustmentId: string | null = null) {
      const created = Date.now();
      const record: MeterEventRecord = {
        eventName: 'claims_calls',
        identifier,
        payload: { service_customer_id: customer, value: '3' },
        timestamp: created,
        scope,
        platformId: scope.accountId,
        created,
        source: 'api',
        batchId: null,
        status: 'accepted',
        meterId,
        cancelAdjustmentId,
      };
      const PK = eventKeys.pk(scope, identifier);
      await table.put({
        TableName: table.name,
        Item: { ...eventItem(record), GSI2PK: meterWorkDue.gsi2pk('work', 1), GSI2SK: meterWorkDue.gsi2sk(created + 30_000, PK) },
      });
      return record;
    }
    /** Sweeps from a minute later until `done` holds (other files' work may be due too). */
    async function sweepUntil(done: (found: MeterWork[]) => boolean | Promise<boolean>) {
      const later = Date.now() + 60_000;
      let found: MeterWork[] = [];
      for (let round = 0; round < 20 && !(await done(found)); round++) found = [...found, ...(await store.claimOverdueWork(later, later, 1_000, 10)).claimed];
      return found;
    }

    it('is swept into a one-event batch received when it was, and counted once however often that batch comes', async () => {
      const before = await total();
      const legacy = await storeLegacy(`legacy-accepted-${Date.now()}`);
      const isIt = (work: MeterWork) => work.kind === 'batch' && work.batch.events[0]?.identifier === legacy.identifier;

      const found = (await sweepUntil((claimed) => claimed.some(isIt))).find(isIt);

      expect(found).toMatchObject({
        kind: 'batch',
        batch: { created: legacy.created, scope, events: [{ identifier: legacy.identifier, timestamp: legacy.timestamp }] },
      });
      expect(await store.getEvent(scope, legacy.identifier)).toBeUndefined();
      await processor.process([found!]);
      await processor.process([found!]);
      expect(await total()).toBe(before + 3);
      const record = await table.get({ PK: eventKeys.pk(scope, legacy.identifier), SK: eventKeys.sk() });
      expect(record).toMatchObject({ status: 'processed', source: 'stream', batchId: found!.kind === 'batch' ? found!.batch.id : '' });
      expect(record).not.toHaveProperty('GSI2PK');
    });

    it('is cancelled uncounted by the sweep when a cancellation names it, and the waiting cancellation then completes', async () => {
      const before = await total();
      const identifier = `legacy-cancelled-${Date.now()}`;
      const adjustment = {
        id: `mtradj_legacy_${Date.now()}`,
        scope,
        platformId: scope.accountId,
        created: Date.now(),
        eventName: 'claims_calls',
        type: 'cancel' as const,
        cancelIdentifier: identifier,
        status: 'pending' as const,
      };
      await table.put({ TableName: table.name, Item: { ...adjustmentKey(adjustment), entity: 'meter_event_adjustment', ...adjustment } });
      await storeLegacy(identifier, adjustment.id);
      const cancel: MeterWork = { kind: 'cancel', adjustment };
      const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {});
      expect(await processor.process([cancel])).toEqual([cancel]);
      warn.mockRestore();

      await sweepUntil(async () => (await store.getEvent(scope, identifier))?.status === 'cancelled');

      expect(await store.getEvent(scope, identifier)).toMatchObject({ status: 'cancelled' });
      expect(await store.getAdjustment(scope, adjustment.id)).toMatchObject({ status: 'complete' });
      expect(await processor.process([cancel])).toEqual([]);
      expect(await total()).toBe(before);
    });
  });
});
