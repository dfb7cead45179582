import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { routes } from '#functions/routes.ts';
import { handler as unmatched } from '#functions/http/fallback.ts';
import { ClockChangeError, createLocalClock, parseDuration, requestedChange } from '#local/clock.ts';
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
