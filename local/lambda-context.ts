import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** One log stream per process, as Lambda has one per execution environment. */
const logStreamSuffix = randomUUID().replaceAll('-', '');

/** The account every local resource pretends to live in (the same one fauxqs puts in its queue ARNs). */
export const localAccountId = '000000000000';

/** Lambda's defaults for the fields a local invocation has no real value for. */
export interface LambdaContextOptions {
  functionName: string;
  /** @default 'us-east-1' */
  region?: string;
  /** Time the invocation may take; drives `getRemainingTimeInMillis`. @default 30_000 */
  timeoutMs?: number;
  /** @default 1024 */
  memoryLimitInMB?: number;
}

/**
 * Builds the `Context` Lambda passes to one invocation. Each call gets a fresh `awsRequestId` and a
 * deadline starting now, so build one per invocation, never per function.
 */
export function createLambdaContext(options: LambdaContextOptions): Context {
  const { functionName, region = 'us-east-1', timeoutMs = 30_000, memoryLimitInMB = 1024 } = options;
  const deadline = Date.now() + timeoutMs;
  const unsupported = (name: string) => () => {
    throw new Error(`context.${name}() is not supported; return a value or throw instead`);
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:${localAccountId}:function:${functionName}`,
    memoryLimitInMB: String(memoryLimitInMB),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/[$LATEST]${logStreamSuffix}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported('done'),
    fail: unsupported('fail'),
    succeed: unsupported('succeed'),
  };
}
