import type { MeterEventStore } from './meter-event.ts';
import type { MeterWorkQueue } from './service.ts';

export interface MeterWorkSweeperPorts {
  store: Pick<MeterEventStore, 'claimOverdueWork'>;
  queue: MeterWorkQueue;
  /** How long stored work may wait for its queue message before it is queued again. */
  graceMillis: number;
  clock?: () => number;
}

/**
 * Re-queues meter work that was stored but never finished: an accepted event or a stream batch whose
 * message was lost (a crash between the write and the send, a restarted local stack), or a cancellation.
 * Each item is claimed by moving its due time, so overlapping sweeps queue it once per grace period.
 */
export function meterWorkSweeper({ store, queue, graceMillis, clock = Date.now }: MeterWorkSweeperPorts) {
  return {
    async sweep(): Promise<number> {
      const now = clock();
      const work = await store.claimOverdueWork(now - graceMillis, now, 100);
      if (work.length > 0) await queue.send(work);
      return work.length;
    },
  };
}
