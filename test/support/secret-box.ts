import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { type DataKeys, envelopeSecretBox, type SecretBox } from '#shared/secrets/secret-box.ts';

/**
 * Data keys wrapped in memory by a master key of their own (AES-256-GCM, bound to the encryption context,
 * as KMS binds them), counting their calls: the key service of the boxes the offline tests use.
 */
export function memoryDataKeys(masterKey = randomBytes(32)): DataKeys & { calls: { generate: number; decrypt: number } } {
  const calls = { generate: 0, decrypt: 0 };
  const aad = (context: Record<string, string>) => Buffer.from(JSON.stringify(context));
  return {
    calls,
    async generate(context) {
      calls.generate++;
      const plaintext = randomBytes(32);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
      cipher.setAAD(aad(context));
      const wrapped = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return { plaintext: new Uint8Array(plaintext), ciphertext: Buffer.concat([iv, cipher.getAuthTag(), wrapped]) };
    },
    async decrypt(ciphertext, context) {
      calls.decrypt++;
      const bytes = Buffer.from(ciphertext);
      const decipher = createDecipheriv('aes-256-gcm', masterKey, bytes.subarray(0, 12));
      decipher.setAAD(aad(context));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return new Uint8Array(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]));
    },
  };
}

/** A secret box on in-memory data keys. */
export const memorySecretBox = (): SecretBox => envelopeSecretBox(memoryDataKeys());
