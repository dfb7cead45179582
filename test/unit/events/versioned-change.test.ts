import { describe, expect, it } from 'vitest';
import { RateLimitError } from '#shared/core/errors.ts';
import { eventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { changeAndEmit } from '#shared/events/versioned-change.ts';

type Thing = { id: string; scope: { accountId: string; livemode: boolean }; version: number; name: string };
const scope = { accountId: 'acct_1', livemode: false };
const origin: EventOrigin = { scope, platformId: 'acct_1', request: null, apiVersion: '2026-10-28.endive' };

function setup(conflicts: number) {
  let stored: Thing = { id: 'x_1', scope, version: 1, name: 'a' };
  let enqueued = 0;
  let failuresLeft = conflicts;
  const events = eventEmitter({
    store: { commit: async () => undefined },
    queue: { enqueue: async () => void enqueued++ },
  });
  const repository = {
    replace: async (next: Thing) => {
      if (failuresLeft-- > 0) {
        stored = { ...stored, version: stored.version + 1 };
        return false;
      }
      if (next.version !== stored.version + 1) return false;
      stored = next;
      return true;
    },
  };
  const change = (name: string) =>
    changeAndEmit(
      { repository, events },
      origin,
      async () => stored,
      (current) => ({ ...current, name }),
      (next) => [
        {
          kind: 'snapshot',
          type: 'customer.updated',
          object: { id: next.id, object: 'customer' },
          relatedObject: { id: next.id, type: 'customer', url: '/v1/customers/x_1' },
        },
      ],
    );
  return { change, stored: () => stored, enqueued: () => enqueued };
}

describe('changing a stored object with its events', () => {
  it('retries on a version conflict, and enqueues the fan-out of the write that held once', async () => {
    const { change, stored, enqueued } = setup(2);
    const next = await change('b');
    expect(next).toMatchObject({ name: 'b', version: 4 });
    expect(stored()).toEqual(next);
    expect(enqueued()).toBe(1);
  });

  it('gives up with a 429 lock_timeout when writers keep colliding', async () => {
    const { change } = setup(100);
    await expect(change('c')).rejects.toThrow(RateLimitError);
  });
});
