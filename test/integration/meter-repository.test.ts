import { describe, expect, it } from 'vitest';
import { dynamoMeterRepository } from '#shared/data/meter-repository.ts';
import type { Meter } from '#shared/meters/meter.ts';
import { newPlatform, stackTable } from '../support/stack.ts';
import { meterFixture } from '../support/fakes.ts';

const meter = (scope: Meter['scope'], id: string, eventName: string): Meter => meterFixture({ scope, id, displayName: id, eventName });

describe('the meter repository', () => {
  it('finds a meter by its event name within its owner and mode only', async () => {
    // Given two owners with a meter of the same event name
    const repository = dynamoMeterRepository(stackTable());
    const mine = { accountId: (await newPlatform()).account, livemode: false };
    const theirs = { accountId: (await newPlatform()).account, livemode: false };
    await repository.create(meter(mine, 'mtr_mine', 'shared_name'));
    await repository.create(meter(theirs, 'mtr_theirs', 'shared_name'));

    // Then each finds its own, and nothing in the other mode or for another name
    expect((await repository.findByEventName(mine, 'shared_name'))?.id).toBe('mtr_mine');
    expect((await repository.findByEventName(theirs, 'shared_name'))?.id).toBe('mtr_theirs');
    expect(await repository.findByEventName({ ...mine, livemode: true }, 'shared_name')).toBeUndefined();
    expect(await repository.findByEventName(mine, 'other_name')).toBeUndefined();
    expect(await repository.create(meter(mine, 'mtr_again', 'shared_name'))).toBe(false);
  });
});
