import { systemClock } from '#shared/core/clock.ts';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hashApiKey, keyHint, parseApiKey } from '#shared/platform/api-keys.ts';
import { createPlatform, type CreatedPlatform } from '#shared/platform/platform-service.ts';
import type { PlatformStore } from '#shared/platform/types.ts';

export interface DefaultPlatformOptions {
  /** Where the generated keys are remembered between runs (the table keeps only hashes). */
  file?: string;
  /** `SERVICE_SECRET_KEY` / `SERVICE_PUBLISHABLE_KEY`: pin the default platform's test keys. */
  secretKey?: string;
  publishableKey?: string;
}

async function ownerOf(store: PlatformStore, key: string | undefined): Promise<string | undefined> {
  return key ? (await store.findApiKey(hashApiKey(key)))?.accountId : undefined;
}

/**
 * The platform the local stack starts with: the one the pinned keys belong to, else the one remembered
 * in `file`, else a new one (remembered in `file`). Pinned keys that do not exist yet are created.
 */
export async function ensureDefaultPlatform(store: PlatformStore, options: DefaultPlatformOptions): Promise<CreatedPlatform> {
  const { file, secretKey, publishableKey } = options;
  for (const [key, kind] of [
    [secretKey, 'secret'],
    [publishableKey, 'publishable'],
  ] as const) {
    const shape = key === undefined ? undefined : parseApiKey(key);
    if (key !== undefined && (shape?.kind !== kind || shape.livemode)) {
      throw new Error(`The pinned ${kind} key must be a test-mode key (${kind === 'secret' ? 'sk' : 'pk'}_test_ followed by 16+ letters and digits).`);
    }
  }
  const saved: CreatedPlatform | undefined = file && existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;

  const pinnedOwners = [await ownerOf(store, secretKey), await ownerOf(store, publishableKey)].filter(Boolean);
  if (new Set(pinnedOwners).size > 1) throw new Error('SERVICE_SECRET_KEY and SERVICE_PUBLISHABLE_KEY belong to different accounts.');
  let platform: CreatedPlatform | undefined;
  const pinnedAccount = pinnedOwners[0];
  if (pinnedAccount) {
    const now = systemClock();
    for (const [key, kind] of [
      [secretKey, 'secret'],
      [publishableKey, 'publishable'],
    ] as const) {
      if (key && !(await ownerOf(store, key))) {
        await store.createApiKey({ hash: hashApiKey(key), accountId: pinnedAccount, livemode: false, kind, hint: keyHint(key), created: now });
      }
    }
    const remembered = saved?.account === pinnedAccount ? saved : undefined;
    platform = {
      account: pinnedAccount,
      secret_key: secretKey ?? remembered?.secret_key ?? '(not pinned)',
      publishable_key: publishableKey ?? remembered?.publishable_key ?? '(not pinned)',
    };
  } else if (!secretKey && !publishableKey && saved && (await ownerOf(store, saved.secret_key)) === saved.account) {
    platform = saved;
  } else {
    platform = await createPlatform(store, { secretKey, publishableKey });
  }
  if (file) writeFileSync(file, `${JSON.stringify(platform, null, 2)}\n`, { mode: 0o600 });
  return platform;
}
