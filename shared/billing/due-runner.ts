import { systemClock } from '#shared/core/clock.ts';
import { logger } from '#shared/core/logger.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { BillingObjectKind, DueProcessors } from './ports.ts';

/** One entry of the due index: the object (`kind`, `id`, `scope`) and the time it is due at. */
export interface DueEntry {
  scope: Scope;
  kind: string;
  id: string;
  /** Epoch ms. */
  at: number;
}

/** The due index as the runner reads it (shared/data/billing-due-index.ts on DynamoDB). */
export interface DueIndex {
  /** Entries of the stack's billing queue due by `by`: about `limit`, earliest first within each shard. */
  stackDue(by: number, limit: number): Promise<DueEntry[]>;
  /** The earliest entry of a test clock's own partition due by `by` (an index read: it may lag a write). */
  earliestOnClock(scope: Scope, clockId: string, by: number): Promise<DueEntry | undefined>;
  /** When the entry's object is due now, read from the object itself (strongly consistent); null when not due. */
  dueNow(entry: DueEntry): Promise<number | null>;
}

export interface DueRunnerPorts {
  /** The processors by kind; a kind without one is left in the index (and stops a clock's advance). */
  processors: Partial<DueProcessors>;
  index: DueIndex;
  clock?: () => number;
  /** Waits between reads of a lagging index. */
  pause?: (millis: number) => Promise<void>;
  /** Puts due objects on the `billing` queue, whose workers run them (`runOne`): the sweep's way. */
  dispatch?: (entries: DueEntry[]) => Promise<void>;
}

/**
 * Entries one sweep (each minute) reads across the shards and puts on the `billing` queue: 200 a second,
 * about what the billing workers at their configured concurrency run against one platform's partition
 * (docs/capacity.md, *Month-end*). An entry its worker has not run by the next sweep is put on the queue
 * again; running an object that is no longer due does nothing, so a duplicate costs a message and a read.
 */
export const sweepLimit = 12_000;
/**
 * Steps one advance may take: far above what three customers with their subscriptions reach in two
 * intervals, so reaching it means a processor keeps its object due just ahead (a loop), not real work.
 */
export const maxStepsPerAdvance = 5_000;
/** Re-reads of an index that still shows an entry its object has left, before the run gives up for now. */
const maxLaggingReads = 20;

const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis));

/**
 * The due engine: runs the processor of every billing object that falls due. The sweeper runs `sweep` on
 * the stack's billing queue with `at = now`; a test clock's advance runs `runClock` on the clock's own
 * partition, each entry at its own time, in time order across objects, until nothing is due by the target.
 * Processors are idempotent and write with versions, so two runs racing, or a run resumed after a crash,
 * never do a step twice.
 */
export function dueRunner({ processors, index, clock = systemClock, pause = sleep, dispatch }: DueRunnerPorts) {
  const processorOf = (kind: string) => processors[kind as BillingObjectKind];

  return {
    /** Runs one object's processor at `at` (a `billing` queue message); false when no processor handles its kind. */
    async runOne(kind: string, scope: Scope, id: string, at: number): Promise<boolean> {
      const processor = processorOf(kind);
      if (!processor) return false;
      await processor(scope, id, at);
      return true;
    },

    /**
     * Puts what is due on the stack's clock by now on the `billing` queue, earliest first, for the billing
     * workers to run in parallel; an object no processor handles stays due and is counted `unhandled`. A
     * failed run stays due too: its message is retried, and the next sweep puts it on the queue again.
     */
    async sweep(limit = sweepLimit): Promise<{ dispatched: number; unhandled: number }> {
      if (!dispatch) throw new Error('The sweep puts due objects on the billing queue: the runner needs dispatch');
      const entries = (await index.stackDue(clock(), limit)).sort((a, b) => a.at - b.at);
      const handled = entries.filter((entry) => processorOf(entry.kind) !== undefined);
      for (const entry of entries) {
        if (!processorOf(entry.kind)) logger.error('A billing object is due but no processor handles its kind', { kind: entry.kind, id: entry.id });
      }
      await dispatch(handled);
      return { dispatched: handled.length, unhandled: entries.length - handled.length };
    },

    /**
     * Runs a test clock's due work up to `target`: reads the earliest entry of the clock's partition, runs its
     * processor at the entry's own time, and reads again, so an object due again within the advance (a
     * renewal's next period, an invoice made by a renewal) is processed again at its new time, after whatever
     * falls due before it. `stuck` when an object is still due at (or before) a time it was processed at, or
     * the steps run out: the processor did not move it on, and looping would never end. `unfinished` past
     * `deadline` (or while the index lags): the clock stays advancing and the next run goes on.
     */
    async runClock(scope: Scope, clockId: string, target: number, deadline: number): Promise<'done' | 'stuck' | 'unfinished'> {
      const processedAt = new Map<string, number>();
      let steps = 0;
      let laggingReads = 0;
      for (;;) {
        if (clock() > deadline) return 'unfinished';
        const entry = await index.earliestOnClock(scope, clockId, target);
        if (!entry) return 'done';
        const key = `${entry.kind}#${entry.id}`;
        const last = processedAt.get(key);
        if (last !== undefined && entry.at <= last) {
          // Either the index has not caught up with the processor's write yet, or the processor left it due.
          const dueNow = await index.dueNow(entry);
          if (dueNow !== null && dueNow <= last) {
            logger.error('A billing object stayed due after its processor ran at that time', { kind: entry.kind, id: entry.id, at: entry.at });
            return 'stuck';
          }
          if (++laggingReads > maxLaggingReads) return 'unfinished';
          await pause(50 * laggingReads);
          continue;
        }
        const processor = processorOf(entry.kind);
        if (!processor || ++steps > maxStepsPerAdvance) {
          logger.error('A test clock advance cannot go on', { clock: clockId, kind: entry.kind, id: entry.id, steps });
          return 'stuck';
        }
        await processor(entry.scope, entry.id, entry.at);
        processedAt.set(key, entry.at);
        laggingReads = 0;
      }
    },
  };
}

export type DueRunner = ReturnType<typeof dueRunner>;
