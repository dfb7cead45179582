import { beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, PermissionError } from '#shared/errors.ts';
import { authenticate } from '#shared/http/authenticate.ts';
import { createPlatform, type CreatedPlatform } from '#shared/platform/platform-service.ts';
import { fakePlatformStore } from '../support/fakes.ts';

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
    await expect(authenticate({ authorization: 'Bearer sk_test_0000000000000000000000000' }, store, options)).rejects.toThrow(/Invalid API Key provided: sk_test_…0000/);
  });

  it('refuses a publishable key except where allowed', async () => {
    const headers = { authorization: `Bearer ${platform.publishable_key}` };
    await expect(authenticate(headers, store, options)).rejects.toThrow(PermissionError);
    await expect(authenticate(headers, store, { allowPublishableKey: true })).resolves.toMatchObject({ keyKind: 'publishable' });
  });

  it('acts inside a connected account only when the key\'s platform controls it', async () => {
    await store.createAccount({ id: 'acct_connected', platformId: platform.account, features: { accountsV2: true }, created: 0 });
    const inside = await authenticate({ authorization: `Bearer ${platform.secret_key}`, 'service-context': 'acct_connected' }, store, options);
    expect(inside.scope.accountId).toBe('acct_connected');
    await expect(
      authenticate({ authorization: `Bearer ${other.secret_key}`, 'service-context': 'acct_connected' }, store, options),
    ).rejects.toThrow(PermissionError);
    await expect(
      authenticate({ authorization: `Bearer ${other.secret_key}`, 'service-account': platform.account }, store, options),
    ).rejects.toThrow(PermissionError);
  });
});
