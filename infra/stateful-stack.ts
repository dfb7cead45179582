import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { tableSchema } from '#shared/data/table-schema.ts';
import { queues as queueDefinitions, type QueueName } from '#shared/messaging/queues.ts';

export interface StatefulQueue {
  queue: Queue;
  deadLetterQueue: Queue;
}

/**
 * What outlives a deployment: the single table with its encryption key, the queues with their dead-letter
 * queues, and the event bus that EventBridge event destinations publish to. Every resource is retained and
 * the stack is termination-protected, so removing code never removes data.
 */
export class StatefulStack extends Stack {
  readonly table: Table;
  /** Encrypts the table, which holds webhook signing secrets and fingerprint keys; rotated yearly. */
  readonly tableKey: Key;
  readonly queues: Record<QueueName, StatefulQueue>;
  readonly eventBus: EventBus;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, { ...props, terminationProtection: props.terminationProtection ?? true });

    this.tableKey = new Key(this, 'TableKey', {
      description: `${this.stackName}: encrypts the service table`,
      enableKeyRotation: true,
      // Without the key the table's data cannot be read: it must outlive the stack, like the table.
      removalPolicy: RemovalPolicy.RETAIN,
      pendingWindow: Duration.days(30),
    });

    this.table = new Table(this, 'Table', {
      encryption: TableEncryption.CUSTOMER_MANAGED,
      encryptionKey: this.tableKey,
      partitionKey: { name: tableSchema.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableSchema.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: tableSchema.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const index of tableSchema.globalIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
      });
    }

    const queues: Partial<Record<QueueName, StatefulQueue>> = {};
    for (const [name, definition] of Object.entries(queueDefinitions)) {
      const group = new Construct(this, name);
      // Retention counts from the original enqueue, so the DLQ must keep messages longer than the queue.
      const deadLetterQueue = new Queue(group, 'DeadLetterQueue', {
        retentionPeriod: Duration.days(14),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        removalPolicy: RemovalPolicy.RETAIN,
      });
      const queue = new Queue(group, 'Queue', {
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        removalPolicy: RemovalPolicy.RETAIN,
      });
      queues[name as QueueName] = { queue, deadLetterQueue };
    }
    this.queues = queues as Record<QueueName, StatefulQueue>;

    // Rules attached to the bus outside this stack would be lost with it.
    this.eventBus = new EventBus(this, 'EventBus');
    this.eventBus.applyRemovalPolicy(RemovalPolicy.RETAIN);
  }
}
