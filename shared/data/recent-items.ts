import type { ItemKey } from './table.ts';

/**
 * Items this process read lately, for the few hot reads that may be a moment stale: the meter a meter
 * event names, and the destination a delivery goes to. Each costs a DynamoDB call per event otherwise.
 *
 * - Every write this process makes to such an item forgets it, before the write and after it. Local mode
 *   serves every handler in one process, so there a remembered item is never stale.
 * - A read that overlapped any such write is not remembered: it may have read the item as it was before.
 * - Across processes (separate Lambdas on AWS) a remembered item is trusted for `maxAgeMillis` at most.
 * - Only items found are remembered: an item created elsewhere is seen at once.
 */
const entries = new Map<string, { value: unknown; readAt: number }>();
let generation = 0;
/** Beyond this many entries, old ones are dropped (and all of them if that is not enough). */
const maxEntries = 10_000;
const pruneAgeMillis = 60_000;

/** The entry key of one item of one table. */
export const recentKey = (tableName: string, key: ItemKey): string => `${tableName}\u0000${key.PK}\u0000${key.SK}`;

export interface RecentRead<T> {
  /** How old a remembered copy may be; 0 always reads. */
  maxAgeMillis: number;
  /** Whether a remembered copy will do (e.g. it is at least the version the caller knows of). */
  accepts?: (value: T) => boolean;
}

/** The remembered copy when it is young enough and accepted, else `read()`, remembered when found. */
export async function readRecent<T>(key: string, { maxAgeMillis, accepts }: RecentRead<T>, read: () => Promise<T | undefined>): Promise<T | undefined> {
  if (maxAgeMillis <= 0) return read();
  const now = Date.now();
  const entry = entries.get(key);
  if (entry && now - entry.readAt < maxAgeMillis && (accepts?.(entry.value as T) ?? true)) return entry.value as T;
  const readFrom = generation;
  const value = await read();
  if (value !== undefined && readFrom === generation) remember(key, value, now);
  return value;
}

function remember(key: string, value: unknown, readAt: number): void {
  if (entries.size >= maxEntries) {
    for (const [old, entry] of entries) if (readAt - entry.readAt > pruneAgeMillis) entries.delete(old);
    if (entries.size >= maxEntries) entries.clear();
  }
  entries.set(key, { value, readAt });
}

/** Runs a write of the item, forgetting it before and after. */
export async function writeForgetting<T>(key: string, write: () => Promise<T>): Promise<T> {
  const forget = () => {
    generation++;
    entries.delete(key);
  };
  forget();
  try {
    return await write();
  } finally {
    forget();
  }
}
