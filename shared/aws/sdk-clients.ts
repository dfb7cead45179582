import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { meterAwsCalls } from '#shared/aws/aws-calls.ts';
import { config } from '#shared/core/config.ts';
import { guardItemSizes } from '#shared/data/item-size.ts';

/** The part of an AWS SDK v3 client this module touches. */
export interface SdkClient {
  middlewareStack: { remove(name: string): boolean };
  config: object;
}

/**
 * What every client of the service carries, whatever its service: no call logging, its calls recorded and
 * (locally) authorized as IAM would (`shared/aws/aws-calls.ts`).
 */
const instrumented = <T extends SdkClient & Parameters<typeof meterAwsCalls>[0]>(client: T, service: Parameters<typeof meterAwsCalls>[1]): T => {
  runtime?.prepare(client);
  return meterAwsCalls(withoutCallLogging(client), service);
};

const clients: { dynamodb?: DynamoDBClient; sqs?: SQSClient; events?: unknown; kms?: unknown } = {};

/**
 * The service's AWS clients: one factory per service, one client per process (reused across warm
 * invocations), each on the configuration's region and endpoint, with what the runtime adds (locally the
 * emulators' credentials: {@link useClientRuntime}). Product code gets its clients here and nowhere else.
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
  /**
   * The EventBridge client, made by `make` as the KMS one: only the delivery functions, which publish to the
   * bus, pass the SDK's constructor, so no other bundle holds the EventBridge SDK.
   */
  events<T extends SdkClient & Parameters<typeof meterAwsCalls>[0]>(make: (options: ReturnType<typeof serviceClientOptions>) => T): T {
    clients.events ??= instrumented(make(serviceClientOptions(config().EVENTBRIDGE_ENDPOINT)), 'events');
    return clients.events as T;
  },
  /**
   * The KMS client (data keys of the secrets key, shared/aws/kms-data-keys.ts), made by `make` from the
   * shared options: the few functions that seal or open secrets pass the SDK's constructor, so only their
   * bundles hold the KMS SDK. Locally the runtime answers its calls (`local/local-kms.ts`).
   */
  kms<T extends SdkClient & Parameters<typeof meterAwsCalls>[0]>(make: (options: ReturnType<typeof serviceClientOptions> & typeof reusedHandlers) => T): T {
    clients.kms ??= instrumented(make({ ...serviceClientOptions(undefined), ...reusedHandlers }), 'kms');
    return clients.kms as T;
  },
};

/**
 * Takes the SDK's logger middleware out of a client. This service never logs SDK calls, but that
 * middleware still builds a sensitive-field-filtered copy of every input and output for its no-op logger:
 * a few percent of the CPU of every DynamoDB and SQS call on a busy function.
 */
export function withoutCallLogging<T extends SdkClient>(client: T): T {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}

/**
 * What a runtime other than Lambda adds to every service client: options (credentials, signing) and a last
 * touch to each client made. On AWS nothing is added; the local stack hooks in once at its start
 * (`local/engine-clients.ts`), before any handler module makes a client.
 */
export interface ClientRuntime {
  options: object;
  prepare(client: SdkClient): void;
}

let runtime: ClientRuntime | undefined;

/** Sets the runtime every service client is made for from now on (clients made before are dropped). */
export function useClientRuntime(next: ClientRuntime): void {
  runtime = next;
  delete clients.dynamodb;
  delete clients.sqs;
  delete clients.events;
  delete clients.kms;
}

/**
 * For clients that send plain SDK commands (DynamoDB through `shared/data/table.ts`, SQS): the handler
 * chain each command class resolves is built once and reused, instead of sorting the middleware stack on
 * every call (about a tenth of a call's CPU). Never with `@aws-sdk/lib-dynamodb` commands: they resolve to
 * a handler bound to the first command instance, so a cached one would resend that command's input.
 */
export const reusedHandlers = { cacheMiddleware: true } as const;

/** Region, endpoint and what the runtime adds: what the service's clients share. */
function serviceClientOptions(endpoint: string | undefined) {
  return { region: config().AWS_REGION, endpoint, ...runtime?.options };
}
