/** The part of an AWS SDK v3 client this module touches. */
interface SdkClient {
  middlewareStack: { remove(name: string): boolean };
}

/**
 * Takes the SDK's logger middleware out of a client. This service never logs SDK calls, but that
 * middleware still builds a sensitive-field-filtered copy of every input and output for its no-op logger:
 * a few percent of the CPU of every DynamoDB and SQS call on a busy function.
 */
export function withoutCallLogging<T extends SdkClient>(client: T): T {
  client.middlewareStack.remove('loggerMiddleware');
  return client;
}
