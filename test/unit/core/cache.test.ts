import { describe, expect, it } from 'vitest';
import { invalidating, memoized, readThrough } from '#shared/core/cache.ts';

/** A read that counts its calls and answers `value(key)`. */
function countingRead<T>(value: (key: string) => T) {
  const calls: string[] = [];
  const read = async (key: string) => {
    calls.push(key);
    return value(key);
  };
  return { calls, read };
}

describe('the read-through cache', () => {
  it('reuses a value for its window, then reads again', async () => {
    let now = 0;
    const { calls, read } = countingRead((key) => `${key}!`);
    const cached = readThrough(
      read,
      (key) => key,
      { ttlMillis: 1_000 },
      () => now,
    );

    expect(await cached('a')).toBe('a!');
    now = 999;
    expect(await cached('a')).toBe('a!');
    now = 1_000;
    expect(await cached('a')).toBe('a!');
    expect(calls).toEqual(['a', 'a']);
  });

  it('shares one read between concurrent callers of a key', async () => {
    const { calls, read } = countingRead((key) => key);
    const cached = readThrough(read, (key) => key, { ttlMillis: 1_000 });
    await Promise.all([cached('a'), cached('a'), cached('a')]);
    expect(calls).toEqual(['a']);
  });

  it('keeps neither missing values (by default) nor what `keeps` refuses, nor failures', async () => {
    const missing = countingRead(() => undefined);
    const cachedMissing = readThrough(missing.read, (key) => key, { ttlMillis: 1_000 });
    await cachedMissing('a');
    await cachedMissing('a');
    expect(missing.calls).toHaveLength(2);

    const absent = countingRead(() => false);
    const cachedAbsent = readThrough(absent.read, (key) => key, { ttlMillis: 1_000, keeps: (found) => found });
    await cachedAbsent('a');
    await cachedAbsent('a');
    expect(absent.calls).toHaveLength(2);

    let fail = true;
    const flaky = readThrough(
      async () => {
        if (fail) throw new Error('down');
        return 'up';
      },
      () => 'k',
      { ttlMillis: 1_000 },
    );
    await expect(flaky()).rejects.toThrow('down');
    fail = false;
    await expect(flaky()).resolves.toBe('up');
  });

  it('holds at most `maxEntries`, dropping the least recently used first', async () => {
    const { calls, read } = countingRead((key) => key);
    const cached = readThrough(read, (key) => key, { ttlMillis: 60_000, maxEntries: 2 });
    await cached('a');
    await cached('b');
    await cached('a');
    await cached('c');
    calls.length = 0;
    await cached('a');
    await cached('c');
    await cached('b');
    expect(calls).toEqual(['b']);
  });

  it('reads every time with a window of 0', async () => {
    const { calls, read } = countingRead((key) => key);
    const cached = readThrough(read, (key) => key, { ttlMillis: 0 });
    await cached('a');
    await cached('a');
    expect(calls).toHaveLength(2);
  });
  it('reads again when the kept value will not do for this call (older than the version the caller knows)', async () => {
    let stored = { version: 1 };
    const reads: number[] = [];
    const cached = readThrough(
      async (_id: string, _known: number) => {
        reads.push(stored.version);
        return stored;
      },
      (id) => id,
      { ttlMillis: 60_000, accepts: (found, _id, known) => found.version >= known },
    );
    expect(await cached('a', 1)).toEqual({ version: 1 });
    stored = { version: 2 };
    // A caller that knows of version 1 takes the kept copy; one that knows of version 2 reads, and that read is kept
    expect(await cached('a', 1)).toEqual({ version: 1 });
    expect(await cached('a', 2)).toEqual({ version: 2 });
    expect(await cached('a', 1)).toEqual({ version: 2 });
    expect(reads).toEqual([1, 2]);
  });

  it('forgets what a write through an invalidating store changed, in every cache of its topic, and keeps no read that overlapped it', async () => {
    // Given a store, two caches of it on one topic (two wirings in one process), and a cache on another topic
    const topic = `things-${Math.random()}`;
    const items = new Map<string, string>([['a', 'one']]);
    let reads = 0;
    const store = {
      get: async (id: string) => {
        reads++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        return items.get(id);
      },
      replace: async (id: string, value: string) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        items.set(id, value);
        return true;
      },
      delete: async (id: string) => items.delete(id),
    };
    const writer = invalidating(store, topic, ['replace', 'delete']);
    const first = readThrough(store.get, (id) => id, { ttlMillis: 60_000, invalidatedBy: [topic] });
    const second = readThrough(store.get, (id) => id, { ttlMillis: 60_000, invalidatedBy: [topic] });
    const unrelated = readThrough(store.get, (id) => id, { ttlMillis: 60_000, invalidatedBy: ['other'] });
    expect([await first('a'), await second('a'), await unrelated('a')]).toEqual(['one', 'one', 'one']);

    // When the item is replaced through the invalidating store
    await writer.replace('a', 'two');

    // Then both caches of the topic read it again; the other topic's cache keeps its copy for its window
    expect([await first('a'), await second('a'), await unrelated('a')]).toEqual(['two', 'two', 'one']);
    expect(reads).toBe(5);

    // And a read that overlapped a write is used by its caller but not kept
    const racing = first('a');
    await Promise.all([racing, writer.replace('a', 'three')]);
    expect(await first('a')).toBe('three');

    // And once deleted, it is gone (absence is not kept either)
    await writer.delete('a');
    expect(await first('a')).toBeUndefined();
  });

  it("memoizes a unit of work's reads, misses too", async () => {
    const { calls, read } = countingRead(() => undefined);
    const memo = memoized(read, (key) => key);
    await Promise.all([memo('a'), memo('a')]);
    await memo('a');
    await memo('b');
    expect(calls).toEqual(['a', 'b']);
  });
});
