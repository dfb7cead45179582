import { createHash } from 'node:crypto';
import { randomBase62 } from '#shared/core/ids.ts';
import type { ApiKeyRecord, KeyKind } from './types.ts';

const keyPattern = /^(sk|pk)_(test|live)_[0-9A-Za-z]{16,247}$/;

export function generateApiKey(kind: KeyKind, livemode: boolean): string {
  return `${kind === 'secret' ? 'sk' : 'pk'}_${livemode ? 'live' : 'test'}_${randomBase62(48)}`;
}

/** The kind and mode a well-formed key declares, or undefined when it is not shaped like one of ours. */
export function parseApiKey(key: string): { kind: KeyKind; livemode: boolean } | undefined {
  const match = keyPattern.exec(key);
  if (!match) return undefined;
  return { kind: match[1] === 'sk' ? 'secret' : 'publishable', livemode: match[2] === 'live' };
}

/** Whether a stored key works at `now`: neither revoked nor past the grace of a roll. */
export const isLiveKey = (record: ApiKeyRecord | undefined, now: number): record is ApiKeyRecord =>
  record !== undefined && (record.expiresAt === undefined || record.expiresAt > now);

export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** What may be shown of a key: its prefix and last four characters. */
export function keyHint(key: string): string {
  const prefix = key.slice(0, key.indexOf('_', 3) + 1);
  return `${prefix}…${key.slice(-4)}`;
}
