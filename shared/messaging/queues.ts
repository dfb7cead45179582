/** The service's queues; each has a dead-letter queue. */
export type QueueName = 'deliveries' | 'meter-events' | 'billing';

export interface QueueDefinition {
  /** Physical queue name in the local stack; the CDK stack lets CloudFormation name it. */
  name: string;
  /** Environment variable through which functions receive the queue URL. */
  urlVariable: string;
  /**
   * Seconds a received message stays invisible before another attempt: at least six times the worker's
   * timeout, as AWS advises for Lambda event sources, so a throttled or retried invocation does not see
   * its own batch come back while it still runs.
   */
  visibilityTimeoutSeconds: number;
  /** Receives before a message moves to the dead-letter queue. */
  maxReceiveCount: number;
}

/** How long a queue worker (and a scheduled job) may run; the stacks set it as the Lambda timeout. */
export const workerTimeoutSeconds = 30;

/** Every queue of the service; each gets a dead-letter queue named `<name>-dlq`. */
export const queues: Record<QueueName, QueueDefinition> = {
  deliveries: { name: 'deliveries', urlVariable: 'DELIVERIES_QUEUE_URL', visibilityTimeoutSeconds: 6 * workerTimeoutSeconds, maxReceiveCount: 5 },
  'meter-events': { name: 'meter-events', urlVariable: 'METER_EVENTS_QUEUE_URL', visibilityTimeoutSeconds: 6 * workerTimeoutSeconds, maxReceiveCount: 5 },
  /** Pointers to billing objects whose due work should start now (a test clock's advance); the sweeper covers a lost one. */
  billing: { name: 'billing', urlVariable: 'BILLING_QUEUE_URL', visibilityTimeoutSeconds: 6 * workerTimeoutSeconds, maxReceiveCount: 5 },
};

export const deadLetterQueueName = (queue: QueueDefinition): string => `${queue.name}-dlq`;
