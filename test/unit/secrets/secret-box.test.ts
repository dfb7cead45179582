import { describe, expect, it } from 'vitest';
import { envelopeSecretBox, isSealed, SealedSecretError, type SecretContext } from '#shared/secrets/secret-box.ts';
import { cachedSecretBox } from '#shared/secrets/wiring.ts';
import { memoryDataKeys } from '../../support/secret-box.ts';

const context: SecretContext = { accountId: 'acct_a', livemode: false, objectId: 'we_1' };
const secret = 'whsec_0123456789abcdefghijABCDEFGHIJKL';

describe('envelope secret box', () => {
  it('seals a secret into a value that holds no trace of it, and opens it with the same context', async () => {
    // Given a box on a key service
    const box = envelopeSecretBox(memoryDataKeys());

    // When a secret is sealed, then opened
    const sealed = await box.seal(secret, context);
    const opened = await box.open(sealed, context);

    // Then the sealed value is marked as sealed, does not contain the secret, and opens to it
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain(secret);
    expect(sealed).not.toContain(secret.slice(6));
    expect(opened).toBe(secret);
  });

  it('seals the same secret differently each time (a data key and an IV of its own)', async () => {
    const box = envelopeSecretBox(memoryDataKeys());
    expect(await box.seal(secret, context)).not.toBe(await box.seal(secret, context));
  });

  it.each([
    ['another account', { ...context, accountId: 'acct_b' }],
    ['the other mode', { ...context, livemode: true }],
    ['another object', { ...context, objectId: 'we_2' }],
  ])('refuses to open a sealed secret copied to %s', async (_, elsewhere) => {
    // Given a secret sealed for one endpoint
    const box = envelopeSecretBox(memoryDataKeys());
    const sealed = await box.seal(secret, context);

    // When it is opened as another object's secret, Then the key service refuses its data key
    await expect(box.open(sealed, elsewhere)).rejects.toThrow();
  });

  it('refuses a sealed secret whose ciphertext was tampered with, even when the data key still decrypts', async () => {
    // Given a sealed secret with one bit of its ciphertext flipped
    const box = envelopeSecretBox(memoryDataKeys());
    const sealed = await box.seal(secret, context);
    const [wrappedKey, iv, ciphertext] = sealed.slice('sealed:v1:'.length).split('.') as [string, string, string];
    const bytes = Buffer.from(ciphertext, 'base64url');
    bytes[0]! ^= 1;
    const tampered = `sealed:v1:${wrappedKey}.${iv}.${bytes.toString('base64url')}`;

    // When it is opened, Then it is refused
    await expect(box.open(tampered, context)).rejects.toThrow(SealedSecretError);
  });

  it.each([
    ['too few parts', 'sealed:v1:abc.def'],
    ['a short IV', 'sealed:v1:AAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['no ciphertext', 'sealed:v1:AAAA.AAAAAAAAAAAAAAAA.'],
  ])('refuses a malformed sealed secret (%s) without asking the key service', async (_, malformed) => {
    const keys = memoryDataKeys();
    await expect(envelopeSecretBox(keys).open(malformed, context)).rejects.toThrow(SealedSecretError);
    expect(keys.calls.decrypt).toBe(0);
  });

  it('reads a secret stored in the clear before sealing existed as it is, without the key service', async () => {
    // Given an item written before sealing: its secret in the clear
    const keys = memoryDataKeys();

    // When it is opened, Then the plaintext comes back and no data key was asked for
    expect(await envelopeSecretBox(keys).open(secret, context)).toBe(secret);
    expect(keys.calls).toEqual({ generate: 0, decrypt: 0 });
  });

  it('asks the key service once per sealed secret and context while the opened secret is cached', async () => {
    // Given a cached box and one sealed secret
    const keys = memoryDataKeys();
    const box = cachedSecretBox(envelopeSecretBox(keys));
    const sealed = await box.seal(secret, context);

    // When it is opened many times, and once under another context
    for (let i = 0; i < 5; i++) expect(await box.open(sealed, context)).toBe(secret);
    await expect(box.open(sealed, { ...context, objectId: 'we_2' })).rejects.toThrow();

    // Then the key service decrypted its data key once for the good context (and once for the refused one)
    expect(keys.calls).toEqual({ generate: 1, decrypt: 2 });
  });
});
