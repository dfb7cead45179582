import { beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, PermissionError } from '#shared/core/errors.ts';
import { readThrough } from '#shared/core/cache.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { createPlatform, issueApiKeys, revokeApiKey, rollApiKey, type CreatedPlatform } from '#shared/platform/platform-service.ts';
import { fakePlatformStore } from '../../support/fakes.ts';

const store = fakePlatformStore();
let platform: CreatedPlatform;
let other: CreatedPlatform;
const options = { allowPublishableKey: false };

beforeAll(async () => {
  platform = await createPlatform(store);
  other = await createPlatform(store);
});

describe('authentication', () => {
  it('accepts a secret key as Bearer and as the Basic user name', async () => {
    const bearer = await authenticate({ authorization: `Bearer ${platform.secret_key}` }, store, options);
    const basic = await authenticate({ authorization: `Basic ${Buffer.from(`${platform.secret_key}:`).toString('base64')}` }, store, options);
    expect(bearer).toEqual(basic);
    expect(bearer).toMatchObject({ platformId: platform.account, livemode: false, keyKind: 'secret', scope: { accountId: platform.account, livemode: false } });
  });

  it('stores keys only as hashes', () => {
    const stored = JSON.stringify([...store.keys.values()]);
    expect(stored).not.toContain(platform.secret_key);
    expect(stored).not.toContain(platform.publishable_key);
  });

  it('refuses a missing, malformed or unknown key with an authentication error', async () => {
    await expect(authenticate({}, store, options)).rejects.toThrow(AuthenticationError);
    await expect(authenticate({ authorization: 'Token abc' }, store, options)).rejects.toThrow(AuthenticationError);
    await expect(authenticate({ authorization: 'Bearer sk_test_0000000000000000000000000' }, store, options)).rejects.toThrow(
      /Invalid API Key provided: sk_test_…0000/,
    );
  });

  it('refuses a publishable key except where allowed', async () => {
    const headers = { authorization: `Bearer ${platform.publishable_key}` };
    await expect(authenticate(headers, store, options)).rejects.toThrow(PermissionError);
    await expect(authenticate(headers, store, { allowPublishableKey: true })).resolves.toMatchObject({ keyKind: 'publishable' });
  });

  it("acts inside a connected account only when the key's platform controls it", async () => {
    await store.createAccount({ id: 'acct_connected', platformId: platform.account, livemode: false, features: { accountsV2: true }, created: 0 });
    const inside = await authenticate({ authorization: `Bearer ${platform.secret_key}`, 'service-context': 'acct_connected' }, store, options);
    expect(inside.scope.accountId).toBe('acct_connected');
    await expect(authenticate({ authorization: `Bearer ${other.secret_key}`, 'service-context': 'acct_connected' }, store, options)).rejects.toThrow(
      PermissionError,
    );
    await expect(authenticate({ authorization: `Bearer ${other.secret_key}`, 'service-account': platform.account }, store, options)).rejects.toThrow(
      PermissionError,
    );
  });

  it('acts inside a connected account only with a key of the mode the account was made in', async () => {
    const live = await issueApiKeys(store, platform.account, { livemode: true });
    await store.createAccount({ id: 'acct_test_only', platformId: platform.account, livemode: false, features: { accountsV2: false }, created: 0 });
    await store.createAccount({ id: 'acct_live_only', platformId: platform.account, livemode: true, features: { accountsV2: false }, created: 0 });
    await store.createAccount({ id: 'acct_before_modes', platformId: platform.account, features: { accountsV2: false }, created: 0 });

    await expect(authenticate({ authorization: `Bearer ${live.secret_key}`, 'service-context': 'acct_test_only' }, store, options)).rejects.toThrow(
      PermissionError,
    );
    await expect(authenticate({ authorization: `Bearer ${platform.secret_key}`, 'service-context': 'acct_live_only' }, store, options)).rejects.toThrow(
      PermissionError,
    );
    await expect(authenticate({ authorization: `Bearer ${live.secret_key}`, 'service-context': 'acct_before_modes' }, store, options)).rejects.toThrow(
      PermissionError,
    );
    await expect(authenticate({ authorization: `Bearer ${live.secret_key}`, 'service-context': 'acct_live_only' }, store, options)).resolves.toMatchObject({
      scope: { accountId: 'acct_live_only', livemode: true },
    });
  });

  it('refuses a revoked key, and a rolled key once its grace period is over, while the new key works', async () => {
    const own = await createPlatform(store);
    const rolled = await rollApiKey(store, own.secret_key, { expiresAt: 10_000 }, 1_000);
    const at = (now: number, key: string) => authenticate({ authorization: `Bearer ${key}` }, store, options, now);
    await expect(at(9_999, own.secret_key)).resolves.toMatchObject({ platformId: own.account });
    await expect(at(10_000, own.secret_key)).rejects.toMatchObject({ code: 'api_key_expired' });
    await expect(at(10_000, rolled.key)).resolves.toMatchObject({ platformId: own.account, keyKind: 'secret' });

    await revokeApiKey(store, rolled.key, 20_000);
    await expect(at(20_000, rolled.key)).rejects.toThrow(AuthenticationError);
  });

  it('keeps trusting a key it read for the cache window only', async () => {
    const own = await createPlatform(store);
    let now = 0;
    const cached = {
      ...store,
      findApiKey: readThrough(
        store.findApiKey,
        (hash) => hash,
        { ttlMillis: 1_000 },
        () => now,
      ),
    };
    const at = (time: number) => {
      now = time;
      return authenticate({ authorization: `Bearer ${own.secret_key}` }, cached, options, time);
    };
    await at(0);
    await revokeApiKey(store, own.secret_key, 0);
    await expect(at(500)).resolves.toMatchObject({ platformId: own.account });
    await expect(at(1_001)).rejects.toMatchObject({ code: 'api_key_expired' });
  });
});
