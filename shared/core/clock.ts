/** Milliseconds since the epoch: the one source of "now" the wiring hands to stores and services. */
export type Clock = () => number;

/** Set only by the local stack (`local/clock.ts`), in each of its threads; never on AWS. */
let localOffset: BigInt64Array | undefined;

/**
 * The machine's clock, which every time-based rule reads (through the services' and the table's `clock`
 * ports). On AWS it is `Date.now()` and nothing else: only the local stack calls {@link followLocalClock}.
 */
export const systemClock: Clock = () => (localOffset === undefined ? Date.now() : Date.now() + Number(Atomics.load(localOffset, 0)));

/**
 * Local stack only: from now on {@link systemClock} in this thread runs `offset[0]` milliseconds ahead of the
 * machine's clock. `offset` lives in a SharedArrayBuffer that every thread of the local stack follows, so an
 * advance reaches the HTTP handlers, the queue workers and the scheduled jobs at once.
 */
export function followLocalClock(offset: BigInt64Array): void {
  localOffset = offset;
}
