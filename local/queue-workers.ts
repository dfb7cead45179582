import { Worker } from 'node:worker_threads';
import type { Permission } from '#functions/permissions.ts';
import type { EmulatorCredentials } from './engine-clients.ts';

/** One queue worker as its thread runs it: the handler module and the queue it polls. */
export interface ThreadedQueueWorker {
  name: string;
  /** Handler module, relative to the repository root (as in the route table). */
  handler: string;
  queueUrl: string;
  queueArn: string;
  batchSize: number;
  /** Its route-table permissions, enforced as IAM would. */
  permissions: readonly Permission[];
}

export interface QueueWorkersSetup {
  sqsEndpoint: string;
  /** What the emulator takes (`LocalSqs.credentials`). */
  sqsCredentials: EmulatorCredentials;
  workers: ThreadedQueueWorker[];
  /** Batches each worker handles at once. */
  concurrency: number;
  /** The local clock's offset (`local/clock.ts`), which the handlers in the thread follow. */
  clockOffset: BigInt64Array;
  /** The master key of the stack's KMS stand-in (`local/local-kms.ts`). */
  kmsMasterKey: Uint8Array;
}

export interface QueueWorkersOptions extends QueueWorkersSetup {
  /** Told of each batch response of a worker that Lambda would reject (see `QueuePollerOptions.onInvalidResponse`). */
  onInvalidResponse?: (report: InvalidBatchResponse) => void;
}

export type QueueWorkersMessage =
  | { kind: 'ready' }
  | { kind: 'stopped' }
  | { kind: 'failed'; message: string }
  | { kind: 'invalid-response'; report: InvalidBatchResponse };

/** A batch response Lambda would reject, from a worker of the thread (see `QueuePollerOptions.onInvalidResponse`). */
export interface InvalidBatchResponse {
  functionName: string;
  /** The response as JSON (or as `String()` gives it when it is not JSON). */
  response: string;
}

export interface QueueWorkers {
  /** Stops the pollers after their batches in flight are handled and deleted, then ends the thread. */
  stop(): Promise<void>;
}

/**
 * Runs the queue workers in a thread of their own, with their own module instances and clients, as
 * separate Lambda functions would: the HTTP API and the workers then use both cores instead of sharing
 * one event loop. The thread inherits the environment as it is now (queue URLs, endpoints).
 */
export async function startQueueWorkers({ onInvalidResponse, ...setup }: QueueWorkersOptions): Promise<QueueWorkers> {
  const thread = new Worker(new URL('./queue-workers-thread.mjs', import.meta.url), { workerData: setup, execArgv: [] });
  thread.on('message', (message: QueueWorkersMessage) => {
    if (message.kind === 'invalid-response') onInvalidResponse?.(message.report);
  });
  const next = (kind: QueueWorkersMessage['kind']) =>
    new Promise<void>((resolve, reject) => {
      const onMessage = (message: QueueWorkersMessage) => {
        if (message.kind === 'failed') reject(new Error(`The queue workers could not start: ${message.message}`));
        else if (message.kind === kind) resolve();
        else return;
        cleanUp();
      };
      const onExit = (code: number) => {
        reject(new Error(`The queue workers' thread ended (code ${code}) before it was ${kind}`));
        cleanUp();
      };
      const cleanUp = () => {
        thread.off('message', onMessage);
        thread.off('error', reject);
        thread.off('exit', onExit);
      };
      thread.on('message', onMessage);
      thread.on('error', reject);
      thread.on('exit', onExit);
    });
  try {
    await next('ready');
  } catch (error) {
    await thread.terminate();
    throw error;
  }
  return {
    async stop() {
      const stopped = next('stopped');
      thread.postMessage('stop');
      await stopped.catch(() => undefined);
      await thread.terminate();
    },
  };
}
