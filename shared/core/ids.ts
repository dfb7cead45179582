import { systemClock } from '#shared/core/clock.ts';
import { createHash, randomFillSync } from 'node:crypto';

/** Base62 in ASCII order, so that ids compare like the times they were made. */
const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(value: number, width: number): string {
  let out = '';
  let rest = value;
  while (rest > 0) {
    out = alphabet[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, '0');
}

/** Random bytes are drawn 4 KiB at a time (as node:crypto's randomUUID does): one call serves a hundred ids. */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    if (poolOffset === pool.length) {
      randomFillSync(pool);
      poolOffset = 0;
    }
    const byte = pool[poolOffset++]!;
    // 248 = 4 * 62: rejecting bytes above it keeps every character equally likely.
    if (byte < 248) out += alphabet[byte % 62];
  }
  return out;
}

let lastMillis = 0;
let sequence = 0;

/**
 * A new object id such as `we_1MzK8pQ0a7Xb…`: prefix, a version digit, the creation time in base62 and
 * a per-process sequence, then random characters. Ids of one owner sort by creation, which is what makes
 * "newest first" lists a plain reverse key-order query.
 */
export function newId(prefix: string, now: number = systemClock()): string {
  if (now === lastMillis) sequence++;
  else {
    lastMillis = now;
    sequence = 0;
  }
  return `${prefix}_1${base62(now, 8)}${base62(sequence % 3844, 2)}${randomBase62(14)}`;
}

/**
 * An id of `newId`'s shape whose characters after the time come from `seed` (SHA-256), not chance: the
 * same seed and time always give the same id. For records a retried step must find again, not duplicate.
 */
export function derivedId(prefix: string, at: number, seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  let tail = '';
  for (let i = 0; tail.length < 16; i++) tail += alphabet[digest[i]! % 62];
  return `${prefix}_1${base62(at, 8)}${tail}`;
}

/** Extracts the creation time (ms) encoded by `newId`, or undefined for ids it did not make. */
export function idTime(id: string): number | undefined {
  const match = /^[a-z]+_1([0-9A-Za-z]{8})/.exec(id);
  if (!match) return undefined;
  return [...match[1]!].reduce((acc, ch) => acc * 62 + alphabet.indexOf(ch), 0);
}

/**
 * The smallest id `newId(prefix)` could make at `millis`, and (with `upper`) a string above every id it
 * could make in that millisecond: sort-key bounds for "created between" queries on time-ordered ids.
 */
export function idBoundAt(prefix: string, millis: number, upper = false): string {
  return `${prefix}_1${base62(Math.max(0, millis), 8)}${upper ? '~' : ''}`;
}
