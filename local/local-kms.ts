import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { SdkClient } from '#shared/aws/sdk-clients.ts';

/** The file of the local stack's master key in its data directory (owner-only, like the engines' credentials). */
export const localKmsKeyFileName = 'secrets-master.key';

/** The secrets key's id in the local stack's environment (`SECRETS_KEY_ID`). */
export const localSecretsKeyId = 'arn:aws:kms:us-east-1:000000000000:key/local-secrets';

/**
 * The master key of the local stack's KMS stand-in: 32 random bytes, kept in the data directory across
 * restarts (so sealed secrets in the kept table still open), or new at each start for a stack in memory.
 * Never in the table: a table export alone opens nothing, as on AWS.
 */
export function localKmsMasterKey(file?: string): Buffer {
  if (file && existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return key;
  }
  const key = randomBytes(32);
  if (file) {
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return key;
}

/** The error KMS answers a ciphertext that does not decrypt (tampered, or another encryption context). */
class InvalidCiphertextException extends Error {
  override name = 'InvalidCiphertextException';
}

const blobTag = Buffer.from('LKMS1');

/** Binds a wrapped data key to the key id and the encryption context, as KMS does. */
const additionalData = (keyId: string, context: Record<string, string> | undefined) =>
  Buffer.from(JSON.stringify([keyId, Object.entries(context ?? {}).sort(([a], [b]) => a.localeCompare(b))]));

function wrap(masterKey: Buffer, keyId: string, context: Record<string, string> | undefined, dataKey: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
  cipher.setAAD(additionalData(keyId, context));
  const wrapped = Buffer.concat([cipher.update(dataKey), cipher.final()]);
  return Buffer.concat([blobTag, iv, cipher.getAuthTag(), wrapped]);
}

function unwrap(masterKey: Buffer, keyId: string, context: Record<string, string> | undefined, blob: Uint8Array): Buffer {
  const bytes = Buffer.from(blob);
  if (bytes.length < blobTag.length + 28 || !bytes.subarray(0, blobTag.length).equals(blobTag)) throw new InvalidCiphertextException('Invalid ciphertext');
  const iv = bytes.subarray(blobTag.length, blobTag.length + 12);
  const tag = bytes.subarray(blobTag.length + 12, blobTag.length + 28);
  try {
    const decipher = createDecipheriv('aes-256-gcm', masterKey, iv);
    decipher.setAAD(additionalData(keyId, context));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(bytes.subarray(blobTag.length + 28)), decipher.final()]);
  } catch {
    throw new InvalidCiphertextException('The ciphertext does not decrypt with this key and encryption context');
  }
}

interface KmsInput {
  KeyId?: string;
  EncryptionContext?: Record<string, string>;
  CiphertextBlob?: Uint8Array;
  NumberOfBytes?: number;
}

/**
 * Makes a KMS client answer `GenerateDataKey` and `Decrypt` itself, with data keys wrapped (AES-256-GCM)
 * by the stack's master key and bound to the key id and the encryption context: there is no KMS offline.
 * It answers after the client's call recording (`shared/aws/aws-calls.ts`), so the stack's IAM emulation
 * refuses a function without `secrets:seal` or `secrets:open` exactly as IAM would on AWS.
 */
export function answerKmsLocally(client: SdkClient & { middlewareStack: { add(middleware: unknown, options: object): void } }, masterKey: Buffer): void {
  client.middlewareStack.add(
    (_next: unknown, context: { commandName?: string }) => async (args: { input: KmsInput }) => {
      const { KeyId, EncryptionContext, CiphertextBlob } = args.input;
      if (KeyId !== localSecretsKeyId) throw new InvalidCiphertextException(`The local stack has no KMS key ${KeyId ?? '(none named)'}`);
      switch (context.commandName) {
        case 'GenerateDataKeyCommand': {
          const dataKey = randomBytes(32);
          return {
            output: {
              $metadata: {},
              KeyId,
              Plaintext: new Uint8Array(dataKey),
              CiphertextBlob: new Uint8Array(wrap(masterKey, KeyId, EncryptionContext, dataKey)),
            },
            response: {},
          };
        }
        case 'DecryptCommand':
          return {
            output: { $metadata: {}, KeyId, Plaintext: new Uint8Array(unwrap(masterKey, KeyId, EncryptionContext, CiphertextBlob ?? new Uint8Array())) },
            response: {},
          };
        default:
          throw new Error(`The local stack's KMS answers GenerateDataKey and Decrypt only, not ${context.commandName}`);
      }
    },
    { step: 'serialize', name: 'answerKmsLocally', override: true },
  );
}

/** Whether a client is a KMS client (its calls are answered locally). */
export const isKmsClient = (client: SdkClient): boolean => (client.config as { serviceId?: string }).serviceId === 'KMS';
