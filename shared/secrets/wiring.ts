import { KMSClient } from '@aws-sdk/client-kms';
import { cacheWindows, readThrough } from '#shared/core/cache.ts';
import { config } from '#shared/core/config.ts';
import { kmsDataKeys } from '#shared/aws/kms-data-keys.ts';
import { serviceClients } from '#shared/aws/sdk-clients.ts';
import { encryptionContext, envelopeSecretBox, type SecretBox } from './secret-box.ts';

/** `box` with what it opens kept for `cacheWindows.openedSecrets`, per sealed value and context (the one cache mechanism). */
export const cachedSecretBox = (box: SecretBox): SecretBox => ({
  seal: box.seal,
  open: readThrough(box.open, (stored, context) => `${JSON.stringify(encryptionContext(context))}|${stored}`, {
    ttlMillis: cacheWindows.openedSecrets(),
    maxEntries: 10_000,
  }),
});

let box: SecretBox | undefined;

function stackBox(): SecretBox {
  if (!box) {
    const keyId = config().SECRETS_KEY_ID;
    if (!keyId) throw new Error('Invalid configuration: SECRETS_KEY_ID is required to seal or open secrets');
    box = cachedSecretBox(
      envelopeSecretBox(
        kmsDataKeys(
          serviceClients.kms((options) => new KMSClient(options)),
          keyId,
        ),
      ),
    );
  }
  return box;
}

/**
 * The secret box on the stack's secrets key (`SECRETS_KEY_ID`), made on first use and kept for the life of
 * the process. A function whose role may not use the key gets AccessDenied from KMS (locally from the stack's
 * IAM emulation) on its first seal or open.
 */
export const wireSecretBox = (): SecretBox => ({
  seal: (plaintext, context) => stackBox().seal(plaintext, context),
  open: (stored, context) => stackBox().open(stored, context),
});
