import { cacheTopics, cacheWindows, readThrough, readThroughWithMisses, scopedKey } from '#shared/core/cache.ts';
import { wireApiKeys } from '#shared/platform/wiring.ts';
import { config } from '#shared/core/config.ts';
import { serviceTable, type Table } from '#shared/data/table.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { dynamoMeterEventStore } from '#shared/data/metering/store.ts';
import { dynamoUsageRollupStore } from '#shared/data/metering/rollups.ts';
import { dynamoMeterRepository } from '#shared/data/meter-repository.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import type { Scope } from '#shared/platform/types.ts';
import { batchedSender } from '#shared/messaging/batched-sender.ts';
import { wireQueueSeal } from '#shared/messaging/wiring.ts';
import { errorReporter } from './error-reports.ts';
import type { MeterWork } from './meter-event.ts';
import { meterEventProcessor } from './processor.ts';
import type { MeterWorkQueue } from './meter-event.ts';
import { meterEventService } from './service.ts';
import { usageRollSweeper, usageRollups } from './rollups.ts';
import { usageSummaries } from './summaries.ts';
import { meterWorkSweeper } from './sweeper.ts';

function meterWorkQueue(): MeterWorkQueue {
  const url = config().METER_EVENTS_QUEUE_URL;
  if (!url) throw new Error('Invalid configuration: METER_EVENTS_QUEUE_URL is required for metering');
  const send = batchedSender(url);
  const seal = wireQueueSeal('meter-events');
  return {
    send: async (work: MeterWork[], delaySeconds?: number) => send(await seal.seal(work.map((item) => JSON.stringify(item))), delaySeconds),
  };
}

/** Whether a customer exists, kept for found customers only (`cacheWindows.foundCustomers`): one read per customer, not per event. */
function foundCustomers(table: Table) {
  const customers = dynamoCustomerRepository(table);
  return readThrough(async (scope: Scope, id: string) => (await customers.get(scope, id)) !== undefined, scopedKey, {
    ttlMillis: cacheWindows.foundCustomers(),
    keeps: (exists) => exists,
  });
}

const ports = () => {
  const table = serviceTable();
  return { table, store: dynamoMeterEventStore(table), meters: dynamoMeterRepository(table) };
};

/** The synchronous side (meter events, adjustments, sessions, the stream) on its real adapters. */
export function wireMeterEventService() {
  const { table, store: uncached } = ports();
  const store = { ...uncached, findSession: readThroughWithMisses(uncached.findSession, (hash) => hash, { ttlMillis: cacheWindows.meterEventSessions() }) };
  // One meter read per window per warm process instead of one per event (`cacheWindows.metersByEventName`).
  const uncachedMeters = dynamoMeterRepository(table);
  const meters = {
    ...uncachedMeters,
    findByEventName: readThrough(uncachedMeters.findByEventName, scopedKey, {
      ttlMillis: cacheWindows.metersByEventName(),
      invalidatedBy: [cacheTopics.meters],
    }),
  };
  return meterEventService({ store, meters, customerExists: foundCustomers(table), queue: meterWorkQueue(), apiKeys: wireApiKeys() });
}

/** The meter-events queue worker's processor. */
export function wireMeterEventProcessor() {
  const { table, store, meters } = ports();
  return meterEventProcessor({
    store,
    meters,
    customerExists: foundCustomers(table),
    errorWindowMillis: config().METER_ERROR_WINDOW_SECONDS * 1000,
  });
}

export const wireErrorReporter = () => errorReporter({ store: ports().store, events: wireEventEmitter() });

export const wireMeterWorkSweeper = () => meterWorkSweeper({ store: ports().store, queue: meterWorkQueue(), graceMillis: config().SWEEP_GRACE_SECONDS * 1000 });

/**
 * Summaries read through the hour rollups: whole hours (and so days) compose from them. Their route only
 * reads, so they do not roll (the scheduled roll and the invoicing reads do).
 */
export const wireUsageSummaries = () => {
  const { table, meters } = ports();
  return usageSummaries({ store: { usage: wireUsageRollups(table, { rollOnRead: false }).usage }, meters });
};

/**
 * Usage read through the hour rollups (the `UsageReader` invoices and previews read, and the summaries'
 * pieces), on `table` (the service table unless given). A read rolls what it read from minutes (that needs
 * `table:write`); `rollOnRead: false` for a function that may only read.
 */
export function wireUsageRollups(table: Table = serviceTable(), { rollOnRead = true }: { rollOnRead?: boolean } = {}) {
  const store = dynamoMeterEventStore(table);
  return usageRollups({ store: { ...dynamoUsageRollupStore(table), usage: store.usage }, clock: table.clock, rollOnRead });
}

/** The scheduled roll of registered usage partitions (functions/schedules/roll-usage.ts), on `table` (the service table unless given). */
export function wireUsageRollSweeper(table: Table = serviceTable()) {
  return usageRollSweeper({ schedule: dynamoUsageRollupStore(table), rollups: wireUsageRollups(table), clock: table.clock });
}
