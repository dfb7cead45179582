import { describe, expect, it } from 'vitest';
import { type DueEntry, type DueIndex, dueRunner, maxStepsPerAdvance } from '#shared/billing/due-runner.ts';
import type { DueProcessor } from '#shared/billing/ports.ts';
import type { Scope } from '#shared/platform/types.ts';

const scope: Scope = { accountId: 'acct_due', livemode: false };

/**
 * Billing objects in memory: each has a due time (or none) on a clock (or the stack's). The index answers
 * from them, optionally lagging: `stale` entries are answered once more after the object moved.
 */
function memoryObjects() {
  const objects = new Map<string, { kind: string; id: string; clock: string | null; at: number | null }>();
  const stale: DueEntry[] = [];
  const keyOf = (kind: string, id: string) => `${kind}#${id}`;
  const entries = (clock: string | null, by: number) =>
    [...objects.values()]
      .filter((object) => object.clock === clock && object.at !== null && object.at <= by)
      .map((object) => ({ scope, kind: object.kind, id: object.id, at: object.at! }))
      .sort((a, b) => a.at - b.at || keyOf(a.kind, a.id).localeCompare(keyOf(b.kind, b.id)));
  const index: DueIndex & { reads: number } = {
    reads: 0,
    async stackDue(by) {
      return entries(null, by);
    },
    async earliestOnClock(_scope, clockId, by) {
      index.reads++;
      const lagging = stale.shift();
      if (lagging) return lagging;
      return entries(clockId, by)[0];
    },
    async dueNow(entry) {
      return objects.get(keyOf(entry.kind, entry.id))?.at ?? null;
    },
  };
  return {
    index,
    stale,
    put: (kind: string, id: string, clock: string | null, at: number | null) => objects.set(keyOf(kind, id), { kind, id, clock, at }),
    get: (kind: string, id: string) => objects.get(keyOf(kind, id))!,
    /**
     * A processor that, like the real ones, does the step due by `at` only if it is still due (a compare and
     * set on the due time: idempotent, safe to race), then moves the object to `next(at)`.
     */
    processor(kind: string, next: (at: number, id: string) => number | null, log: string[]): DueProcessor {
      return async (_scope, id, at) => {
        await Promise.resolve();
        const object = objects.get(keyOf(kind, id))!;
        if (object.at === null || object.at > at) return;
        const due = object.at;
        object.at = next(due, id);
        log.push(`${kind}:${id}@${due}`);
      };
    },
  };
}

describe('the due runner (in memory)', () => {
  it('Given objects due at interleaved times on a clock, When the clock advances, Then each is processed at its own time, in time order across objects', async () => {
    const memory = memoryObjects();
    const log: string[] = [];
    memory.put('subscription', 'sub_a', 'clock_1', 10);
    memory.put('invoice', 'in_b', 'clock_1', 20);
    memory.put('subscription', 'sub_other_clock', 'clock_2', 5);
    const runner = dueRunner({
      processors: {
        subscription: memory.processor('subscription', (at) => (at < 30 ? at + 20 : null), log),
        invoice: memory.processor('invoice', () => null, log),
      },
      index: memory.index,
    });

    const outcome = await runner.runClock(scope, 'clock_1', 100, Number.POSITIVE_INFINITY);

    expect(outcome).toBe('done');
    expect(log).toEqual(['subscription:sub_a@10', 'invoice:in_b@20', 'subscription:sub_a@30']);
    expect(memory.get('subscription', 'sub_other_clock').at).toBe(5);
  });

  it('Given an object due again within the advance, When it is processed, Then it runs again at its new time and what is due after the target stays due', async () => {
    const memory = memoryObjects();
    const log: string[] = [];
    memory.put('subscription', 'sub_monthly', 'clock_1', 100);
    const runner = dueRunner({ processors: { subscription: memory.processor('subscription', (at) => at + 100, log) }, index: memory.index });

    expect(await runner.runClock(scope, 'clock_1', 350, Number.POSITIVE_INFINITY)).toBe('done');

    expect(log).toEqual(['subscription:sub_monthly@100', 'subscription:sub_monthly@200', 'subscription:sub_monthly@300']);
    expect(memory.get('subscription', 'sub_monthly').at).toBe(400);
  });

  it('Given two runs of one advance racing, When both finish, Then every step was done exactly once', async () => {
    const memory = memoryObjects();
    const log: string[] = [];
    for (let n = 0; n < 5; n++) memory.put('subscription', `sub_${n}`, 'clock_1', 10 + n);
    const runner = dueRunner({ processors: { subscription: memory.processor('subscription', (at) => (at < 40 ? at + 10 : null), log) }, index: memory.index });

    const outcomes = await Promise.all([
      runner.runClock(scope, 'clock_1', 100, Number.POSITIVE_INFINITY),
      runner.runClock(scope, 'clock_1', 100, Number.POSITIVE_INFINITY),
    ]);

    expect(outcomes).toEqual(['done', 'done']);
    expect(log).toHaveLength(new Set(log).size);
    expect(new Set(log)).toEqual(
      new Set(
        [0, 1, 2, 3, 4].flatMap((n) => [10, 20, 30, 40].map((at) => `subscription:sub_${n}@${at + n}`).filter((step) => Number(step.split('@')[1]) <= 44)),
      ),
    );
  });

  it('Given a run that dies midway, When the next run starts, Then it goes on where the first stopped and no step is done twice', async () => {
    const memory = memoryObjects();
    const log: string[] = [];
    memory.put('subscription', 'sub_a', 'clock_1', 10);
    memory.put('invoice', 'in_b', 'clock_1', 20);
    memory.put('subscription', 'sub_c', 'clock_1', 30);
    const steps = { subscription: memory.processor('subscription', () => null, log), invoice: memory.processor('invoice', () => null, log) };
    let crashes = 1;
    const dying = dueRunner({
      processors: {
        ...steps,
        invoice: async (s, id, at) => {
          await steps.invoice(s, id, at);
          // The worker is killed after the invoice's write, before the run goes on.
          if (crashes-- > 0) throw new Error('killed');
        },
      },
      index: memory.index,
    });

    await expect(dying.runClock(scope, 'clock_1', 100, Number.POSITIVE_INFINITY)).rejects.toThrow('killed');
    expect(await dueRunner({ processors: steps, index: memory.index }).runClock(scope, 'clock_1', 100, Number.POSITIVE_INFINITY)).toBe('done');

    expect(log).toEqual(['subscription:sub_a@10', 'invoice:in_b@20', 'subscription:sub_c@30']);
  });

  it('Given a processor that leaves its object due at the same time, When the clock advances, Then the run stops as stuck instead of looping', async () => {
    const memory = memoryObjects();
    memory.put('invoice', 'in_stuck', 'clock_1', 10);
    let calls = 0;
    const runner = dueRunner({
      processors: {
        invoice: async () => {
          calls++;
        },
      },
      index: memory.index,
    });

    expect(await runner.runClock(scope, 'clock_1', 100, Number.POSITIVE_INFINITY)).toBe('stuck');
    expect(calls).toBe(1);
  });

  it('Given a processor that moves its object back in time, When the clock advances, Then the run stops as stuck', async () => {
    const memory = memoryObjects();
    const log: string[] = [];
    memory.put('invoice', 'in_back', 'clock_1', 50);
    const runner = dueRunner({ processors: { invoice: memory.processor('invoice', (at) => at - 10, log) }, index: memory.index });

    expect(await runner.runClock(scope, 'clock_1', 100, Number.POSITIVE_INFINITY)).toBe('stuck');
    expect(log).toEqual(['invoice:in_back@50']);
  });

  it('Given a processor that creeps forward forever, When the clock advances, Then the step limit stops it as stuck', async () => {
    const memory = memoryObjects();
    const log: string[] = [];
    memory.put('invoice', 'in_creep', 'clock_1', 1);
    const runner = dueRunner({ processors: { invoice: memory.processor('invoice', (at) => at + 1, log) }, index: memory.index });

    expect(await runner.runClock(scope, 'clock_1', 1_000_000, Number.POSITIVE_INFINITY)).toBe('stuck');
    expect(log).toHaveLength(maxStepsPerAdvance);
  });

  it('Given an index that still shows an entry its object has left, When the clock advances, Then the run waits for the index instead of calling it stuck', async () => {
    const memory = memoryObjects();
    const log: string[] = [];
    memory.put('subscription', 'sub_lag', 'clock_1', 10);
    const pauses: number[] = [];
    const runner = dueRunner({
      processors: {
        subscription: async (s, id, at) => {
          await memory.processor('subscription', () => null, log)(s, id, at);
          memory.stale.push({ scope, kind: 'subscription', id, at });
        },
      },
      index: memory.index,
      pause: async (millis) => {
        pauses.push(millis);
      },
    });

    expect(await runner.runClock(scope, 'clock_1', 100, Number.POSITIVE_INFINITY)).toBe('done');
    expect(log).toEqual(['subscription:sub_lag@10']);
    expect(pauses).toHaveLength(1);
  });

  it('Given an object of a kind no processor handles on the clock, When the clock advances, Then the run stops as stuck', async () => {
    const memory = memoryObjects();
    memory.put('invoice', 'in_orphan', 'clock_1', 10);
    const runner = dueRunner({ processors: {}, index: memory.index });

    expect(await runner.runClock(scope, 'clock_1', 100, Number.POSITIVE_INFINITY)).toBe('stuck');
  });

  it('Given the deadline has passed, When the clock advances, Then the run stops unfinished and leaves the work due', async () => {
    const memory = memoryObjects();
    const log: string[] = [];
    memory.put('subscription', 'sub_late', 'clock_1', 10);
    let now = 1_000;
    const runner = dueRunner({
      processors: { subscription: memory.processor('subscription', () => null, log) },
      index: memory.index,
      clock: () => now++,
    });

    expect(await runner.runClock(scope, 'clock_1', 100, 999)).toBe('unfinished');
    expect(log).toEqual([]);
    expect(memory.get('subscription', 'sub_late').at).toBe(10);
  });

  it('Given objects due on the stack clock, When the sweeper runs, Then those due by now go on the billing queue earliest first, and a kind without processor stays due, counted unhandled', async () => {
    const memory = memoryObjects();
    const dispatched: string[] = [];
    memory.put('subscription', 'sub_due', null, 900);
    memory.put('subscription', 'sub_later', null, 5_000);
    memory.put('invoice', 'in_first', null, 800);
    memory.put('unknown_kind', 'x_1', null, 950);
    const ran: string[] = [];
    const runner = dueRunner({
      processors: {
        subscription: async (_s, id) => {
          ran.push(id);
        },
        invoice: async (_s, id) => {
          ran.push(id);
        },
      },
      index: memory.index,
      clock: () => 1_000,
      dispatch: async (entries) => {
        dispatched.push(...entries.map((entry) => `${entry.kind}:${entry.id}`));
      },
    });

    expect(await runner.sweep()).toEqual({ dispatched: 2, unhandled: 1 });
    expect(dispatched).toEqual(['invoice:in_first', 'subscription:sub_due']);
    // Nothing runs in the sweep itself: the billing workers run what it put on the queue.
    expect(ran).toEqual([]);
  });

  it('Given a runner without dispatch, When it sweeps, Then it refuses instead of dropping the due work', async () => {
    const runner = dueRunner({ processors: {}, index: memoryObjects().index });
    await expect(runner.sweep()).rejects.toThrow(/dispatch/);
  });

  it('Given a message for one object, When it is run, Then its processor runs at the time given, and an unknown kind is refused', async () => {
    const seen: string[] = [];
    const runner = dueRunner({
      processors: {
        test_clock: async (_s, id, at) => {
          seen.push(`${id}@${at}`);
        },
      },
      index: memoryObjects().index,
    });

    expect(await runner.runOne('test_clock', scope, 'clock_1', 42)).toBe(true);
    expect(await runner.runOne('invoice', scope, 'in_1', 42)).toBe(false);
    expect(seen).toEqual(['clock_1@42']);
  });
});
