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
import { tableNamePattern, tableSchema } from '#shared/data/table-schema.ts';
import { SecretsKey } from './secrets-key.ts';
import { queues as queueDefinitions, type QueueName } from '#shared/messaging/queues.ts';

/**
 * What a deployment may set of the stateful stack, as context keys of the same names, checked at synth
 * (a malformed value stops `cdk synth` naming the key):
 * - the warm throughput of the table and of each index: what they serve at once from the first request,
 *   without waiting for on-demand scaling (a new on-demand table starts at 4,000 write and 12,000 read
 *   units a second). Sized for docs/capacity.md's target, 10,000 meter events a second at 3 write units,
 *   and each index for the worst due-index load at that rate (5,000 writes a second from 4-event stream
 *   requests). Each increase is charged once and never goes down; 0 leaves DynamoDB's default.
 * - the backup plan: how long the daily backups are kept, and the vault in another account or region each
 *   is copied to (the copy is what survives the loss of this account or region);
 * - `restoredTableName`, the table a restore made, which the functions then serve.
 * docs/operations.md lists each.
 */
const statefulSettings = z.object({
  tableWarmWriteUnits: z.coerce.number().int().nonnegative().default(30_000),
  tableWarmReadUnits: z.coerce.number().int().nonnegative().default(12_000),
  indexWarmWriteUnits: z.coerce.number().int().nonnegative().default(6_000),
  backupRetentionDays: z.coerce.number().int().min(1).max(36_500).default(35),
  backupCopyVaultArn: z
    .string()
    .regex(/^arn:aws[a-z-]*:backup:[a-z0-9-]+:\d{12}:backup-vault:[\w.-]{2,50}$/, 'a backup vault ARN')
    .optional(),
  restoredTableName: z.string().regex(tableNamePattern, 'a DynamoDB table name').optional(),
});

type StatefulSettings = z.output<typeof statefulSettings>;

function statefulSettingsOf(scope: Construct): StatefulSettings {
  // `-c key=` on the command line gives an empty string: treat it as not set.
  const given = Object.fromEntries(
    Object.keys(statefulSettings.shape).map((key) => {
      const value: unknown = scope.node.tryGetContext(key);
      return [key, value === '' ? undefined : value];
    }),
  );
  const parsed = statefulSettings.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Context ${String(issue.path[0])} is not valid (${issue.message}), got ${JSON.stringify(given[String(issue.path[0])])}`);
  }
  return parsed.data;
}

/** A warm throughput for CloudFormation, or none when both are 0 (DynamoDB's default). */
const warmThroughput = (write: number, read = 0) =>
  write > 0 || read > 0 ? { ...(write > 0 ? { writeUnitsPerSecond: write } : {}), ...(read > 0 ? { readUnitsPerSecond: read } : {}) } : undefined;

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
  /** Encrypts the table, which holds webhook signing secrets (sealed) and fingerprint keys; rotated yearly. */
  readonly tableKey: Key;
  /** Seals webhook signing secrets (infra/secrets-key.ts): used only by the functions that seal or open them. */
  readonly secretsKey: Key;
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

    this.secretsKey = new SecretsKey(this, 'SecretsKey').key;

    const settings = statefulSettingsOf(this);
    const warm = { table: warmThroughput(settings.tableWarmWriteUnits, settings.tableWarmReadUnits), index: warmThroughput(settings.indexWarmWriteUnits) };
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

    const restored = settings.restoredTableName;
    this.servedTable = restored
      ? Table.fromTableAttributes(this, 'RestoredTable', {
          tableName: restored,
          encryptionKey: this.tableKey,
          globalIndexes: tableSchema.globalIndexes.map((index) => index.indexName),
        })
      : this.table;
    const { plan, vault } = this.backUp(settings);
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
  private backUp({ backupRetentionDays, backupCopyVaultArn }: StatefulSettings): { plan: BackupPlan; vault: BackupVault } {
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
