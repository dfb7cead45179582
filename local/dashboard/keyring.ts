import { appendFileSync, existsSync, readFileSync } from 'node:fs';
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

/**
 * Where the secret keys of the platforms `npm run admin` created for the local stack are kept, in its data
 * directory: one per line, each appended whole (so concurrent writers never lose one another's), readable by
 * its owner only.
 */
export const platformKeysFileName = 'platform-keys';

/** Most keys read from the file (each is looked up, cached, on every page). */
const maxFileKeys = 200;
const isSecretKey = (line: string) => parseApiKey(line)?.kind === 'secret';

/** Adds a secret key to the keys file unless it is there already. */
export function rememberPlatformKey(file: string, secretKey: string): void {
  if (!isSecretKey(secretKey) || readKeysFile(file).includes(secretKey)) return;
  appendFileSync(file, `${secretKey}\n`, { mode: 0o600 });
}

/** The keys in the file (lines that are not a key are skipped), the first `maxFileKeys`. */
function readKeysFile(file: string | undefined): string[] {
  if (!file || !existsSync(file)) return [];
  const lines = readFileSync(file, 'utf8').split('\n');
  return [...new Set(lines.map((line) => line.trim()).filter(isSecretKey))].slice(0, maxFileKeys);
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
      try {
        if (file) rememberPlatformKey(file, key);
      } catch (error) {
        // Kept for this run all the same; the next run will not know it.
        console.warn(`The dashboard could not keep the key in ${file}: ${(error as Error).message}`);
      }
      return (await list()).find((platform) => platform.account === owner.account);
    },
  };
}

export type DashboardKeyring = ReturnType<typeof dashboardKeyring>;
