import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Whose secret it is: the owner's account, the mode and the object that keeps it. A sealed secret opens
 * only with the context it was sealed with, so one copied into another object's item (another tenant's,
 * the other mode's) cannot be opened there.
 */
export interface SecretContext {
  accountId: string;
  livemode: boolean;
  /** The id of the object the secret belongs to (`we_…`, `ed_…`). */
  objectId: string;
}

/**
 * Seals secrets the service must keep but never show again (webhook signing secrets), and opens them for
 * the few functions that use them (the delivery worker signs with them). A value stored before sealing
 * existed (the plaintext itself) opens as is.
 */
export interface SecretBox {
  seal(plaintext: string, context: SecretContext): Promise<string>;
  open(stored: string, context: SecretContext): Promise<string>;
}

/**
 * The key service behind a box: a new data key per sealed secret (its plaintext, and its ciphertext under
 * the master key, bound to the context), and the plaintext of a data key's ciphertext, given the same context.
 * KMS's `GenerateDataKey` and `Decrypt` on AWS (shared/aws/kms-data-keys.ts).
 */
export interface DataKeys {
  generate(context: Record<string, string>): Promise<{ plaintext: Uint8Array; ciphertext: Uint8Array }>;
  decrypt(ciphertext: Uint8Array, context: Record<string, string>): Promise<Uint8Array>;
}

/** What every sealed secret starts with: the format and its version. */
const sealedPrefix = 'sealed:v1:';

/** Whether a stored secret is sealed (otherwise it is a plaintext secret written before sealing existed). */
export const isSealed = (stored: string): boolean => stored.startsWith(sealedPrefix);

/** The secret's context as the key service and the cipher's additional data see it, in a fixed key order. */
export const encryptionContext = ({ accountId, livemode, objectId }: SecretContext): Record<string, string> => ({
  account: accountId,
  mode: livemode ? 'live' : 'test',
  object: objectId,
});

const additionalData = (context: Record<string, string>) => Buffer.from(JSON.stringify(context));

/** The error a sealed secret that does not open gets: tampered, truncated, or sealed for another context. */
export class SealedSecretError extends Error {
  override name = 'SealedSecretError';
}

/**
 * Envelope encryption: each secret is encrypted with AES-256-GCM under a data key of its own; the data
 * key's ciphertext (only the key service can decrypt it) is stored with it, and both the data key and the
 * cipher are bound to the secret's context. Stored as `sealed:v1:<data key>.<iv>.<ciphertext and tag>`,
 * base64url.
 */
export function envelopeSecretBox(dataKeys: DataKeys): SecretBox {
  return {
    async seal(plaintext, secretContext) {
      const context = encryptionContext(secretContext);
      const dataKey = await dataKeys.generate(context);
      try {
        const iv = randomBytes(12);
        const cipher = createCipheriv('aes-256-gcm', dataKey.plaintext, iv);
        cipher.setAAD(additionalData(context));
        const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
        return `${sealedPrefix}${[Buffer.from(dataKey.ciphertext), iv, sealed].map((part) => part.toString('base64url')).join('.')}`;
      } finally {
        dataKey.plaintext.fill(0);
      }
    },
    async open(stored, secretContext) {
      if (!isSealed(stored)) return stored;
      const parts = stored.slice(sealedPrefix.length).split('.');
      const [wrappedKey, iv, sealed] = parts.map((part) => Buffer.from(part, 'base64url'));
      if (parts.length !== 3 || !wrappedKey?.length || iv?.length !== 12 || !sealed || sealed.length < 16) {
        throw new SealedSecretError('The sealed secret is malformed.');
      }
      const context = encryptionContext(secretContext);
      const dataKey = await dataKeys.decrypt(wrappedKey, context);
      try {
        const decipher = createDecipheriv('aes-256-gcm', dataKey, iv);
        decipher.setAAD(additionalData(context));
        decipher.setAuthTag(sealed.subarray(sealed.length - 16));
        return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]).toString('utf8');
      } catch {
        throw new SealedSecretError('The sealed secret does not open with its context: it was tampered with or belongs to another object.');
      } finally {
        dataKey.fill(0);
      }
    },
  };
}
