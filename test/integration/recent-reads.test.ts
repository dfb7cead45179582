import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { makeTable } from '#shared/data/table.ts';
import { ownedResourceStore } from '#shared/data/owned-resources.ts';
import type { OwnedResource } from '#shared/owned-resource.ts';
import { stackClient, stackTable } from '../support/stack.ts';

interface Thing extends OwnedResource {
  url: string;
}

/** A store of test objects on the stack's table, counting the calls it makes, and a plain one beside it. */
function stores() {
  const real = stackTable();
  let calls = 0;
  const client = stackClient();
  const counting = {
    send: (command: never) => {
      calls++;
      return client.send(command);
    },
  } as unknown as DynamoDBClient;
  const prefix = `RECENT#${Date.now()}#${Math.random()}`;
  const keys = { pk: () => prefix, sk: (id: string) => `THING#${id}`, skPrefix: () => 'THING#' };
  return {
    real,
    prefix,
    hot: ownedResourceStore<Thing>(makeTable(counting, real.name), { entity: 'thing', keys }),
    plain: ownedResourceStore<Thing>(real, { entity: 'thing', keys }),
    calls: () => calls,
  };
}

const scope = { accountId: 'acct_recent', livemode: false };
const recently = (minVersion = 0) => ({ recent: { maxAgeMillis: 60_000, accepts: (thing: Thing) => thing.version >= minVersion } });

describe('recent reads of owned resources', () => {
  it('answer from a copy read lately, until the copy is older than the version the caller knows of', async () => {
    // Given a stored object, read once with `recent`
    const { hot, plain, real, prefix, calls } = stores();
    await plain.create({ id: 'a', scope, version: 1, url: 'https://one.example' });
    expect((await hot.get(scope, 'a', recently(1)))?.url).toBe('https://one.example');
    expect(calls()).toBe(1);

    // When another process changes it (a write this process did not make)
    await real.update({
      TableName: real.name,
      Key: { PK: prefix, SK: 'THING#a' },
      UpdateExpression: 'SET #url = :url, version = :two',
      ExpressionAttributeNames: { '#url': 'url' },
      ExpressionAttributeValues: { ':url': 'https://two.example', ':two': 2 },
    });

    // Then a recent read still answers from the copy, with no call, while the copy is new enough
    expect((await hot.get(scope, 'a', recently(1)))?.url).toBe('https://one.example');
    expect(calls()).toBe(1);
    // And a caller that knows of version 2 gets a fresh read, which is remembered in turn
    expect((await hot.get(scope, 'a', recently(2)))?.url).toBe('https://two.example');
    expect((await hot.get(scope, 'a', recently(2)))?.url).toBe('https://two.example');
    expect(calls()).toBe(2);
    // And a plain get always reads
    expect((await hot.get(scope, 'a'))?.url).toBe('https://two.example');
    expect(calls()).toBe(3);
  });

  it('forget an object when this process writes it, through any store, and never remember absence', async () => {
    // Given an object remembered by a recent read
    const { hot, plain, calls } = stores();
    expect(await hot.get(scope, 'b', recently())).toBeUndefined();
    await plain.create({ id: 'b', scope, version: 1, url: 'https://one.example' });
    // Then a miss is not remembered: the created object is found at once
    expect((await hot.get(scope, 'b', recently()))?.url).toBe('https://one.example');

    // When this process replaces it through another store instance, the next recent read sees the change
    expect(await plain.replace({ id: 'b', scope, version: 2, url: 'https://two.example' })).toBe(true);
    expect((await hot.get(scope, 'b', recently()))?.url).toBe('https://two.example');

    // And once it is deleted, it is gone for recent reads too
    const before = calls();
    expect(await plain.delete(scope, 'b')).toBe(true);
    expect(await hot.get(scope, 'b', recently())).toBeUndefined();
    expect(calls()).toBe(before + 1);
  });

  it('do not remember a read that overlapped a write of this process', async () => {
    // Given a stored object and a recent read that starts before this process writes it
    const { hot, plain, calls } = stores();
    await plain.create({ id: 'c', scope, version: 1, url: 'https://one.example' });
    const racing = hot.get(scope, 'c', recently());
    const write = plain.replace({ id: 'c', scope, version: 2, url: 'https://two.example' });
    await Promise.all([racing, write]);

    // Then whatever the racing read saw, the next recent read reads again and sees the write
    const before = calls();
    expect((await hot.get(scope, 'c', recently()))?.url).toBe('https://two.example');
    expect(calls()).toBe(before + 1);
  });
});
