import type { OwnedResource, OwnedResourceStore } from '#shared/platform/owned-resource.ts';
import { withOptimisticRetries } from '#shared/platform/owned-resource.ts';
import type { EventEmitter } from './emitter.ts';
import type { EventInput, EventOrigin } from './event.ts';

/**
 * Changes one stored object and emits the events of the change with it: read, apply, write conditionally
 * on the version together with the outbox, then enqueue; a concurrent writer makes it start over.
 * `apply` may refuse the change by throwing. `using`: a token the write uses up in its transaction, typed by the store's port so that
 * the event layer does not depend on tokens.
 */
export async function changeAndEmit<T extends OwnedResource>(
  ports: { repository: Pick<OwnedResourceStore<T>, 'replace'>; events: EventEmitter },
  origin: EventOrigin,
  load: () => Promise<T>,
  apply: (current: T) => T,
  eventsOf: (next: T, current: T) => EventInput[],
  using?: Parameters<OwnedResourceStore<T>['replace']>[2],
): Promise<T> {
  return withOptimisticRetries(async () => {
    const current = await load();
    const next = { ...apply(current), version: current.version + 1 };
    const outbox = ports.events.prepare(origin, eventsOf(next, current));
    if (!(await ports.repository.replace(next, outbox, using))) return undefined;
    await ports.events.dispatch(outbox);
    return next;
  });
}
