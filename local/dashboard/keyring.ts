import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hashApiKey, parseApiKey } from '#shared/platform/api-keys.ts';
import type { ApiKeyRecord } from '#shared/platform/types.ts';

export type Mode = 'test' | 'live';

/** A platform the dashboard can show: its account and the secret key of each mode it knows. */
export interface KnownPlatform {
  account: string;
  keys: Partial<Record<Mode, string>>;
  /** The platform `npm start` created (or was pinned to). */
  isDefault: boolean;
}

/** Where the secret keys of the platforms `npm run admin` created for the local stack are kept, in its data directory. */
export const platformKeysFileName = 'platform-keys.json';

/** Adds a secret key to the keys file (a new file renamed over the old; readable by its owner only). */
export function rememberPlatformKey(file: string, secretKey: string): void {
  const keys = readKeysFile(file);
  if (keys.includes(secretKey)) return;
  writeFileSync(`${file}.tmp`, `${JSON.stringify([...keys, secretKey], null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

function readKeysFile(file: string | undefined): string[] {
  if (!file || !existsSync(file)) return [];
  try {
    const keys = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return Array.isArray(keys) ? keys.filter((key): key is string => typeof key === 'string') : [];
  } catch {
    return [];
  }
}

export interface KeyringOptions {
  /** The default platform's account and its test secret key. */
  defaultAccount: string;
  defaultKey: string;
  /** The keys file `npm run admin` writes (`platformKeysFileName` in the data directory); none in memory. */
  file?: string;
  /** The key's record (through the platform store), to learn whose and which kind it is. */
  findKey: (hash: string) => Promise<ApiKeyRecord | undefined>;
  clock: () => number;
}

/**
 * The platforms the dashboard knows the keys of: the default one, the ones `npm run admin` created for this
 * stack, and the ones a developer added by pasting a secret key. Keys stay here, on the server: the pages
 * name platforms by account id and show keys masked unless asked.
 */
export function dashboardKeyring({ defaultAccount, defaultKey, file, findKey, clock }: KeyringOptions) {
  const added: string[] = [];

  /** Whose working secret key this is (read each time: a key may have been revoked), or undefined. */
  async function ownerOf(key: string): Promise<{ account: string; livemode: boolean } | undefined> {
    if (parseApiKey(key)?.kind !== 'secret') return undefined;
    const record = await findKey(hashApiKey(key));
    if (record?.kind !== 'secret' || (record.expiresAt !== undefined && record.expiresAt <= clock())) return undefined;
    return { account: record.accountId, livemode: record.livemode };
  }

  async function list(): Promise<KnownPlatform[]> {
    const keys = [defaultKey, ...readKeysFile(file), ...added];
    const platforms = new Map<string, KnownPlatform>();
    for (const key of new Set(keys)) {
      const owner = await ownerOf(key);
      if (!owner) continue;
      const platform = platforms.get(owner.account) ?? { account: owner.account, keys: {}, isDefault: owner.account === defaultAccount };
      platform.keys[owner.livemode ? 'live' : 'test'] ??= key;
      platforms.set(owner.account, platform);
    }
    return [...platforms.values()];
  }

  return {
    list,
    async get(account: string): Promise<KnownPlatform | undefined> {
      return (await list()).find((platform) => platform.account === account);
    },
    /** Adds a platform by one of its secret keys; undefined when the key is not a working secret key. */
    async add(key: string): Promise<KnownPlatform | undefined> {
      const owner = await ownerOf(key);
      if (!owner) return undefined;
      if (!added.includes(key)) added.push(key);
      if (file) rememberPlatformKey(file, key);
      return (await list()).find((platform) => platform.account === owner.account);
    },
  };
}

export type DashboardKeyring = ReturnType<typeof dashboardKeyring>;
