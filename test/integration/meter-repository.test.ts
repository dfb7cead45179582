import { describe, expect, it } from 'vitest';
import { meter as meterKeys } from '#shared/data/keys.ts';
import { dynamoMeterRepository } from '#shared/data/meter-repository.ts';
import type { Meter } from '#shared/meters/meter.ts';
import { newPlatform, stackTable } from '../support/stack.ts';

const meter = (scope: Meter['scope'], id: string, eventName: string): Meter => ({
  id,
  scope,
  created: 1,
  updated: 1,
  displayName: id,
  eventName,
  customerPayloadKey: 'service_customer_id',
  valuePayloadKey: 'value',
  formula: 'sum',
  eventTimeWindow: null,
  status: 'active',
  deactivatedAt: null,
  version: 1,
});

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

  it('remembers found meters for recentMillis, forgets one when this process writes it, and never remembers absence', async () => {
    // Given a repository that remembers found meters, and another one that reads the table every time
    const table = stackTable();
    const remembering = dynamoMeterRepository(table, { recentMillis: 60_000 });
    const scope = { accountId: (await newPlatform()).account, livemode: false };
    expect(await remembering.findByEventName(scope, 'remembered')).toBeUndefined();
    await remembering.create(meter(scope, 'mtr_remembered', 'remembered'));

    // Then a meter created after a miss is found at once
    const found = await remembering.findByEventName(scope, 'remembered');
    expect(found?.status).toBe('active');

    // When the item changes behind the process's back (another Lambda on AWS), the remembered copy answers
    await table.update({
      TableName: table.name,
      Key: { PK: meterKeys.pk(scope), SK: meterKeys.eventNameSk('remembered') },
      UpdateExpression: 'SET meter.displayName = :name',
      ExpressionAttributeValues: { ':name': 'changed elsewhere' },
    });
    expect((await remembering.findByEventName(scope, 'remembered'))?.displayName).toBe('mtr_remembered');
    expect((await dynamoMeterRepository(table).findByEventName(scope, 'remembered'))?.displayName).toBe('changed elsewhere');

    // When this process deactivates it, through any repository instance, the next lookup sees the change
    await dynamoMeterRepository(table).replace({ ...found!, status: 'inactive', deactivatedAt: 2, version: 2 });
    expect((await remembering.findByEventName(scope, 'remembered'))?.status).toBe('inactive');
  });
});
