/** Milliseconds since the epoch: the one source of "now" the wiring hands to stores and services. */
export type Clock = () => number;

/** The machine's clock. */
export const systemClock: Clock = () => Date.now();
