import { Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { BackupPlan, BackupPlanRule, BackupResource, BackupVault } from 'aws-cdk-lib/aws-backup';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { AttributeType, BillingMode, type ITable, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { AccountPrincipal, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import * as z from 'zod';
import { tableSchema } from '#shared/data/table-schema.ts';
import { queues as queueDefinitions, type QueueName } from '#shared/messaging/queues.ts';

/**
 * The table's warm throughput: what it serves at once from its first request, without waiting for
 * on-demand scaling (a new on-demand table starts at 4,000 write and 12,000 read units a second). Sized
 * for the target of docs/capacity.md, 10,000 meter events a second at 3 write units each; each index for
 * the worst due-index load at that rate (5,000 writes a second from 4-event stream requests). Raising it is
 * charged once per increase (DynamoDB pricing, "warm throughput"); it never goes down. Context keys of the
 * same names override (`-c tableWarmWriteUnits=…`); 0 leaves DynamoDB's default.
 */
/**
 * The backup plan's settings (context keys of the same names): how long the daily backups are kept, and
 * the vault in another account or region each one is copied to (its ARN; the copy is what survives the
 * loss of this account or region). docs/operations.md, *Backups and restore*.
 */
const backupSettings = z.object({
  backupRetentionDays: z.coerce.number().int().min(1).max(36_500).default(35),
  backupCopyVaultArn: z
    .string()
    .regex(/^arn:aws[a-z-]*:backup:[a-z0-9-]+:\d{12}:backup-vault:[\w.-]{2,50}$/, 'a backup vault ARN')
    .optional(),
});

const warmSettings = z.object({
  tableWarmWriteUnits: z.coerce.number().int().nonnegative().default(30_000),
  tableWarmReadUnits: z.coerce.number().int().nonnegative().default(12_000),
  indexWarmWriteUnits: z.coerce.number().int().nonnegative().default(6_000),
});

function warmThroughputOf(scope: Construct) {
  const context = (key: string) => scope.node.tryGetContext(key) as unknown;
  const parsed = warmSettings.safeParse({
    tableWarmWriteUnits: context('tableWarmWriteUnits'),
    tableWarmReadUnits: context('tableWarmReadUnits'),
    indexWarmWriteUnits: context('indexWarmWriteUnits'),
  });
  if (!parsed.success) throw new Error(`Context ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  const { tableWarmWriteUnits, tableWarmReadUnits, indexWarmWriteUnits } = parsed.data;
  const warm = (write: number, read: number) =>
    write > 0 || read > 0 ? { ...(write > 0 ? { writeUnitsPerSecond: write } : {}), ...(read > 0 ? { readUnitsPerSecond: read } : {}) } : undefined;
  return { table: warm(tableWarmWriteUnits, tableWarmReadUnits), index: warm(indexWarmWriteUnits, 0) };
}

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
  /**
   * The table the functions serve: `table`, or after a restore the table DynamoDB restored into
   * (`-c restoredTableName=…`, encrypted with `tableKey`; docs/operations.md, *Backups and restore*), which
   * the backup plan then selects too. The original table stays, retained, until it is deleted by hand.
   */
  readonly servedTable: ITable;
  /** Encrypts the table, which holds webhook signing secrets and fingerprint keys; rotated yearly. */
  readonly tableKey: Key;
  readonly queues: Record<QueueName, StatefulQueue>;
  readonly eventBus: EventBus;
  /** The daily backup of the table (AWS Backup), kept in this stack's vault and, when configured, copied out. */
  readonly backupPlan: BackupPlan;
  /** The vault the daily backups go to, whose failed backup and copy jobs alarm (infra/monitoring.ts). */
  readonly backupVaultName: string;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, { ...props, terminationProtection: props.terminationProtection ?? true });

    this.tableKey = new Key(this, 'TableKey', {
      description: `${this.stackName}: encrypts the service table`,
      enableKeyRotation: true,
      // Without the key the table's data cannot be read: it must outlive the stack, like the table.
      removalPolicy: RemovalPolicy.RETAIN,
      pendingWindow: Duration.days(30),
    });

    const warm = warmThroughputOf(this);
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
      ...(warm.table ? { warmThroughput: warm.table } : {}),
    });
    for (const index of tableSchema.globalIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType.ALL,
        ...(warm.index ? { warmThroughput: warm.index } : {}),
      });
    }

    const restored: unknown = this.node.tryGetContext('restoredTableName') || undefined;
    if (restored !== undefined && (typeof restored !== 'string' || !/^[A-Za-z0-9_.-]{3,255}$/.test(restored))) {
      throw new Error(`Context restoredTableName is not valid (a DynamoDB table name), got ${JSON.stringify(restored)}`);
    }
    this.servedTable = restored
      ? Table.fromTableAttributes(this, 'RestoredTable', {
          tableName: restored,
          encryptionKey: this.tableKey,
          globalIndexes: tableSchema.globalIndexes.map((index) => index.indexName),
        })
      : this.table;
    const { plan, vault } = this.backUp();
    this.backupPlan = plan;
    this.backupVaultName = vault.backupVaultName;

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

  /**
   * A daily backup of the table at 03:00 UTC into a vault of this stack (encrypted with the table's key,
   * retained), kept `backupRetentionDays`, and copied to `backupCopyVaultArn` when given. Point-in-time
   * recovery stays on beside it: PITR restores any second of the last 35 days in this account and region;
   * the copies are what a lost account or region is restored from.
   */
  private backUp(): { plan: BackupPlan; vault: BackupVault } {
    const context = (key: string) => this.node.tryGetContext(key) as unknown;
    const given = { backupRetentionDays: context('backupRetentionDays'), backupCopyVaultArn: context('backupCopyVaultArn') || undefined };
    const parsed = backupSettings.safeParse(given);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`Context ${String(issue.path[0])} is not valid (${issue.message})`);
    }
    const { backupRetentionDays, backupCopyVaultArn } = parsed.data;
    const vault = new BackupVault(this, 'BackupVault', { encryptionKey: this.tableKey, removalPolicy: RemovalPolicy.RETAIN });
    // A copy to another account needs that account to use this vault's key, through AWS Backup only.
    const copyAccount = backupCopyVaultArn?.split(':')[4];
    if (copyAccount && copyAccount !== this.account) {
      this.tableKey.addToResourcePolicy(
        new PolicyStatement({
          sid: 'BackupCopiesToAnotherAccount',
          principals: [new AccountPrincipal(copyAccount)],
          actions: ['kms:Decrypt', 'kms:DescribeKey', 'kms:CreateGrant'],
          resources: ['*'],
          conditions: { StringLike: { 'kms:ViaService': 'backup.*.amazonaws.com' } },
        }),
      );
    }
    const deleteAfter = Duration.days(backupRetentionDays);
    const plan = new BackupPlan(this, 'BackupPlan', { backupVault: vault });
    plan.addRule(
      new BackupPlanRule({
        ruleName: 'Daily',
        scheduleExpression: Schedule.cron({ hour: '3', minute: '0' }),
        startWindow: Duration.hours(1),
        completionWindow: Duration.hours(8),
        deleteAfter,
        ...(backupCopyVaultArn
          ? { copyActions: [{ destinationBackupVault: BackupVault.fromBackupVaultArn(this, 'BackupCopyVault', backupCopyVaultArn), deleteAfter }] }
          : {}),
      }),
    );
    plan.addSelection('Table', {
      resources: [
        BackupResource.fromDynamoDbTable(this.table),
        ...(this.servedTable !== this.table ? [BackupResource.fromArn(this.servedTable.tableArn)] : []),
      ],
    });
    return { plan, vault };
  }
}
