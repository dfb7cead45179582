import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { handler as unmatched } from '#functions/http/fallback.ts';
import { ClockChangeError, createLocalClock, parseDuration, replayTo, requestedChange, type ReplayPorts } from '#local/clock.ts';
import { localRateLimitEnv } from '#local/rate-limits.ts';
import { followLocalClock, systemClock } from '#shared/core/clock.ts';
import { apiGatewayEvent } from '../../support/api-gateway-event.ts';

const hour = 3_600_000;
const start = Date.UTC(2026, 0, 1);

/** A machine clock the test moves by hand. */
function machine() {
  let at = start;
  const clock = () => at;
  clock.pass = (millis: number) => (at += millis);
  return clock;
}

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof ClockChangeError) return { code: error.code, param: error.param };
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('the local clock', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('runs with the machine clock until moved, then ahead of it by what it was moved', () => {
    // Given a local clock on a machine clock
    const real = machine();
    const clock = createLocalClock(undefined, real);
    expect(clock.now()).toBe(start);

    // When it is advanced by a day, then the machine's time passes
    clock.apply({ advance: 24 * hour });
    real.pass(5000);

    // Then it is a day and five seconds later, and stays a day ahead
    expect(clock.now()).toBe(start + 24 * hour + 5000);
    expect(clock.describe()).toMatchObject({ object: 'local_clock', offset_seconds: 86_400, now: Math.floor((start + 24 * hour + 5000) / 1000) });
  });

  it('moves to an instant, and never back: an instant already passed leaves it where it is', () => {
    const real = machine();
    const clock = createLocalClock(undefined, real);
    clock.apply({ to: start + 2 * hour });
    expect(clock.now()).toBe(start + 2 * hour);
    clock.apply({ to: start + hour });
    expect(clock.now()).toBe(start + 2 * hour);
  });

  it('refuses to go backwards: a negative duration or an instant before now is a 400 naming the parameter', () => {
    const now = start + hour;
    expect(refusal(() => requestedChange({ advance: -1 }, now))).toEqual({ code: 'local_clock_backwards', param: 'advance' });
    expect(refusal(() => requestedChange({ advance: '-5m' }, now))).toEqual({ code: 'local_clock_backwards', param: 'advance' });
    expect(refusal(() => requestedChange({ to: new Date(now - 1000).toISOString() }, now))).toEqual({ code: 'local_clock_backwards', param: 'to' });
    expect(refusal(() => requestedChange({ to: (now - 1000) / 1000 }, now))).toEqual({ code: 'local_clock_backwards', param: 'to' });
  });

  it('reads durations and instants, and refuses anything else clearly', () => {
    expect(parseDuration(90)).toBe(90_000);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('1d12h')).toBe(36 * hour);
    expect(parseDuration('500ms')).toBe(500);
    expect(requestedChange({ advance: '24h' }, start)).toEqual({ advance: 24 * hour });
    expect(requestedChange({ to: '2026-01-02T00:00:00Z' }, start)).toEqual({ to: start + 24 * hour });
    expect(requestedChange({ to: start / 1000 + 60 }, start)).toEqual({ to: start + 60_000 });

    expect(refusal(() => requestedChange({ advance: '24 hours' }, start))).toEqual({ code: 'parameter_invalid', param: 'advance' });
    expect(refusal(() => requestedChange({ advance: '1000000d' }, start))).toEqual({ code: 'parameter_invalid', param: 'advance' });
    expect(refusal(() => requestedChange({ to: 'tomorrow' }, start))).toEqual({ code: 'parameter_invalid', param: 'to' });
    expect(refusal(() => requestedChange({ to: '99999-01-01' }, start))).toEqual({ code: 'parameter_invalid', param: 'to' });
    // Object ids carry their creation time in 8 base62 digits of milliseconds, which end late in 8888.
    expect(refusal(() => requestedChange({ to: '8888-12-03T00:00:00Z' }, start))).toEqual({ code: 'parameter_invalid', param: 'to' });
    expect(requestedChange({ to: '8888-12-01T00:00:00Z' }, start)).toEqual({ to: Date.parse('8888-12-01T00:00:00Z') });
    expect(refusal(() => requestedChange({ advance: '1h', to: '2027-01-01' }, start))).toEqual({ code: 'parameter_missing', param: null });
    expect(refusal(() => requestedChange({}, start))).toEqual({ code: 'parameter_missing', param: null });
    expect(refusal(() => requestedChange([], start))).toEqual({ code: 'parameter_missing', param: null });
    expect(refusal(() => requestedChange({ advance: '1h', by: 1 }, start))).toEqual({ code: 'parameter_unknown', param: 'by' });
  });

  it('keeps its offset in the data directory, so a restart does not take time back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'clock-'));
    dirs.push(dir);
    const real = machine();
    createLocalClock(join(dir, 'local-clock.json'), real).apply({ advance: 3 * hour });
    expect(createLocalClock(join(dir, 'local-clock.json'), real).now()).toBe(start + 3 * hour);
    expect(readdirSync(dir)).toEqual(['local-clock.json']);

    // A file that holds no offset stops the start, rather than taking the clock back to the machine's time
    writeFileSync(join(dir, 'local-clock.json'), '{"offset_ms": 108');
    expect(() => createLocalClock(join(dir, 'local-clock.json'), real)).toThrow(/delete it to start the clock/);
  });

  it('is the clock every rule reads once the stack follows it: systemClock runs ahead by the shared offset', () => {
    // Given the shared offset of a local clock, followed in this thread
    const clock = createLocalClock();
    followLocalClock(clock.offset);

    // When the clock is advanced
    clock.apply({ advance: 48 * hour });

    // Then systemClock, which the services and the table read, is two days ahead of the machine
    const ahead = systemClock() - Date.now();
    expect(ahead).toBeGreaterThanOrEqual(48 * hour - 50);
    expect(ahead).toBeLessThanOrEqual(48 * hour + 50);
  });
});

describe('a clock move replays the time it skips', () => {
  /** Due work as the stack keeps it: instants, each run once the clock reaches it, which may schedule more. */
  function dueWork(clock: ReturnType<typeof createLocalClock>, due: number[], follows: (ranAt: number) => number | undefined = () => undefined) {
    const pending = [...due];
    const ran: number[] = [];
    const ports: ReplayPorts = {
      nextDue: async (after) => pending.filter((at) => at > after).sort((a, b) => a - b)[0],
      runDue: async () => {
        const now = clock.now();
        for (const at of pending.filter((at) => at <= now).sort((a, b) => a - b)) {
          pending.splice(pending.indexOf(at), 1);
          ran.push(now);
          const next = follows(now);
          if (next !== undefined) pending.push(next);
        }
      },
    };
    return { ports, ran, pending };
  }

  it('Given retries due inside a 3 h jump, When the clock jumps, Then each runs at its own time and the next is scheduled from it', async () => {
    // Given a failing delivery retried 60 s, 30 min and 2 h after each failure (the first attempt just made)
    const real = machine();
    const clock = createLocalClock(undefined, real);
    const schedule = [60_000, 30 * 60_000, 2 * hour];
    let failures = 1;
    const work = dueWork(clock, [start + schedule[0]!], (ranAt) => {
      const delay = schedule[failures++];
      return delay === undefined ? undefined : ranAt + delay;
    });

    // When the clock jumps 3 h once
    const replay = await replayTo(clock, start + 3 * hour, work.ports);

    // Then every retry ran, each at its due time, each scheduled from the last one's time, and the clock is 3 h on
    expect(work.ran).toEqual([start + 60_000, start + 60_000 + 30 * 60_000, start + 60_000 + 30 * 60_000 + 2 * hour]);
    expect(work.pending).toEqual([]);
    expect(replay).toEqual({ steps: 4, complete: true });
    expect(clock.now()).toBe(start + 3 * hour);
  });

  it('Given work due after the jump, When the clock jumps, Then it stays due and the jump takes one step', async () => {
    const clock = createLocalClock(undefined, machine());
    const work = dueWork(clock, [start + 2 * hour]);
    expect(await replayTo(clock, start + hour, work.ports)).toEqual({ steps: 1, complete: true });
    expect(work.ran).toEqual([]);
    expect(work.pending).toEqual([start + 2 * hour]);
  });

  it('Given more due instants than the step budget, When the clock jumps a year, Then it stops stepping at the budget and ends at the target with complete false', async () => {
    // Given work due every day (a usage roll), rescheduled a day after each run
    const clock = createLocalClock(undefined, machine());
    const day = 24 * hour;
    const work = dueWork(clock, [start + day], (ranAt) => ranAt + day);

    // When the clock jumps a year with a budget of 10 steps
    const replay = await replayTo(clock, start + 365 * day, work.ports, 10);

    // Then 9 days ran at their own time, the last step went to the target and ran what was due there once
    expect(replay).toEqual({ steps: 10, complete: false });
    expect(work.ran.slice(0, 9)).toEqual(Array.from({ length: 9 }, (_, index) => start + (index + 1) * day));
    expect(work.ran.at(-1)).toBe(start + 365 * day);
    expect(clock.now()).toBe(start + 365 * day);
  });

  it('Given a moved clock, When it is reset, Then it runs with the machine clock again, and the reset is kept in the data directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'clock-reset-'));
    try {
      const real = machine();
      const file = join(dir, 'local-clock.json');
      const clock = createLocalClock(file, real);
      clock.apply({ advance: 5 * hour });
      expect(createLocalClock(file, real).now()).toBe(start + 5 * hour);

      clock.apply({ reset: true });

      expect(clock.now()).toBe(start);
      expect(clock.describe()).toMatchObject({ offset_seconds: 0 });
      expect(createLocalClock(file, real).now()).toBe(start);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads {"reset": true} as a reset, and refuses any other value or a reset with another change', () => {
    expect(requestedChange({ reset: true }, start)).toEqual({ reset: true });
    expect(refusal(() => requestedChange({ reset: 'yes' }, start))).toEqual({ code: 'parameter_invalid', param: 'reset' });
    expect(refusal(() => requestedChange({ reset: true, advance: '1h' }, start))).toEqual({ code: 'parameter_missing', param: null });
  });
});

describe('rate limits of the local stack', () => {
  it('Given no flag, Then the reference’s limits are off (0) except where a variable sets one, and the auth-failure guard stays', () => {
    const env = localRateLimitEnv(false, { RATE_LIMIT_PER_KEY_LIVE: '20' });
    expect(env).toMatchObject({
      RATE_LIMIT_PER_KEY_TEST: '0',
      RATE_LIMIT_METER_EVENTS_TEST: '0',
      RATE_LIMIT_SEARCH_TEST: '0',
      RATE_LIMIT_METER_EVENT_STREAM: '0',
    });
    expect(env).not.toHaveProperty('RATE_LIMIT_PER_KEY_LIVE');
    expect(env).not.toHaveProperty('RATE_LIMIT_AUTH_FAILURES');
  });

  it('Given --rate-limits, Then nothing is overridden: the reference’s figures are the defaults', () => {
    expect(localRateLimitEnv(true, {})).toEqual({});
  });
});

describe('outside the local stack', () => {
  it('has no /_local route in the route table, which the CDK stack deploys: on AWS the $default function answers 404', async () => {
    expect(routes.filter((route) => route.path.startsWith('/_local'))).toEqual([]);
    const answer = await unmatched(apiGatewayEvent({ method: 'POST', path: '/_local/clock', routeKey: '$default', body: '{"advance":"1d"}' }));
    expect(answer.statusCode).toBe(404);
    expect(JSON.parse(answer.body!)).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('moves no clock on AWS: only the local stack (local/) calls followLocalClock, the one way to set an offset', () => {
    const callers = execFileSync('git', ['grep', '-l', 'followLocalClock(', '--', 'shared', 'functions', 'infra', 'local', 'scripts'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((file) => file !== 'shared/core/clock.ts');
    expect(callers.length).toBeGreaterThan(0);
    expect(callers.filter((file) => !file.startsWith('local/'))).toEqual([]);
  });
});
