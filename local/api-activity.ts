/**
 * What the local gateway tells the queue workers' thread about API load, in one shared Int32Array:
 * element 0 counts the requests being served, element 1 holds when one last started or ended
 * (`Date.now()` modulo 2^31, so it fits). Latency-tolerant workers read it to give way to the API.
 */
export type ApiActivity = Int32Array;

/** How long after its last request the API still counts as busy: a steady stream has short gaps between requests. */
export const apiQuietMs = 250;

const clock31 = (now: number) => now % 2 ** 31;

export const createApiActivity = (): ApiActivity => new Int32Array(new SharedArrayBuffer(8));

export function noteRequestStarted(activity: ApiActivity, now = Date.now()): void {
  Atomics.add(activity, 0, 1);
  Atomics.store(activity, 1, clock31(now));
}

export function noteRequestEnded(activity: ApiActivity, now = Date.now()): void {
  Atomics.sub(activity, 0, 1);
  Atomics.store(activity, 1, clock31(now));
}

/** Whether the API is serving a request, or served one within `apiQuietMs`. */
export function apiBusy(activity: ApiActivity, now = Date.now()): boolean {
  const sinceLast = clock31(now) - Atomics.load(activity, 1);
  return Atomics.load(activity, 0) > 0 || (sinceLast + 2 ** 31) % 2 ** 31 < apiQuietMs;
}
