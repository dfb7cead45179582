import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { hashApiKey, keyHint, parseApiKey } from '#shared/platform/api-keys.ts';
import type { ApiKeyRecord } from '#shared/platform/types.ts';

export type Mode = 'test' | 'live';

/** A platform the dashboard can show: its account and the secret key of each mode it knows. */
export interface KnownPlatform {
  account: string;
  keys: Partial<Record<Mode, string>>;
  /** The platform `npm start` created (or was pinned to). */
  isDefault: boolean;
  /** Hints of the keys of each mode that no longer work (rolled or revoked) and no working key replaced. */
  expired: Partial<Record<Mode, string>>;
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

  /** Whose secret key this is and whether it still works (read each time: a key may have been rolled or revoked), or undefined. */
  async function ownerOf(key: string): Promise<{ account: string; livemode: boolean; works: boolean } | undefined> {
    if (parseApiKey(key)?.kind !== 'secret') return undefined;
    const record = await findKey(hashApiKey(key));
    if (record?.kind !== 'secret') return undefined;
    return { account: record.accountId, livemode: record.livemode, works: record.expiresAt === undefined || record.expiresAt > clock() };
  }

  /**
   * Every platform one of the keys belongs to, with its working key of each mode. A platform whose keys were all
   * rolled or revoked stays listed (the switcher keeps it; its pages ask for the new key) with their hints.
   */
  async function list(): Promise<KnownPlatform[]> {
    const keys = [defaultKey, ...readKeysFile(file), ...added];
    const platforms = new Map<string, KnownPlatform>();
    for (const key of new Set(keys)) {
      const owner = await ownerOf(key);
      if (!owner) continue;
      const platform = platforms.get(owner.account) ?? { account: owner.account, keys: {}, isDefault: owner.account === defaultAccount, expired: {} };
      const mode: Mode = owner.livemode ? 'live' : 'test';
      if (owner.works) platform.keys[mode] ??= key;
      else platform.expired[mode] = keyHint(key);
      platforms.set(owner.account, platform);
    }
    for (const platform of platforms.values()) for (const mode of Object.keys(platform.keys) as Mode[]) delete platform.expired[mode];
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
      if (!owner?.works) return undefined;
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
