import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { inject } from 'vitest';
import { createLocalSqsClient } from '#local/sqs.ts';

const pollMs = 50;

/**
 * Polls `probe` until it returns a value other than undefined, and returns that value; throws when
 * `timeoutMs` passes first. A probe answers a fact (a webhook arrived, a status changed), never a time.
 */
export async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Messages a queue holds: ready, taken by a worker that has not finished, and delayed. */
const depthAttributes = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;

export interface QuiesceOptions {
  /** Only these queues (all of the stack's service queues by default). */
  queues?: readonly ('deliveries' | 'meter-events')[];
  timeoutMs?: number;
}

const queueUrlVariable = (queue: string) => `${queue.toUpperCase().replaceAll('-', '_')}_QUEUE_URL`;

/**
 * Waits until the shared local stack has nothing left to do: every service queue (deliveries, meter events)
 * holds no ready, in-flight or delayed message, and stays so through a whole run of the stack's scheduled
 * jobs (the outbox and delivery sweepers, which enqueue whatever is overdue). Afterwards nothing already
 * asked of the stack can still happen, so a test may assert that something did not happen (no duplicate
 * webhook, nothing counted late) without sleeping a guessed time.
 *
 * The local stack has no "settled" route of its own; this reads the SQS emulator's queue depths with the
 * stack's credentials, as a deployment's operator would read CloudWatch's. In a full run other test files
 * share the stack, so it waits for their work too: it can take longer, never less time than the facts need.
 */
export async function quiesce({ queues, timeoutMs = 45_000 }: QuiesceOptions = {}): Promise<void> {
  const stack = inject('stack');
  const sqs = createLocalSqsClient(stack.env.SQS_ENDPOINT!, { accessKeyId: stack.env.AWS_ACCESS_KEY_ID!, secretAccessKey: stack.env.AWS_SECRET_ACCESS_KEY! });
  const queueUrls = Object.entries(stack.env)
    .filter(([name]) => name.endsWith('_QUEUE_URL') && (queues === undefined || queues.some((queue) => name === queueUrlVariable(queue))))
    .map(([, url]) => url);
  const depths = async () =>
    Promise.all(
      queueUrls.map(async (QueueUrl) => {
        const { Attributes = {} } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: [...depthAttributes] }));
        return { QueueUrl, held: depthAttributes.reduce((sum, name) => sum + Number(Attributes[name] ?? 0), 0) };
      }),
    );
  const deadline = Date.now() + timeoutMs;
  let emptySince: number | undefined;
  try {
    for (;;) {
      const read = await depths();
      const now = Date.now();
      if (read.every(({ held }) => held === 0)) {
        emptySince ??= now;
        // Empty through more than one job interval: any sweep that began before the queues emptied has enqueued by now.
        if (now - emptySince > stack.jobIntervalMs) return;
      } else {
        emptySince = undefined;
      }
      if (now > deadline) {
        const busy = read.filter(({ held }) => held > 0).map(({ QueueUrl, held }) => `${QueueUrl}: ${held}`);
        throw new Error(`The local stack's queues did not settle within ${timeoutMs} ms (${busy.join(', ') || 'emptied too late'})`);
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  } finally {
    sqs.destroy();
  }
}

/**
 * Waits until the local stack's clock (`GET /_local/clock`) reads at least `unixSeconds`, so that a
 * timestamp the stack gives from now on is later than one it gave before, without a guessed sleep.
 */
export async function clockPasses(unixSeconds: number): Promise<number> {
  const { baseUrl } = inject('stack');
  return eventually(async () => {
    const { now } = (await (await fetch(`${baseUrl}/_local/clock`)).json()) as { now: number };
    return now >= unixSeconds ? now : undefined;
  }, 10_000);
}
