import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readCapped, refusedCrossSitePost, sendJson } from './http-io.ts';

/**
 * The local stack's clock: the machine's clock plus an offset that grows as the clock is moved forward, and
 * goes back to 0 only on a reset (back to the machine's time). The offset lives in a
 * SharedArrayBuffer that every thread of the stack follows (`followLocalClock` in `shared/core/clock.ts` for the
 * handlers and workers, `Date.now` in the SQS emulator's thread), and in a file beside the data so that a
 * restart on the same data does not take time back.
 */
export interface LocalClock {
  /** Milliseconds ahead of the machine's clock, shared with the stack's threads (`Atomics.load(offset, 0)`). */
  readonly offset: BigInt64Array;
  now(): number;
  /**
   * Applies a change; only a reset makes the offset shrink (to 0): an instant already passed leaves the clock
   * where it is.
   */
  apply(change: ClockChange): void;
  /** What `GET /_local/clock` answers. */
  describe(): LocalClockView;
}

export interface LocalClockView {
  object: 'local_clock';
  /** Unix seconds, as the API's timestamps. */
  now: number;
  iso: string;
  /** How far the clock runs ahead of the machine's, in seconds. */
  offset_seconds: number;
}

/** Forward by a duration, forward to an instant (milliseconds), or back to the machine's time. */
export type ClockChange = { advance: number } | { to: number } | { reset: true };

/** A refused change of the clock, in the API's error shape (400). */
export class ClockChangeError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly param: string | null,
  ) {
    super(message);
  }
}

/** Where a stack with a data directory keeps its clock's offset. */
export const localClockFileName = 'local-clock.json';

/**
 * The offset a stack kept in `file` (0 when there is none). A file that holds no offset is an error, not
 * 0: starting from the machine's time would take the clock back.
 */
export function readClockOffset(file: string | undefined): number {
  if (!file || !existsSync(file)) return 0;
  let offset: unknown;
  try {
    offset = (JSON.parse(readFileSync(file, 'utf8')) as { offset_ms?: unknown }).offset_ms;
  } catch {
    offset = undefined;
  }
  if (typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0) return offset;
  throw new Error(`${file} does not hold the local clock's offset ({"offset_ms": <milliseconds>}); delete it to start the clock from the machine's time.`);
}

/** Writes the offset whole or not at all (a new file renamed over the old), so a crash never leaves half a file. */
function keepClockOffset(file: string, offset: number): void {
  writeFileSync(`${file}.new`, `${JSON.stringify({ offset_ms: offset })}\n`);
  renameSync(`${file}.new`, file);
}

/** The local clock; with `file`, it starts from the offset kept there and keeps every change in it. */
export function createLocalClock(file?: string, machineClock: () => number = Date.now): LocalClock {
  const offset = new BigInt64Array(new SharedArrayBuffer(8));
  Atomics.store(offset, 0, BigInt(readClockOffset(file)));
  const currentOffset = () => Number(Atomics.load(offset, 0));
  const now = () => machineClock() + currentOffset();
  return {
    offset,
    now,
    apply(change) {
      const current = currentOffset();
      const next = 'reset' in change ? 0 : 'advance' in change ? current + change.advance : Math.max(current, change.to - machineClock());
      Atomics.store(offset, 0, BigInt(next));
      if (file) keepClockOffset(file, next);
    },
    describe() {
      const at = now();
      return { object: 'local_clock', now: Math.floor(at / 1000), iso: new Date(at).toISOString(), offset_seconds: currentOffset() / 1000 };
    },
  };
}

const unitMillis: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
/** The last instant object ids can encode (8 base62 digits of milliseconds: late 8888). */
const lastInstant = 62 ** 8 - 1;
/** Farther than this is surely a typo (and would leave the range of dates). */
const maxAdvanceMillis = 100 * 365 * 86_400_000;

/** `90` (seconds), `"90s"`, `"15m"`, `"24h"`, `"1d12h"`, `"500ms"`: a duration in milliseconds. */
export function parseDuration(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) {
    if (value < 0) throw new ClockChangeError('The local clock only moves forward: `advance` must not be negative.', 'local_clock_backwards', 'advance');
    return checked(Math.round(value * 1000));
  }
  if (typeof value === 'string' && /^-/.test(value.trim())) {
    throw new ClockChangeError('The local clock only moves forward: `advance` must not be negative.', 'local_clock_backwards', 'advance');
  }
  if (typeof value !== 'string' || !/^(\d+(\.\d+)?(ms|s|m|h|d|w))+$/.test(value.trim())) {
    throw new ClockChangeError(
      'Invalid `advance`: give a number of seconds or a duration such as "90s", "15m", "24h" or "1d12h".',
      'parameter_invalid',
      'advance',
    );
  }
  let total = 0;
  for (const [, amount, , unit] of value.trim().matchAll(/(\d+(\.\d+)?)(ms|s|m|h|d|w)/g)) total += Number(amount) * unitMillis[unit!]!;
  return checked(Math.round(total));
}

function checked(millis: number): number {
  if (millis > maxAdvanceMillis) throw new ClockChangeError('Invalid `advance`: at most 100 years at a time.', 'parameter_invalid', 'advance');
  return millis;
}

/** An ISO 8601 date-time (`2027-01-01T00:00:00Z`) or Unix seconds: an instant in milliseconds. */
export function parseInstant(value: unknown): number {
  const instant =
    typeof value === 'number' && Number.isFinite(value)
      ? Math.round(value * 1000)
      : typeof value === 'string' && /^\d{4}-\d{2}-\d{2}/.test(value)
        ? Date.parse(value)
        : Number.NaN;
  if (!Number.isSafeInteger(instant) || Number.isNaN(new Date(instant).getTime())) {
    throw new ClockChangeError('Invalid `to`: give an ISO 8601 date-time such as "2027-01-01T00:00:00Z" or Unix seconds.', 'parameter_invalid', 'to');
  }
  return instant;
}

/**
 * The change a `POST /_local/clock` body asks for, `{"advance": <duration>}`, `{"to": <instant>}` or
 * `{"reset": true}` (one of them), checked against `now`.
 */
export function requestedChange(body: unknown, now: number): ClockChange {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ClockChangeError(
      'The body must be a JSON object: {"advance": "24h"}, {"to": "2027-01-01T00:00:00Z"} or {"reset": true}.',
      'parameter_missing',
      null,
    );
  }
  const { advance, to, reset, ...unknown } = body as Record<string, unknown>;
  const extra = Object.keys(unknown)[0];
  if (extra !== undefined) throw new ClockChangeError(`Received unknown parameter: ${extra}`, 'parameter_unknown', extra);
  if ([advance, to, reset].filter((given) => given !== undefined).length !== 1) {
    throw new ClockChangeError('Give exactly one of `advance` (a duration), `to` (an instant) and `reset` (true).', 'parameter_missing', null);
  }
  if (reset !== undefined) {
    if (reset !== true) throw new ClockChangeError('Invalid `reset`: the only value is true (back to the machine’s time).', 'parameter_invalid', 'reset');
    return { reset: true };
  }
  const instant = advance !== undefined ? now + parseDuration(advance) : parseInstant(to);
  if (instant > lastInstant)
    throw new ClockChangeError(
      `The local clock goes up to ${new Date(lastInstant).toISOString()}, the last instant object ids can encode.`,
      'parameter_invalid',
      advance !== undefined ? 'advance' : 'to',
    );
  if (advance !== undefined) return { advance: instant - now };
  if (instant < now) {
    throw new ClockChangeError(
      `The local clock only moves forward: ${new Date(instant).toISOString()} is before its current time, ${new Date(now).toISOString()}.`,
      'local_clock_backwards',
      'to',
    );
  }
  return { to: instant };
}

/**
 * Most steps one move takes through the due instants it passes (each step: the clock to the next instant, what
 * is due run, the stack quiet again; about 128 due-index Queries and a run of the scheduled jobs, well under a
 * second locally). Past it, the rest of the move is one step: what falls due in it runs at its end, as before
 * replays, and the answer says `complete: false`. A year of a few monthly subscriptions fits; a year of daily
 * usage rolls does not (move a month at a time to replay such a year exactly).
 */
export const maxReplaySteps = 400;

/** What a replay needs from the stack: where the next due work is, and a way to let what is due happen. */
export interface ReplayPorts {
  /** The earliest instant after `after` at which work falls due (a delayed queue message, a due-index entry), if any. */
  nextDue(after: number): Promise<number | undefined>;
  /** Runs what is due at the clock's current time, and resolves once the stack is quiet again. */
  runDue(): Promise<void>;
}

/** What a move did: the steps it took, and whether each due instant it passed was a step of its own. */
export interface Replay {
  steps: number;
  complete: boolean;
}

/**
 * Moves `clock` forward to `target` through every instant at which work falls due in between, in time order:
 * the clock goes to the next such instant, what is due then runs (stamped with that time, scheduling what
 * follows from it), the stack settles, and so on; the last step goes to `target`. At most `maxSteps` steps.
 */
export async function replayTo(clock: LocalClock, target: number, ports: ReplayPorts, maxSteps = maxReplaySteps): Promise<Replay> {
  for (let steps = 1; ; steps++) {
    const now = clock.now();
    const next = steps < maxSteps && now < target ? await ports.nextDue(now) : undefined;
    const last = next === undefined || next >= target;
    clock.apply({ to: last ? target : Math.max(next, now + 1) });
    await ports.runDue();
    if (last) return { steps, complete: steps < maxSteps };
  }
}

/** How the stack carries out a change: moving forward replays what falls due; a reset goes back to the machine's time. */
export type ClockMover = (change: ClockChange, target: number) => Promise<Replay | undefined>;

const invalid = (response: ServerResponse, status: number, code: string, message: string, param: string | null = null) =>
  sendJson(response, status, { error: { type: 'invalid_request_error', code, message, param } });

/**
 * `GET /_local/clock` answers the clock; `POST /_local/clock` with `{"advance": …}` or `{"to": …}` has `move`
 * replay the time up to the new instant (answering once everything due in it has happened, with the steps it
 * took as `replay`), and `{"reset": true}` takes it back to the machine's time. Changes run one at a time.
 * The caller has already refused foreign `Host` names.
 */
export function localClockRoute(clock: LocalClock, move: ClockMover) {
  let changing: Promise<unknown> = Promise.resolve();
  return (request: IncomingMessage, response: ServerResponse, path: string): boolean => {
    if (path !== '/_local/clock') return false;
    if (request.method === 'GET') {
      sendJson(response, 200, clock.describe());
      return true;
    }
    if (request.method !== 'POST') {
      invalid(response, 405, 'method_not_allowed', 'The local clock takes GET (read it) and POST (move it forward, or reset it).');
      return true;
    }
    // A web page the developer visits cannot move the clock.
    if (refusedCrossSitePost(request, response)) return true;
    const work = (async () => {
      const body = await readCapped(request, 4096);
      let parsed: unknown;
      try {
        parsed = body === undefined ? undefined : JSON.parse(body.toString('utf8'));
      } catch {
        return invalid(response, 400, 'parameter_invalid', 'The body is not valid JSON.');
      }
      const run = changing.then(async () => {
        const now = clock.now();
        const change = requestedChange(parsed, now);
        const target = 'advance' in change ? now + change.advance : 'to' in change ? change.to : now;
        return move(change, target);
      });
      changing = run.catch(() => undefined);
      try {
        const replay = await run;
        sendJson(response, 200, { ...clock.describe(), ...(replay ? { replay } : {}) });
      } catch (error) {
        if (!(error instanceof ClockChangeError)) throw error;
        invalid(response, 400, error.code, error.message, error.param);
      }
    })();
    work.catch((error: unknown) => {
      console.error('Moving the local clock failed', error);
      if (!response.headersSent) invalid(response, 500, 'api_error', 'Moving the local clock failed; see the stack’s output.');
    });
    return true;
  };
}
