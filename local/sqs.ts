import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Worker } from 'node:worker_threads';
import type { QueueName } from '#shared/messaging/queues.ts';
import { deadLetterQueueName, queues, type QueueDefinition } from '#shared/messaging/queues.ts';
import { reusedHandlers, withoutCallLogging } from '#shared/aws/sdk-clients.ts';
import { emulatorClientOptions, forEngines, type EmulatorCredentials } from './engine-clients.ts';
import { newEngineCredentials } from './engine-guard.ts';

/** One queue created in the emulator, with its dead-letter queue. */
export interface LocalQueue {
  definition: QueueDefinition;
  url: string;
  arn: string;
  deadLetterUrl: string;
  deadLetterArn: string;
}

export interface LocalSqs {
  /** `http://127.0.0.1:<port>`, for the SDK's `endpoint` and the `SQS_ENDPOINT` variable. */
  endpoint: string;
  /** What every client must sign with (see {@link createLocalSqsClient}): the emulator refuses any other key id. */
  credentials: EmulatorCredentials;
  /** URL of every service queue, by name (what `<QUEUE>_QUEUE_URL` variables carry). */
  queueUrls: Record<QueueName, string>;
  deadLetterQueueUrls: Record<QueueName, string>;
  /** Every queue created so far, service queues and extra ones, by queue name. */
  queues: ReadonlyMap<string, LocalQueue>;
  /**
   * Creates a queue and its `<name>-dlq` with the definition's visibility timeout and redrive policy,
   * through the SQS API as a deployment would. Returns the existing queue for a name already created.
   */
  createQueue(definition: QueueDefinition): Promise<LocalQueue>;
  /**
   * Resolves once no message of the service queues (dead-letter queues aside) is visible or being handled,
   * true, or after `timeoutMs` with false. Delayed messages do not count.
   */
  settled(timeoutMs: number): Promise<boolean>;
  /**
   * The earliest instant (the stack clock's milliseconds) after `after` at which a message of a service queue
   * becomes visible: a delayed message's end of delay, or a message in flight's end of visibility timeout.
   */
  nextDue(after: number): Promise<number | undefined>;
  /** Stops the emulator; stop queue pollers first, or their long polls hold it open until they time out. */
  stop(): Promise<void>;
}

export interface LocalSqsOptions {
  /** Queues to create besides the service's own, e.g. a test queue with a short visibility timeout. */
  extraQueues?: QueueDefinition[];
  /**
   * The local clock's offset (`local/clock.ts`): the emulator's delays and visibility timeouts follow it, so
   * a message delayed until a time the clock has been moved past is received at once.
   */
  clockOffset?: BigInt64Array;
  /** The only access key id the emulator takes. @default fresh random ones */
  credentials?: EmulatorCredentials;
}

/** What the emulator's thread (`local/sqs-thread.ts`) starts with. */
export interface SqsThreadSetup {
  clockOffset?: BigInt64Array;
  credentials: EmulatorCredentials;
}

/** A client for the emulator: the stack's credentials, us-east-1. */
export function createLocalSqsClient(endpoint: string, credentials: EmulatorCredentials): SQSClient {
  return forEngines(withoutCallLogging(new SQSClient({ endpoint, region: 'us-east-1', ...emulatorClientOptions(credentials), ...reusedHandlers })));
}

/**
 * Starts the fauxqs SQS emulator in this process (in a worker thread) on 127.0.0.1 and a free port, and
 * creates every queue of {@link queues}, each with its dead-letter queue. State lives in memory only (the table is the source of
 * truth; queue messages are triggers). It answers loopback Hosts and the given credentials only
 * (`local/engine-guard.ts`), on every route fauxqs has (its SNS-style form actions too).
 */
export async function startSqs(options: LocalSqsOptions = {}): Promise<LocalSqs> {
  const credentials = options.credentials ?? newEngineCredentials();
  // The emulator serves every queue call of the API and the workers: in a thread of its own it uses the
  // second core instead of the API's event loop.
  const setup: SqsThreadSetup = { clockOffset: options.clockOffset, credentials };
  const thread = new Worker(new URL('./sqs-thread.mjs', import.meta.url), { execArgv: [], workerData: setup });
  const port = await new Promise<number>((resolve, reject) => {
    thread.once('message', (message: { port: number }) => resolve(message.port));
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`The SQS emulator's thread ended (code ${code}) before listening`)));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const client = createLocalSqsClient(endpoint, credentials);
  const created = new Map<string, LocalQueue>();

  const make = async (name: string, attributes: Record<string, string>) => {
    const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
    const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
    return { url: QueueUrl!, arn: Attributes!.QueueArn! };
  };

  const createQueue = async (definition: QueueDefinition): Promise<LocalQueue> => {
    const existing = created.get(definition.name);
    if (existing) return existing;
    // AWS's longest retention, so poison messages stay around to be inspected.
    const deadLetter = await make(deadLetterQueueName(definition), { MessageRetentionPeriod: '1209600' });
    const queue = await make(definition.name, {
      VisibilityTimeout: String(definition.visibilityTimeoutSeconds),
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetter.arn, maxReceiveCount: String(definition.maxReceiveCount) }),
    });
    const localQueue: LocalQueue = { definition, url: queue.url, arn: queue.arn, deadLetterUrl: deadLetter.url, deadLetterArn: deadLetter.arn };
    created.set(definition.name, localQueue);
    return localQueue;
  };

  const queueNames = Object.keys(queues) as QueueName[];
  const serviceQueues = await Promise.all(queueNames.map(async (name) => [name, await createQueue(queues[name])] as const));
  for (const definition of options.extraQueues ?? []) await createQueue(definition);

  return {
    endpoint,
    credentials,
    queueUrls: Object.fromEntries(serviceQueues.map(([name, queue]) => [name, queue.url])) as Record<QueueName, string>,
    deadLetterQueueUrls: Object.fromEntries(serviceQueues.map(([name, queue]) => [name, queue.deadLetterUrl])) as Record<QueueName, string>,
    queues: created,
    createQueue,
    async settled(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const counts = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] as const;
      const busy = async () => {
        const answers = await Promise.all(
          serviceQueues.map(([, queue]) => client.send(new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: [...counts] }))),
        );
        return answers.some(({ Attributes }) => counts.some((count) => Number(Attributes?.[count] ?? 0) > 0));
      };
      while (await busy()) {
        if (Date.now() > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return true;
    },
    async nextDue(after) {
      // fauxqs's own inspection route (`/_fauxqs/queues/<name>`), behind the engine guard like every route.
      const authorization = `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/inspect`;
      const dues = await Promise.all(
        serviceQueues.map(async ([, queue]) => {
          const response = await fetch(`${endpoint}/_fauxqs/queues/${encodeURIComponent(queue.definition.name)}`, { headers: { authorization } });
          if (!response.ok) throw new Error(`The SQS emulator would not show queue ${queue.definition.name} (HTTP ${response.status})`);
          const { messages } = (await response.json()) as {
            messages: { delayed: Array<{ delayUntil?: number }>; inflight: Array<{ visibilityDeadline: number }> };
          };
          return [...messages.delayed.map((message) => message.delayUntil ?? 0), ...messages.inflight.map((entry) => entry.visibilityDeadline)];
        }),
      );
      return dues.flat().reduce<number | undefined>((earliest, due) => (due > after && (earliest === undefined || due < earliest) ? due : earliest), undefined);
    },
    stop: async () => {
      client.destroy();
      const exited = new Promise((resolve) => thread.once('exit', resolve));
      thread.postMessage('stop');
      await exited;
    },
  };
}
