import { parentPort, workerData } from 'node:worker_threads';
import { followLocalClock } from '#shared/core/clock.ts';
import { createModuleLoader } from './http-gateway.ts';
import { startQueuePoller, type QueuePoller, type SqsBatchHandler } from './queue-poller.ts';
import type { QueueWorkersMessage, QueueWorkersSetup } from './queue-workers.ts';
import { useLocalEngines } from './engine-clients.ts';
import { createLocalSqsClient } from './sqs.ts';

const setup = workerData as QueueWorkersSetup;
const port = parentPort!;
const sqsClient = createLocalSqsClient(setup.sqsEndpoint, setup.sqsCredentials);
const pollers: QueuePoller[] = [];
const load = createModuleLoader();
// Before any handler module loads, so that every clock it wires follows the stack's and every client it
// makes reaches the engines with the start's credentials.
followLocalClock(setup.clockOffset);
useLocalEngines(setup.sqsCredentials, Buffer.from(setup.kmsMasterKey));

/** A response crosses to the parent as text: it may hold what a thread cannot post (functions, cycles). */
function asText(response: unknown): string {
  try {
    return JSON.stringify(response) ?? String(response);
  } catch {
    return String(response);
  }
}

try {
  for (const worker of setup.workers) {
    const handler = (await load(worker.handler)) as unknown as SqsBatchHandler;
    const { queueUrl, queueArn, batchSize, name: functionName, permissions } = worker;
    const onInvalidResponse = (response: unknown) =>
      port.postMessage({ kind: 'invalid-response', report: { functionName, response: asText(response) } } satisfies QueueWorkersMessage);
    pollers.push(
      startQueuePoller({ sqsClient, queueUrl, queueArn, batchSize, handler, functionName, permissions, concurrency: setup.concurrency, onInvalidResponse }),
    );
  }
  port.postMessage({ kind: 'ready' } satisfies QueueWorkersMessage);
} catch (error) {
  port.postMessage({ kind: 'failed', message: (error as Error).message } satisfies QueueWorkersMessage);
}

port.on('message', async (message: unknown) => {
  if (message !== 'stop') return;
  await Promise.all(pollers.map((poller) => poller.stop()));
  sqsClient.destroy();
  port.postMessage({ kind: 'stopped' } satisfies QueueWorkersMessage);
  port.close();
});
