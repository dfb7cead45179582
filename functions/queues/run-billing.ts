import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { billingWorker } from '#shared/billing/billing-worker.ts';
import { wireDueRunner } from '#shared/billing/due-processors.ts';
import { wireQueueSeal } from '#shared/messaging/wiring.ts';

const work = billingWorker({ runner: wireDueRunner(), seal: wireQueueSeal('billing') });

/** Billing queue worker: runs the due work each sealed message points at (shared/billing/billing-worker.ts). */
export const handler = async (event: SQSEvent, _context: Context): Promise<SQSBatchResponse> => ({
  batchItemFailures: (await work(event.Records)).map((itemIdentifier) => ({ itemIdentifier })),
});
