import { describe, expect, it } from 'vitest';
import { billingWorker } from '#shared/billing/billing-worker.ts';
import { dueMessageOf } from '#shared/billing/due-message.ts';
import { queueSeal } from '#shared/messaging/message-seal.ts';
import type { Scope } from '#shared/platform/types.ts';

const scope: Scope = { accountId: 'acct_billing', livemode: false };
const secret = async () => Buffer.alloc(32, 7);
const seal = queueSeal(secret, 'billing');

function setup(fail = new Set<string>()) {
  const runs: string[] = [];
  const work = billingWorker({
    runner: {
      runOne: async (kind, runScope, id, at) => {
        if (fail.has(id)) throw new Error('processor failed');
        runs.push(`${kind}:${runScope.accountId}:${id}@${at}`);
        return kind === 'test_clock';
      },
    },
    seal,
    clock: () => 42,
  });
  return { work, runs };
}

describe('the billing queue worker', () => {
  it('Given a sealed pointer, When it is handled, Then the object runs now and the message is done', async () => {
    const { work, runs } = setup();
    const [body] = await seal.seal([dueMessageOf('test_clock', scope, 'clock_1')]);

    expect(await work([{ messageId: 'm1', body: body! }])).toEqual([]);
    expect(runs).toEqual(['test_clock:acct_billing:clock_1@42']);
  });

  it('Given messages the service did not seal (plain, sealed for another queue, altered), When they are handled, Then nothing runs and none is retried', async () => {
    const { work, runs } = setup();
    const pointer = dueMessageOf('test_clock', scope, 'clock_1');
    const [forOtherQueue] = await queueSeal(secret, 'deliveries').seal([pointer]);
    const [sealed] = await seal.seal([pointer]);
    const altered = sealed!.replace('clock_1', 'clock_2');

    expect(
      await work([
        { messageId: 'plain', body: pointer },
        { messageId: 'other', body: forOtherQueue! },
        { messageId: 'altered', body: altered },
      ]),
    ).toEqual([]);
    expect(runs).toEqual([]);
  });

  it('Given sealed bodies that are not pointers, When they are handled, Then they are dropped', async () => {
    const { work, runs } = setup();
    const bodies = await seal.seal([
      'not json',
      JSON.stringify({ kind: 'refund', scope, id: 'x' }),
      JSON.stringify({ kind: 'test_clock', scope, id: 'x', extra: 1 }),
    ]);

    expect(await work(bodies.map((body, index) => ({ messageId: `m${index}`, body })))).toEqual([]);
    expect(runs).toEqual([]);
  });

  it('Given a run that fails, When the batch is handled, Then only its message is answered for redelivery', async () => {
    const { work, runs } = setup(new Set(['clock_bad']));
    const bodies = await seal.seal([dueMessageOf('test_clock', scope, 'clock_bad'), dueMessageOf('test_clock', scope, 'clock_good')]);

    expect(await work(bodies.map((body, index) => ({ messageId: `m${index}`, body })))).toEqual(['m0']);
    expect(runs).toEqual(['test_clock:acct_billing:clock_good@42']);
  });
});
