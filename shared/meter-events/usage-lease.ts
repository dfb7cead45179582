import { systemClock } from '#shared/core/clock.ts';
import { randomUUID } from 'node:crypto';
import { logger } from '#shared/core/logger.ts';
import type { LeaseEntry, MeterEventRecord, MeterEventStore, UsageLease } from './meter-event.ts';

/**
 * How long the settle message of an API event waits before it checks the event was counted: past the
 * lease (5 s), so that a request that is alive has released by then and the check finds nothing to do.
 */
export const settleDelaySeconds = 10;

export type CountOutcome = 'counted' | 'busy' | 'duplicate' | 'fenced';

/**
 * How long the worker tries a held lease (pauses growing to 250 ms) before the messages of its events are
 * retried: half the worker's timeout, so that a queue of concurrent workers on one minute, each holding it
 * for three round trips, is waited out rather than turned into redeliveries.
 */
const maxLeaseWaitMillis = 15_000;

type LeaseStore = Pick<MeterEventStore, 'takeLease' | 'releaseLease' | 'readLease' | 'claim' | 'settle'>;

/**
 * Counting API events on the request path, exactly once, in three writes: the take of the minute's usage
 * lease (which names this request's event), the identifier claim, and the release that adds the event to
 * the minute. A request that stops between the take and the release leaves its entry in the lease; the
 * next holder settles it (counts it if its claim stands, fences the identifier against it if not) in its
 * own release, and the settle message sent with the take does the same if no holder comes.
 * See TABLE_DESIGN.md, *Metering write path*.
 */
export function usageLeases(store: LeaseStore, clock: () => number = systemClock) {
  /** Settles entries stopped requests left: the ones whose claims stand are counted by the release. */
  async function settleAll(lease: UsageLease, entries: LeaseEntry[]) {
    const outcomes = await Promise.all(entries.map((entry) => store.settle(lease.scope, entry)));
    return entries.flatMap((entry, index) => (outcomes[index] === 'fenced' ? [] : [{ entry, setsLast: outcomes[index] === 'count' }]));
  }

  return {
    /**
     * Counts `event` under `lease`. `announce` sends the settle message; it goes out with the take, before
     * the claim, so an event can never be claimed without someone bound to settle it.
     */
    async count(lease: UsageLease, event: MeterEventRecord, entry: LeaseEntry, announce: () => Promise<void>): Promise<CountOutcome> {
      const [taken, announced] = await Promise.allSettled([store.takeLease(lease, [entry], clock()), announce()]);
      if (taken.status === 'rejected') throw taken.reason;
      const leftovers = taken.value;
      if (!leftovers) return 'busy';
      // From here on anything that throws leaves the lease to expire: its entries are settled by whoever comes next.
      const counted = await settleAll(lease, leftovers);
      const owners = [lease.owner, ...leftovers.map((left) => left.owner)];
      if (announced.status === 'rejected') {
        await store.releaseLease(lease, counted, owners);
        throw announced.reason;
      }
      const claim = await store.claim(event, lease.owner);
      if (claim === 'claimed') counted.push({ entry, setsLast: true });
      try {
        // False: a later holder took the lease over and counts this event, its claim standing.
        await store.releaseLease(lease, counted, owners);
      } catch (error) {
        if (claim !== 'claimed') throw error;
        logger.warn('A usage lease could not be released; its settle message counts the event', { error: error as Error, identifier: event.identifier });
      }
      return claim === 'claimed' ? 'counted' : claim;
    },

    /**
     * Counts stream events of one customer, meter and minute (a few, from the worker) under their lease:
     * one take naming them all, a claim each, one release counting the claims that stand (2 + n write
     * units). A held lease is waited for; a worker that stops is settled by the batch's redelivery, which
     * takes the lease next. Throws if a claim was fenced (this worker was too slow): the batch comes back.
     */
    async countStreamed(lease: UsageLease, events: Array<{ event: MeterEventRecord; entry: Omit<LeaseEntry, 'owner'> }>): Promise<void> {
      const entries = events.map(({ entry }) => ({ ...entry, owner: lease.owner }));
      const deadline = clock() + maxLeaseWaitMillis;
      let leftovers = await store.takeLease(lease, entries, clock());
      for (let round = 0; !leftovers; round++) {
        if (clock() >= deadline) throw new Error(`The usage lease of meter ${lease.meter.id} stayed held; its events are retried`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(250, 20 * 2 ** round) * (0.5 + Math.random())));
        leftovers = await store.takeLease(lease, entries, clock());
      }
      const counted = await settleAll(lease, leftovers);
      const claims = await Promise.all(events.map(({ event }) => store.claim(event, lease.owner)));
      for (const [index, entry] of entries.entries()) if (claims[index] === 'claimed') counted.push({ entry, setsLast: true });
      await store.releaseLease(lease, counted, [lease.owner, ...leftovers.map((left) => left.owner)]);
      if (claims.includes('fenced')) throw new Error(`Stream events of meter ${lease.meter.id} were fenced off a slow worker; they are retried`);
    },

    /**
     * The settle message: if the request's entry is still in the lease and the lease has expired, takes
     * the lease and settles every entry left in it. Throws (the message comes back) while another request
     * holds the lease with the entry still in it.
     */
    async settle(lease: UsageLease, entry: LeaseEntry): Promise<void> {
      const now = clock();
      const state = await store.readLease(lease);
      if (!state.entries.some((left) => left.owner === entry.owner)) return;
      const settler = { ...lease, owner: `settle_${randomUUID()}` };
      const leftovers = state.until !== undefined && state.until > now ? undefined : await store.takeLease(settler, [], now);
      if (!leftovers) throw new Error(`The usage lease of meter ${lease.meter.id} is held with an unsettled event (${entry.identifier}); retried later`);
      await store.releaseLease(
        settler,
        await settleAll(settler, leftovers),
        leftovers.map((left) => left.owner),
      );
    },
  };
}
