import { systemClock } from '#shared/core/clock.ts';
import { logger } from '#shared/core/logger.ts';
import type { MeterEventStore } from './meter-event.ts';
import type { MeterWorkQueue } from './meter-event.ts';

export interface MeterWorkSweeperPorts {
  store: Pick<MeterEventStore, 'claimOverdueWork'>;
  queue: MeterWorkQueue;
  /** How long stored work may wait for its queue message before it is queued again. */
  graceMillis: number;
  clock?: () => number;
}

/**
 * Sweeps after which unfinished work is parked: the worker fails on it every time (a poison message), and
 * re-queuing it again would cycle queue → dead-letter queue → sweeper forever. At one sweep a minute past
 * the grace period, about ten minutes of failures.
 */
export const maxMeterWorkSweeps = 10;

/**
 * Re-queues meter work that was stored but never finished: an accepted event or a stream batch whose
 * message was lost (a crash between the write and the send, a restarted local stack), or a cancellation.
 * Each item is claimed by moving its due time, so overlapping sweeps queue it once per grace period.
 * Work swept `maxMeterWorkSweeps` times is parked: its record stays, off the due index, and an ERROR line
 * with `parked: true` raises the parked-work alarm (infra/monitoring.ts); docs/operations.md says how to
 * queue it again once the cause is fixed.
 */
export function meterWorkSweeper({ store, queue, graceMillis, clock = systemClock }: MeterWorkSweeperPorts) {
  return {
    async sweep(): Promise<number> {
      const now = clock();
      const { claimed, parked } = await store.claimOverdueWork(now - graceMillis, now, 100, maxMeterWorkSweeps);
      for (const key of parked) logger.error('Parked meter work', { parked: true, work: 'meter', key, sweeps: maxMeterWorkSweeps });
      if (claimed.length > 0) await queue.send(claimed);
      return claimed.length;
    },
  };
}
