import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { logger } from '#shared/core/logger.ts';
import { scheduledJob } from '#shared/core/observability.ts';

const context = {
  functionName: 'sweepBilling',
  awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:sweepBilling',
  memoryLimitInMB: '1024',
  functionVersion: '$LATEST',
} as Context;

/** The JSON log lines written while `work` runs. */
async function linesWritten(work: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await work().catch(() => undefined);
  } finally {
    spy.mockRestore();
  }
  return written
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line));
}

describe('scheduledJob: a scheduled function’s handler', () => {
  // Whatever level the run's environment set (POWERTOOLS_LOG_LEVEL), the job's info lines are written here.
  let level: ReturnType<typeof logger.getLevelName>;
  beforeEach(() => {
    level = logger.getLevelName();
    logger.setLogLevel('INFO');
  });
  afterEach(() => {
    logger.setLogLevel(level);
    logger.resetKeys();
  });

  it('Given an invocation context, when the job logs, then its lines carry the function name and the request id', async () => {
    const handler = scheduledJob(async () => {
      logger.info('Swept due billing objects');
      return { dispatched: 1 };
    });
    let result: unknown;
    const [line] = await linesWritten(async () => {
      result = await handler({ source: 'aws.scheduler' }, context);
    });
    expect(result).toEqual({ dispatched: 1 });
    expect(line).toMatchObject({ message: 'Swept due billing objects', function_name: 'sweepBilling', function_request_id: context.awsRequestId });
  });

  it('Given a run that fails, when the job is invoked, then the error reaches Lambda (a failed run is retried by the schedule)', async () => {
    const handler = scheduledJob(async () => {
      throw new Error('table unavailable');
    });
    await expect(handler({}, context)).rejects.toThrow('table unavailable');
  });
});
