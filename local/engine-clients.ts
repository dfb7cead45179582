import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { useClientRuntime, type SdkClient } from '#shared/aws/sdk-clients.ts';
import { answerKmsLocally, isKmsClient } from './local-kms.ts';

/** The access key id and secret the local stack generated at its start (the engines refuse any other key id). */
export interface EmulatorCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

type AuthScheme = NonNullable<DynamoDBClientConfig['httpAuthSchemes']>[number];

/** Stands in for SigV4: the engines check the key id named in the header, never the signature. */
const unsignedSigner: AuthScheme['signer'] = {
  async sign(request, identity) {
    const { accessKeyId } = identity as EmulatorCredentials;
    request.headers.authorization = `AWS4-HMAC-SHA256 Credential=${accessKeyId}/20000101/us-east-1/emulator/aws4_request, SignedHeaders=host, Signature=0`;
    return request;
  },
};

/**
 * Client settings for the local engines (DynamoDB Local and fauxqs behind the stack's guard,
 * `local/engine-guard.ts`). The guard checks the access key id the `Authorization` header names, never its
 * signature, so a header naming it stands in for SigV4, which is about a quarter of the CPU of each call.
 */
export function emulatorClientOptions(credentials: EmulatorCredentials) {
  const unsignedSigV4: AuthScheme = {
    schemeId: 'aws.auth#sigv4',
    identityProvider: () => async () => ({ ...credentials, expiration: new Date(8.64e15) }),
    signer: unsignedSigner,
  };
  return { credentials, httpAuthSchemes: [unsignedSigV4] };
}

/** An engine client sends no user agent (the engines never read it): a few percent of each call's CPU. */
export function forEngines<T extends SdkClient>(client: T): T {
  client.middlewareStack.remove('getUserAgentMiddleware');
  return client;
}

/**
 * The local runtime's one hook into the service's AWS clients, made once per process or thread that loads
 * handler modules, before it loads them: every client the service makes from then on reaches the engines
 * with this start's credentials, unsigned, and a KMS client is answered by the stack's stand-in with
 * `kmsMasterKey` (`local/local-kms.ts`). On AWS nothing calls it.
 */
export function useLocalEngines(credentials: EmulatorCredentials, kmsMasterKey: Buffer): void {
  useClientRuntime({
    options: emulatorClientOptions(credentials),
    prepare: (client) => {
      forEngines(client);
      if (isKmsClient(client)) answerKmsLocally(client as Parameters<typeof answerKmsLocally>[0], kmsMasterKey);
    },
  });
}
