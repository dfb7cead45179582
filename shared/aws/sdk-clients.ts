import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { meterAwsCalls } from '#shared/aws/aws-calls.ts';
import { config } from '#shared/core/config.ts';
import { guardItemSizes } from '#shared/data/item-size.ts';
import { traced } from '#shared/core/observability.ts';

/** The part of an AWS SDK v3 client this module touches. */
interface SdkClient {
  middlewareStack: { remove(name: string): boolean };
  config: object;
}

/**
 * What every client of the service carries, whatever its service: no call logging, its calls recorded and
 * (locally) authorized as IAM would (`shared/aws/aws-calls.ts`), X-Ray subsegments on Lambda.
 */
const instrumented = <T extends SdkClient & Parameters<typeof meterAwsCalls>[0]>(client: T, service: Parameters<typeof meterAwsCalls>[1]): T =>
  traced(meterAwsCalls(withoutCallLogging(client), service));

const clients: { dynamodb?: DynamoDBClient; sqs?: SQSClient; events?: EventBridgeClient } = {};

/**
 * The service's AWS clients: one factory per service, one client per process (reused across warm
 * invocations), each on the configuration's region and endpoint (the emulators' locally,
 * {@link serviceClientOptions}). Product code gets its clients here and nowhere else.
 */
export const serviceClients = {
  /** For `shared/data/table.ts` only: it resolves each command's handler chain once, and refuses items over 400 KB. */
  dynamodb(): DynamoDBClient {
    clients.dynamodb ??= instrumented(
      guardItemSizes(new DynamoDBClient({ ...serviceClientOptions(config().DYNAMODB_ENDPOINT), ...reusedHandlers })),
      'dynamodb',
    );
    return clients.dynamodb;
  },
  /** It only sends: a call with no answer within 10 s fails (and is retried) instead of holding up the sends behind it. */
  sqs(): SQSClient {
    clients.sqs ??= instrumented(
      new SQSClient({
        ...serviceClientOptions(config().SQS_ENDPOINT),
        ...reusedHandlers,
        requestHandler: { requestTimeout: 10_000, throwOnRequestTimeout: true },
      }),
      'sqs',
    );
    return clients.sqs;
  },
  events(): EventBridgeClient {
    clients.events ??= instrumented(new EventBridgeClient(serviceClientOptions(config().EVENTBRIDGE_ENDPOINT)), 'events');
    return clients.events;
  },
};

/**
 * Takes the SDK's logger middleware out of a client. This service never logs SDK calls, but that
 * middleware still builds a sensitive-field-filtered copy of every input and output for its no-op logger:
 * a few percent of the CPU of every DynamoDB and SQS call on a busy function.
 *
 * A client for the local emulators (made with {@link emulatorClientOptions}) also loses its user-agent
 * middleware, another few percent of each call: the emulators never read the header.
 */
export function withoutCallLogging<T extends SdkClient>(client: T): T {
  client.middlewareStack.remove('loggerMiddleware');
  const { httpAuthSchemes } = client.config as { httpAuthSchemes?: AuthScheme[] };
  if (httpAuthSchemes?.some((scheme) => scheme.signer === unsignedSigner)) client.middlewareStack.remove('getUserAgentMiddleware');
  return client;
}

type AuthScheme = NonNullable<DynamoDBClientConfig['httpAuthSchemes']>[number];

/** The access key id and secret the local stack generated at its start (the emulators refuse any other key id). */
export interface EmulatorCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Stands in for SigV4: the emulators check the key id named in the header, never the signature. */
const unsignedSigner: AuthScheme['signer'] = {
  async sign(request, identity) {
    const { accessKeyId } = identity as EmulatorCredentials;
    request.headers.authorization = `AWS4-HMAC-SHA256 Credential=${accessKeyId}/20000101/us-east-1/emulator/aws4_request, SignedHeaders=host, Signature=0`;
    return request;
  },
};

/**
 * Client settings for the local emulators (DynamoDB Local, fauxqs behind the local stack's guard,
 * `local/engine-guard.ts`). The guard checks the access key id the `Authorization` header names, never its
 * signature, so a header naming it stands in for SigV4, which is about a quarter of the CPU of each call.
 * Never for a real AWS endpoint.
 */
export function emulatorClientOptions(credentials: EmulatorCredentials) {
  const unsignedSigV4: AuthScheme = {
    schemeId: 'aws.auth#sigv4',
    identityProvider: () => async () => ({ ...credentials, expiration: new Date(8.64e15) }),
    signer: unsignedSigner,
  };
  return { credentials, httpAuthSchemes: [unsignedSigV4] };
}

/**
 * For clients that send plain SDK commands (DynamoDB through `shared/data/table.ts`, SQS): the handler
 * chain each command class resolves is built once and reused, instead of sorting the middleware stack on
 * every call (about a tenth of a call's CPU). Never with `@aws-sdk/lib-dynamodb` commands: they resolve to
 * a handler bound to the first command instance, so a cached one would resend that command's input.
 */
export const reusedHandlers = { cacheMiddleware: true } as const;

/**
 * Region, endpoint and (against the local emulators only) unsigned calls with the stack's credentials from
 * the environment: what the service's DynamoDB and SQS clients share.
 */
export function serviceClientOptions(endpoint: string | undefined) {
  const { AWS_REGION, AWS_EMULATED, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY } = config();
  if (!AWS_EMULATED) return { region: AWS_REGION, endpoint };
  if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY)
    throw new Error('AWS_EMULATED needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: the local stack sets both.');
  return { region: AWS_REGION, endpoint, ...emulatorClientOptions({ accessKeyId: AWS_ACCESS_KEY_ID, secretAccessKey: AWS_SECRET_ACCESS_KEY }) };
}
