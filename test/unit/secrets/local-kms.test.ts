import { KMSClient } from '@aws-sdk/client-kms';
import { describe, expect, it } from 'vitest';
import type { Permission } from '#functions/permissions.ts';
import { meterAwsCalls, withCallScope } from '#shared/aws/aws-calls.ts';
import { kmsDataKeys } from '#shared/aws/kms-data-keys.ts';
import { envelopeSecretBox, type SecretContext } from '#shared/secrets/secret-box.ts';
import { functionCallScope } from '#local/iam.ts';
import { answerKmsLocally, localSecretsKeyId } from '#local/local-kms.ts';

const context: SecretContext = { accountId: 'acct_a', livemode: true, objectId: 'ed_1' };

/** A KMS client as the local stack's functions get it: recorded and authorized, then answered by the stand-in. */
function localKmsClient(masterKey: Buffer) {
  const client = new KMSClient({ region: 'us-east-1', credentials: { accessKeyId: 'LOCAL', secretAccessKey: 'local' } });
  answerKmsLocally(client, masterKey);
  return meterAwsCalls(client, 'kms');
}

const as = <T>(name: string, permissions: Permission[], work: () => Promise<T>) => withCallScope(functionCallScope(name, permissions), work);

describe("the local stack's KMS stand-in", () => {
  it('seals and opens with the same format as KMS, for functions granted secrets:seal and secrets:open', async () => {
    // Given the box on the stand-in's data keys
    const box = envelopeSecretBox(kmsDataKeys(localKmsClient(Buffer.alloc(32, 1)), localSecretsKeyId));

    // When a creating function seals a secret and the delivery worker opens it
    const sealed = await as('createEventDestination', ['table:write', 'secrets:seal'], () => box.seal('whsec_x', context));
    const opened = await as('deliverEvent', ['table:read', 'secrets:open'], () => box.open(sealed, context));

    // Then the sealed value opens to the secret
    expect(sealed).toMatch(/^sealed:v1:/);
    expect(opened).toBe('whsec_x');
  });

  it('refuses Decrypt to a function without secrets:open, and GenerateDataKey to one without secrets:seal, as IAM would', async () => {
    // Given a sealed secret
    const box = envelopeSecretBox(kmsDataKeys(localKmsClient(Buffer.alloc(32, 2)), localSecretsKeyId));
    const sealed = await as('createWebhookEndpoint', ['secrets:seal'], () => box.seal('whsec_y', context));

    // When a read-only route (or a creator) tries to open it, or a function without the grant tries to seal
    const open = as('retrieveWebhookEndpoint', ['table:read', 'table:count-requests'], () => box.open(sealed, context));
    const openByCreator = as('createWebhookEndpoint', ['table:write', 'secrets:seal'], () => box.open(sealed, context));
    const seal = as('deliverEvent', ['table:read', 'secrets:open'], () => box.seal('whsec_z', context));

    // Then each is refused with AccessDenied, naming the action
    await expect(open).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('kms:Decrypt') });
    await expect(openByCreator).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('kms:Decrypt') });
    await expect(seal).rejects.toMatchObject({ name: 'AccessDeniedException', message: expect.stringContaining('kms:GenerateDataKey') });
  });

  it("refuses a data key sealed for another context or under another stack's master key", async () => {
    // Given a secret sealed by one stack
    const sealed = await as('createWebhookEndpoint', ['secrets:seal'], () =>
      envelopeSecretBox(kmsDataKeys(localKmsClient(Buffer.alloc(32, 3)), localSecretsKeyId)).seal('whsec_w', context),
    );

    // When it is opened under another context, or by a stack with another master key
    const sameStack = envelopeSecretBox(kmsDataKeys(localKmsClient(Buffer.alloc(32, 3)), localSecretsKeyId));
    const otherStack = envelopeSecretBox(kmsDataKeys(localKmsClient(Buffer.alloc(32, 4)), localSecretsKeyId));

    // Then KMS's InvalidCiphertextException is what the caller gets
    await expect(as('deliverEvent', ['secrets:open'], () => sameStack.open(sealed, { ...context, accountId: 'acct_b' }))).rejects.toMatchObject({
      name: 'InvalidCiphertextException',
    });
    await expect(as('deliverEvent', ['secrets:open'], () => otherStack.open(sealed, context))).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
  });
});
