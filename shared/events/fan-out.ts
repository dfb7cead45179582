import { systemClock } from '#shared/core/clock.ts';
import { logger } from '#shared/core/logger.ts';
import { deliveriesOf } from './emitter.ts';
import type { FanOut } from './event.ts';
import { deliveryMessage, fanOutMessage, type DeliveryQueue, type FanOutMessage, type FanOutStore, type SubscriberDirectory } from './ports.ts';

export interface FanOutServicePorts {
  subscribers: SubscriberDirectory;
  store: FanOutStore;
  queue: DeliveryQueue;
  /** How late a fan-out must be before the sweeper re-enqueues it. */
  sweepGraceMillis: number;
  /** Sweeps without the fan-out happening after which it is parked (a message the worker keeps failing on). */
  maxSweeps: number;
  clock?: () => number;
}

/**
 * The deliveries worker's side of emitting: turns a change's fan-out into one delivery per matching
 * subscriber, read when the fan-out runs (a destination created after the change was answered, but
 * before its fan-out ran, receives its events too; one deleted by then does not), and enqueues them.
 */
export function fanOutService({ subscribers, store, queue, sweepGraceMillis, maxSweeps, clock = systemClock }: FanOutServicePorts) {
  return {
    /** Handles one fan-out message; a redelivered one finds its record gone and does nothing. */
    async run({ fanOut, thinEvents }: FanOutMessage): Promise<void> {
      const now = clock();
      const planned = deliveriesOf(fanOut, await subscribers.subscribersOf(fanOut.platform), now);
      const deliveries = await store.complete(fanOut, planned.deliveries, planned.pendingWebhooks);
      if (!deliveries || deliveries.length === 0) return;
      const carried = new Map(thinEvents.map((event) => [event.id, event]));
      try {
        await queue.enqueue(deliveries.map((delivery) => deliveryMessage(delivery, carried.get(delivery.event.id))));
      } catch (error) {
        // The deliveries are written and due: the sweeper enqueues them.
        logger.warn('Could not enqueue deliveries; the sweeper will', { error: error as Error, count: deliveries.length });
      }
    },

    /** Re-enqueues fan-outs overdue by more than the grace period (a lost message); parks one that keeps failing. */
    async sweep(): Promise<number> {
      const now = clock();
      const claimed: FanOut[] = [];
      for (const fanOut of await store.overdue(now - sweepGraceMillis, 100)) {
        if ((fanOut.sweeps ?? 0) >= maxSweeps) {
          await store.park(fanOut);
          logger.error('Parked a fan-out', { parked: true, work: 'fan-out', fanOutId: fanOut.id, sweeps: fanOut.sweeps });
        } else if (await store.reschedule(fanOut, now)) {
          claimed.push(fanOut);
        }
      }
      await queue.enqueue(claimed.map((fanOut) => fanOutMessage({ ...fanOut, sweeps: (fanOut.sweeps ?? 0) + 1 }, [])));
      return claimed.length;
    },
  };
}
