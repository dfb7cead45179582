import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from '@aws-sdk/client-kms';
import type { DataKeys } from '#shared/secrets/secret-box.ts';

/**
 * Data keys from one KMS key: `GenerateDataKey` (AES-256) to seal, `Decrypt` to open, each with the secret's
 * encryption context, which KMS binds to the ciphertext and logs in CloudTrail. The key is named on
 * `Decrypt` too, so a ciphertext of another key is refused instead of decrypted with whatever key made it.
 */
export function kmsDataKeys(client: KMSClient, keyId: string): DataKeys {
  return {
    async generate(context) {
      const { Plaintext, CiphertextBlob } = await client.send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: context }));
      if (!Plaintext || !CiphertextBlob) throw new Error('KMS GenerateDataKey answered without a data key');
      return { plaintext: Plaintext, ciphertext: CiphertextBlob };
    },
    async decrypt(ciphertext, context) {
      const { Plaintext } = await client.send(new DecryptCommand({ KeyId: keyId, CiphertextBlob: ciphertext, EncryptionContext: context }));
      if (!Plaintext) throw new Error('KMS Decrypt answered without a plaintext');
      return Plaintext;
    },
  };
}
