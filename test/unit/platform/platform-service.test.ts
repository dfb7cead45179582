import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '#shared/core/errors.ts';
import { idTime } from '#shared/core/ids.ts';
import { hashApiKey } from '#shared/platform/api-keys.ts';
import { createPlatform, issueApiKeys, revokeApiKey, rollApiKey } from '#shared/platform/platform-service.ts';
import { fakePlatformStore } from '../../support/fakes.ts';

/** 15 June 2026, noon UTC. */
const now = Date.UTC(2026, 5, 15, 12);
const hour = 3_600_000;

/** A well-formed key of our shape: `prefix` then `body` (16 letters and digits unless told). */
const keyOf = (prefix: string, body = 'a1B2c3D4e5F6g7H8') => `${prefix}${body}`;

function setup() {
  const store = fakePlatformStore();
  /** The stored record of a key, looked up the way authentication does: by the key's SHA-256. */
  const stored = (key: string) => store.keys.get(hashApiKey(key));
  return { store, stored };
}

/** The refusal the operator sees: an InvalidRequestError with this code (and, when given, a message containing this text). */
const refusal = (code: string, message?: string) =>
  expect.objectContaining({ name: 'InvalidRequestError', code, ...(message === undefined ? {} : { message: expect.stringContaining(message) }) });

describe('platform (service with the shared fakes)', () => {
  describe('createPlatform', () => {
    it('creates a platform account (no platform above it, no mode, accounts v2 on) made at the injected time', async () => {
      const { store } = setup();

      const platform = await createPlatform(store, {}, now);

      expect(platform.account).toMatch(/^acct_/);
      expect(idTime(platform.account)).toBe(now);
      expect(store.accounts.get(platform.account)).toEqual({ id: platform.account, platformId: null, features: { accountsV2: true }, created: now });
      expect(store.accounts.get(platform.account)).not.toHaveProperty('livemode');
    });

    it('turns accounts v2 off when asked', async () => {
      const { store } = setup();

      const platform = await createPlatform(store, { accountsV2: false }, now);

      expect(store.accounts.get(platform.account)?.features).toEqual({ accountsV2: false });
    });

    it('issues one secret and one publishable test-mode key by default, each 48 random letters and digits', async () => {
      const { store, stored } = setup();

      const platform = await createPlatform(store, {}, now);

      expect(Object.keys(platform).sort()).toEqual(['account', 'publishable_key', 'secret_key']);
      expect(platform.secret_key).toMatch(/^sk_test_[0-9A-Za-z]{48}$/);
      expect(platform.publishable_key).toMatch(/^pk_test_[0-9A-Za-z]{48}$/);
      expect(stored(platform.secret_key)).toMatchObject({ accountId: platform.account, kind: 'secret', livemode: false, created: now });
      expect(stored(platform.publishable_key)).toMatchObject({ accountId: platform.account, kind: 'publishable', livemode: false, created: now });
      expect(await store.listApiKeys(platform.account)).toHaveLength(2);
    });

    it('issues live-mode keys when asked, stored as live', async () => {
      const { store, stored } = setup();

      const platform = await createPlatform(store, { livemode: true }, now);

      expect(platform.secret_key).toMatch(/^sk_live_[0-9A-Za-z]{48}$/);
      expect(platform.publishable_key).toMatch(/^pk_live_[0-9A-Za-z]{48}$/);
      expect(stored(platform.secret_key)).toMatchObject({ kind: 'secret', livemode: true });
      expect(stored(platform.publishable_key)).toMatchObject({ kind: 'publishable', livemode: true });
    });

    it('stores only the SHA-256 of each key and a hint of its prefix and last four characters, never the key', async () => {
      const { store } = setup();

      const platform = await createPlatform(store, {}, now);

      const records = [...store.keys.values()];
      expect(records.map((record) => record.hash).sort()).toEqual([hashApiKey(platform.secret_key), hashApiKey(platform.publishable_key)].sort());
      expect(records.every((record) => /^[0-9a-f]{64}$/.test(record.hash))).toBe(true);
      expect(records.map((record) => record.hint).sort()).toEqual([
        `pk_test_…${platform.publishable_key.slice(-4)}`,
        `sk_test_…${platform.secret_key.slice(-4)}`,
      ]);
      const everything = JSON.stringify({ keys: records, accounts: [...store.accounts.values()] });
      expect(everything).not.toContain(platform.secret_key);
      expect(everything).not.toContain(platform.publishable_key);
      expect(everything).not.toContain(platform.secret_key.slice(8, 24));
    });

    it('makes a different account and different keys for every platform', async () => {
      const { store } = setup();

      const first = await createPlatform(store, {}, now);
      const second = await createPlatform(store, {}, now);

      expect(second.account).not.toBe(first.account);
      expect(second.secret_key).not.toBe(first.secret_key);
      expect(second.publishable_key).not.toBe(first.publishable_key);
      expect(store.keys.size).toBe(4);
    });

    it('uses the keys it is given, when they are of the right kind and mode', async () => {
      const { store, stored } = setup();
      const secretKey = keyOf('sk_live_');
      const publishableKey = keyOf('pk_live_');

      const platform = await createPlatform(store, { livemode: true, secretKey, publishableKey }, now);

      expect(platform).toEqual({ account: platform.account, secret_key: secretKey, publishable_key: publishableKey });
      expect(stored(secretKey)).toEqual({
        hash: hashApiKey(secretKey),
        accountId: platform.account,
        livemode: true,
        kind: 'secret',
        hint: 'sk_live_…g7H8',
        created: now,
      });
      expect(stored(publishableKey)).toMatchObject({ kind: 'publishable', livemode: true, hint: 'pk_live_…g7H8' });
    });

    it('generates the key it is not given next to the one it is given', async () => {
      const { store } = setup();
      const secretKey = keyOf('sk_test_');

      const platform = await createPlatform(store, { secretKey }, now);

      expect(platform.secret_key).toBe(secretKey);
      expect(platform.publishable_key).toMatch(/^pk_test_[0-9A-Za-z]{48}$/);
    });

    it('accepts a given key body of 16 to 247 letters and digits', async () => {
      const { store } = setup();

      await expect(createPlatform(store, { secretKey: keyOf('sk_test_', 'A'.repeat(16)) }, now)).resolves.toBeDefined();
      await expect(createPlatform(store, { secretKey: keyOf('sk_test_', 'z'.repeat(247)) }, now)).resolves.toBeDefined();
    });

    it.each([
      ['a secret key of the other mode', { secretKey: keyOf('sk_live_') }, 'A secret key must look like sk_test_ followed by 16 or more letters and digits.'],
      ['a test secret key for a live platform', { livemode: true, secretKey: keyOf('sk_test_') }, 'A secret key must look like sk_live_ followed by'],
      ['a test publishable key for a live platform', { livemode: true, publishableKey: keyOf('pk_test_') }, 'A publishable key must look like pk_live_'],
      ['a publishable key given as the secret one', { secretKey: keyOf('pk_test_') }, 'A secret key must look like sk_test_'],
      ['a secret key given as the publishable one', { publishableKey: keyOf('sk_test_') }, 'A publishable key must look like pk_test_'],
      ['a restricted-key prefix', { secretKey: keyOf('rk_test_') }, 'A secret key'],
      ['an upper-case prefix', { secretKey: keyOf('SK_TEST_') }, 'A secret key'],
      ['a body of 15 characters', { secretKey: keyOf('sk_test_', 'A'.repeat(15)) }, 'A secret key'],
      ['a body of 248 characters', { secretKey: keyOf('sk_test_', 'A'.repeat(248)) }, 'A secret key'],
      ['a body with a dash', { secretKey: keyOf('sk_test_', 'a1B2c3D4-e5F6g7H8') }, 'A secret key'],
      ['a body with an underscore', { secretKey: keyOf('sk_test_', 'a1B2c3D4_e5F6g7H8') }, 'A secret key'],
      ['a body with a non-ASCII letter', { secretKey: keyOf('sk_test_', 'a1B2c3D4é5F6g7H8') }, 'A secret key'],
      ['a trailing newline', { secretKey: `${keyOf('sk_test_')}\n` }, 'A secret key'],
      ['a leading space', { secretKey: ` ${keyOf('sk_test_')}` }, 'A secret key'],
      ['a bare prefix', { publishableKey: 'pk_test_' }, 'A publishable key'],
    ])('refuses %s before creating anything', async (_case, options, message) => {
      const { store } = setup();

      const attempt = createPlatform(store, options, now);

      await expect(attempt).rejects.toBeInstanceOf(InvalidRequestError);
      await expect(attempt).rejects.toEqual(refusal('invalid_api_key', message));
      expect(store.accounts.size).toBe(0);
      expect(store.keys.size).toBe(0);
    });

    it('does not repeat a refused key in its error', async () => {
      const { store } = setup();
      const secretKey = keyOf('sk_live_', 'Sup3rS3cretValue42');

      const attempt = createPlatform(store, { secretKey }, now);

      await expect(attempt).rejects.toBeInstanceOf(InvalidRequestError);
      await expect(attempt).rejects.toEqual(expect.objectContaining({ message: expect.not.stringContaining('Sup3rS3cretValue42') }));
    });

    it('refuses a given key that already belongs to another platform, naming it only by its hint, and leaves that key with its owner', async () => {
      const { store, stored } = setup();
      const owner = await createPlatform(store, {}, now);

      const attempt = createPlatform(store, { secretKey: owner.secret_key }, now + 1);

      await expect(attempt).rejects.toEqual(refusal('api_key_exists', `The key sk_test_…${owner.secret_key.slice(-4)} already belongs to an account.`));
      await expect(attempt).rejects.toEqual(expect.objectContaining({ message: expect.not.stringContaining(owner.secret_key) }));
      expect(stored(owner.secret_key)).toMatchObject({ accountId: owner.account, created: now });
      expect(stored(owner.secret_key)).not.toHaveProperty('expiresAt');
    });

    it('creates nothing when a given key is refused: not the account, not the other key', async () => {
      const { store } = setup();
      const owner = await createPlatform(store, {}, now);
      const fresh = keyOf('sk_test_', 'Fresh0000000000001');

      await expect(createPlatform(store, { secretKey: fresh, publishableKey: owner.publishable_key }, now + 1)).rejects.toEqual(refusal('api_key_exists'));
      await expect(createPlatform(store, { secretKey: '' }, now + 1)).rejects.toEqual(refusal('invalid_api_key'));

      expect([...store.accounts.keys()]).toEqual([owner.account]);
      expect(store.keys.get(hashApiKey(fresh))).toBeUndefined();
    });
  });

  describe('issueApiKeys', () => {
    it('adds keys of the other mode to an existing platform, next to its first ones', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);

      const live = await issueApiKeys(store, platform.account, { livemode: true }, now + hour);

      expect(live.account).toBe(platform.account);
      expect(live.secret_key).toMatch(/^sk_live_[0-9A-Za-z]{48}$/);
      expect(live.publishable_key).toMatch(/^pk_live_[0-9A-Za-z]{48}$/);
      expect(stored(live.secret_key)).toMatchObject({ accountId: platform.account, livemode: true, kind: 'secret', created: now + hour });
      const keys = await store.listApiKeys(platform.account);
      expect(keys.map((key) => `${key.kind}/${key.livemode}`).sort()).toEqual(['publishable/false', 'publishable/true', 'secret/false', 'secret/true']);
      expect(store.accounts.size).toBe(1);
    });

    it('issues test-mode keys by default, and more than one pair of the same mode', async () => {
      const { store } = setup();
      const platform = await createPlatform(store, {}, now);

      const more = await issueApiKeys(store, platform.account, {}, now);

      expect(more.secret_key).toMatch(/^sk_test_/);
      expect(more.secret_key).not.toBe(platform.secret_key);
      expect(await store.listApiKeys(platform.account)).toHaveLength(4);
    });

    it('refuses given keys of the wrong kind or mode without storing anything', async () => {
      const { store } = setup();
      const platform = await createPlatform(store, {}, now);

      await expect(issueApiKeys(store, platform.account, { livemode: true, secretKey: keyOf('sk_test_') }, now)).rejects.toEqual(refusal('invalid_api_key'));
      await expect(issueApiKeys(store, platform.account, { publishableKey: keyOf('sk_test_') }, now)).rejects.toEqual(refusal('invalid_api_key'));
      await expect(issueApiKeys(store, platform.account, { secretKey: '' }, now)).rejects.toEqual(refusal('invalid_api_key'));
      expect(store.keys.size).toBe(2);
    });

    it("will not take over another platform's key", async () => {
      const { store, stored } = setup();
      const victim = await createPlatform(store, {}, now);
      const attacker = await createPlatform(store, {}, now);

      const attempt = issueApiKeys(store, attacker.account, { publishableKey: victim.publishable_key }, now + 1);

      await expect(attempt).rejects.toEqual(refusal('api_key_exists'));
      expect(stored(victim.publishable_key)).toMatchObject({ accountId: victim.account, created: now });
    });

    it('refuses an account that does not exist, storing no key', async () => {
      const { store } = setup();

      await expect(issueApiKeys(store, 'acct_nope', {}, now)).rejects.toEqual(refusal('resource_missing', 'acct_nope'));

      expect(store.keys.size).toBe(0);
    });
  });

  describe('revokeApiKey', () => {
    it('makes the key stop working now and answers with its account and hint', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);

      const revoked = await revokeApiKey(store, platform.secret_key, now + hour);

      expect(revoked).toEqual({ account: platform.account, revoked: `sk_test_…${platform.secret_key.slice(-4)}` });
      expect(stored(platform.secret_key)).toMatchObject({ expiresAt: now + hour, accountId: platform.account, kind: 'secret' });
    });

    it('keeps the time of the first revocation when a key is revoked again', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);
      await revokeApiKey(store, platform.secret_key, now + hour);

      await revokeApiKey(store, platform.secret_key, now + 5 * hour);

      expect(stored(platform.secret_key)?.expiresAt).toBe(now + hour);
    });

    it('leaves the other keys alone, and keeps the revoked one listed', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);
      const other = await createPlatform(store, {}, now);

      await revokeApiKey(store, platform.secret_key, now);

      expect(stored(platform.publishable_key)).not.toHaveProperty('expiresAt');
      expect(stored(other.secret_key)).not.toHaveProperty('expiresAt');
      expect(await store.listApiKeys(platform.account)).toHaveLength(2);
    });

    it('finds the key by its SHA-256 as show-platform lists it', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);

      const revoked = await revokeApiKey(store, hashApiKey(platform.publishable_key), now);

      expect(revoked).toEqual({ account: platform.account, revoked: `pk_test_…${platform.publishable_key.slice(-4)}` });
      expect(stored(platform.publishable_key)?.expiresAt).toBe(now);
    });

    it('cuts short the grace period of a rolled key', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);
      await rollApiKey(store, platform.secret_key, { expiresAt: now + 24 * hour }, now);

      await revokeApiKey(store, platform.secret_key, now + hour);

      expect(stored(platform.secret_key)?.expiresAt).toBe(now + hour);
    });

    it.each([
      ['a well-formed key never issued', keyOf('sk_test_')],
      ['a malformed key', 'not-a-key'],
      ['an empty string', ''],
      ['the hash of an unknown key', hashApiKey(keyOf('sk_test_'))],
    ])('refuses %s as no such key, changing nothing', async (_case, keyOrHash) => {
      const { store } = setup();
      await createPlatform(store, {}, now);

      await expect(revokeApiKey(store, keyOrHash, now)).rejects.toEqual(
        refusal('api_key_invalid', 'No such API key (give the key itself, or its hash as show-platform lists it).'),
      );
      expect([...store.keys.values()].some((key) => key.expiresAt !== undefined)).toBe(false);
      expect(store.keys.size).toBe(2);
    });

    it('finds nothing by an upper-case copy of the hash', async () => {
      const { store } = setup();
      const platform = await createPlatform(store, {}, now);

      await expect(revokeApiKey(store, hashApiKey(platform.secret_key).toUpperCase(), now)).rejects.toEqual(refusal('api_key_invalid'));
    });

    it('does not find a key from a copy with stray whitespace', async () => {
      const { store } = setup();
      const platform = await createPlatform(store, {}, now);

      await expect(revokeApiKey(store, ` ${platform.secret_key}`, now)).rejects.toBeInstanceOf(InvalidRequestError);
      await expect(revokeApiKey(store, `${platform.secret_key}\n`, now)).rejects.toBeInstanceOf(InvalidRequestError);
    });
  });

  describe('rollApiKey', () => {
    it('issues a new key of the same kind, mode and account, and expires the old one now by default', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);

      const rolled = await rollApiKey(store, platform.secret_key, {}, now + hour);

      expect(rolled).toEqual({
        account: platform.account,
        key: rolled.key,
        rolled: `sk_test_…${platform.secret_key.slice(-4)}`,
        rolled_key_expires_at: new Date(now + hour).toISOString(),
      });
      expect(rolled.key).toMatch(/^sk_test_[0-9A-Za-z]{48}$/);
      expect(rolled.key).not.toBe(platform.secret_key);
      expect(stored(platform.secret_key)?.expiresAt).toBe(now + hour);
      expect(stored(rolled.key)).toEqual({
        hash: hashApiKey(rolled.key),
        accountId: platform.account,
        livemode: false,
        kind: 'secret',
        hint: `sk_test_…${rolled.key.slice(-4)}`,
        created: now + hour,
      });
      expect(JSON.stringify([...store.keys.values()])).not.toContain(rolled.key);
    });

    it('keeps the kind and mode of a live publishable key', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, { livemode: true }, now);

      const rolled = await rollApiKey(store, platform.publishable_key, {}, now);

      expect(rolled.key).toMatch(/^pk_live_[0-9A-Za-z]{48}$/);
      expect(stored(rolled.key)).toMatchObject({ kind: 'publishable', livemode: true, accountId: platform.account });
    });

    it('gives the old key a grace period until the time asked for', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);

      const rolled = await rollApiKey(store, platform.secret_key, { expiresAt: now + 2 * hour }, now);

      expect(rolled.rolled_key_expires_at).toBe('2026-06-15T14:00:00.000Z');
      expect(stored(platform.secret_key)?.expiresAt).toBe(now + 2 * hour);
      expect(stored(rolled.key)).not.toHaveProperty('expiresAt');
    });

    it('expires the old key now when asked for a time already past', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);

      const rolled = await rollApiKey(store, platform.secret_key, { expiresAt: now - hour }, now);

      expect(rolled.rolled_key_expires_at).toBe(new Date(now).toISOString());
      expect(stored(platform.secret_key)?.expiresAt).toBe(now);
    });

    it('rolls a key named by its SHA-256', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);

      const rolled = await rollApiKey(store, hashApiKey(platform.secret_key), {}, now);

      expect(rolled.account).toBe(platform.account);
      expect(stored(platform.secret_key)?.expiresAt).toBe(now);
    });

    it('rolls the new key in turn, for the same account', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);
      const first = await rollApiKey(store, platform.secret_key, {}, now);

      const second = await rollApiKey(store, first.key, {}, now + hour);

      expect(second).toMatchObject({ account: platform.account, rolled: `sk_test_…${first.key.slice(-4)}` });
      expect(stored(first.key)?.expiresAt).toBe(now + hour);
      expect(stored(second.key)).toMatchObject({ accountId: platform.account, kind: 'secret', livemode: false });
      expect(await store.listApiKeys(platform.account)).toHaveLength(4);
    });

    it('rolls a key again inside its grace period, which ends that grace at the new time', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);
      await rollApiKey(store, platform.secret_key, { expiresAt: now + 2 * hour }, now);

      const again = await rollApiKey(store, platform.secret_key, {}, now + hour);

      expect(again.rolled_key_expires_at).toBe(new Date(now + hour).toISOString());
      expect(stored(platform.secret_key)?.expiresAt).toBe(now + hour);
      expect(stored(again.key)).toMatchObject({ accountId: platform.account, kind: 'secret' });
    });

    it("never moves a rolled key's end later by rolling it again", async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);
      await rollApiKey(store, platform.secret_key, { expiresAt: now + 2 * hour }, now);

      const again = await rollApiKey(store, platform.secret_key, { expiresAt: now + 100 * hour }, now + hour);

      expect(again.rolled_key_expires_at).toBe(new Date(now + 2 * hour).toISOString());
      expect(stored(platform.secret_key)?.expiresAt).toBe(now + 2 * hour);
    });

    it('refuses a grace period longer than a week, or not a time at all, before issuing anything', async () => {
      const { store, stored } = setup();
      const platform = await createPlatform(store, {}, now);
      const keysBefore = store.keys.size;

      for (const expiresAt of [now + 7 * 24 * hour + 1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(rollApiKey(store, platform.secret_key, { expiresAt }, now)).rejects.toEqual(refusal('parameter_invalid', 'at most a week'));
      }
      expect(store.keys.size).toBe(keysBefore);
      expect(stored(platform.secret_key)).not.toHaveProperty('expiresAt');
      await expect(rollApiKey(store, platform.secret_key, { expiresAt: now + 7 * 24 * hour }, now)).resolves.toMatchObject({ account: platform.account });
    });

    it('refuses a revoked key and issues nothing', async () => {
      const { store } = setup();
      const platform = await createPlatform(store, {}, now);
      await revokeApiKey(store, platform.secret_key, now);

      const attempt = rollApiKey(store, platform.secret_key, {}, now + hour);

      await expect(attempt).rejects.toBeInstanceOf(InvalidRequestError);
      await expect(attempt).rejects.toEqual(refusal('api_key_expired', `The key sk_test_…${platform.secret_key.slice(-4)} has already expired.`));
      expect(store.keys.size).toBe(2);
    });

    it('refuses a rolled key from the moment its grace period ends, not a millisecond before', async () => {
      const { store } = setup();
      const platform = await createPlatform(store, {}, now);
      await rollApiKey(store, platform.secret_key, { expiresAt: now + hour }, now);

      await expect(rollApiKey(store, platform.secret_key, {}, now + hour)).rejects.toEqual(refusal('api_key_expired'));
      expect(store.keys.size).toBe(3);
      await expect(rollApiKey(store, platform.secret_key, {}, now + hour - 1)).resolves.toMatchObject({ account: platform.account });
      expect(store.keys.size).toBe(4);
    });

    it.each([
      ['a well-formed key never issued', keyOf('pk_test_')],
      ['a malformed key', 'sk_test_short'],
      ['the hash of an unknown key', hashApiKey('sk_test_unknown')],
    ])('refuses %s as no such key and issues nothing', async (_case, keyOrHash) => {
      const { store } = setup();
      await createPlatform(store, {}, now);

      await expect(rollApiKey(store, keyOrHash, {}, now)).rejects.toEqual(refusal('api_key_invalid'));
      expect(store.keys.size).toBe(2);
    });
  });
});
