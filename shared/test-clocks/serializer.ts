import type * as z from 'zod';
import { unixSeconds } from '#shared/wire/timestamps.ts';
import type { TestClock } from './test-clock.ts';
import type { testClockObject, deletedTestClockObject } from './objects.ts';

/** The v1 `test_helpers.test_clock` object. */
export function serializeTestClock(clock: TestClock): z.input<typeof testClockObject> {
  return {
    id: clock.id,
    object: 'test_helpers.test_clock',
    created: unixSeconds(clock.created),
    deletes_after: unixSeconds(clock.deletesAfter),
    frozen_time: unixSeconds(clock.frozenTime),
    livemode: clock.scope.livemode,
    name: clock.name,
    status: clock.status,
    status_details:
      clock.status === 'advancing' && clock.targetFrozenTime !== null ? { advancing: { target_frozen_time: unixSeconds(clock.targetFrozenTime) } } : {},
  };
}

export const serializeDeletedTestClock = (id: string): z.input<typeof deletedTestClockObject> => ({ id, object: 'test_helpers.test_clock', deleted: true });
