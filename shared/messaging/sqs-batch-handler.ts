import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { logger } from '#shared/core/logger.ts';

/**
 * An SQS-triggered function's handler that runs `handleRecord` on every record of a batch in parallel and
 * reports the records that threw as `batchItemFailures` (Powertools batch, `ReportBatchItemFailures`).
 *
 * Each invocation gets its own `BatchProcessor`: a processor keeps the batch it is working on (records,
 * successes, failures) in its fields, so one shared by two invocations in flight answers for both with a
 * mix of their records, which Lambda reads as an invalid response and retries whole. Lambda runs one
 * invocation at a time per instance, but nothing in the handler should depend on it: a processor is three
 * arrays, cheaper to make than to reason about.
 */
export function sqsBatchHandler(handleRecord: (record: SQSRecord) => Promise<unknown>) {
  return (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    // The records' log lines carry the invocation's context (function name, request id), as the routes' do.
    logger.addContext(context);
    return processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), { context });
  };
}
