import { describe, expect, it } from 'vitest';
import { readThrough } from '#shared/cache.ts';

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
});
