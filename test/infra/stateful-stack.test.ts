import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Match, Template } from 'aws-cdk-lib/assertions';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnQueue } from 'aws-cdk-lib/aws-sqs';
import { StatefulStack } from '#infra/stateful-stack.ts';
import { queues } from '#shared/messaging/queues.ts';
import { serviceApp } from './support/service-app.ts';

describe('stateful stack', () => {
  let stack: StatefulStack;
  let template: Template;
  let cleanUp: () => void;

  beforeAll(() => {
    const service = serviceApp();
    cleanUp = service.cleanUp;
    stack = new StatefulStack(service.app, 'ServiceStateful');
    template = Template.fromStack(stack);
  });
  afterAll(() => cleanUp());

  it('builds one on-demand table keyed by PK and SK with GSI1 and GSI2 projecting every attribute', () => {
    // Given the stateful stack
    // When its template is read
    // Then there is exactly one table with the schema of shared/data/table-schema.ts
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'PK', KeyType: 'HASH' },
        { AttributeName: 'SK', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith([
        { AttributeName: 'PK', AttributeType: 'S' },
        { AttributeName: 'SK', AttributeType: 'S' },
        { AttributeName: 'GSI1PK', AttributeType: 'S' },
        { AttributeName: 'GSI1SK', AttributeType: 'S' },
        { AttributeName: 'GSI2PK', AttributeType: 'S' },
        { AttributeName: 'GSI2SK', AttributeType: 'S' },
      ]),
      GlobalSecondaryIndexes: [
        {
          IndexName: 'GSI1',
          KeySchema: [
            { AttributeName: 'GSI1PK', KeyType: 'HASH' },
            { AttributeName: 'GSI1SK', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
        {
          IndexName: 'GSI2',
          KeySchema: [
            { AttributeName: 'GSI2PK', KeyType: 'HASH' },
            { AttributeName: 'GSI2SK', KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
  });

  it('lets DynamoDB expire items through the expiresAt attribute', () => {
    // Given the stateful stack
    // When its template is read
    // Then TTL is enabled on expiresAt
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
    });
  });

  it('keeps the table through stack deletion and replacement, with point-in-time recovery', () => {
    // Given the stateful stack
    // When its template is read
    // Then the table is retained, protected from deletion and continuously backed up
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      }),
    });
  });

  it('warms the table and each index for the target rate of docs/capacity.md, and lets context change or drop it', () => {
    // Given the stateful stack with the default context
    // When its template is read
    // Then the table serves 30,000 write and 12,000 read units a second from its first request, each index 6,000 writes
    const table = Object.values(template.findResources('AWS::DynamoDB::Table'))[0]!.Properties;
    expect(table.WarmThroughput).toEqual({ WriteUnitsPerSecond: 30_000, ReadUnitsPerSecond: 12_000 });
    expect(table.GlobalSecondaryIndexes.map((index: { WarmThroughput: unknown }) => index.WarmThroughput)).toEqual([
      { WriteUnitsPerSecond: 6_000 },
      { WriteUnitsPerSecond: 6_000 },
    ]);

    // And context overrides it: 0 leaves DynamoDB's default, a malformed value stops the synth naming the key
    const other = serviceApp({ tableWarmWriteUnits: '0', tableWarmReadUnits: 0, indexWarmWriteUnits: 0 });
    const cold = Object.values(Template.fromStack(new StatefulStack(other.app, 'ServiceStateful')).findResources('AWS::DynamoDB::Table'))[0]!.Properties;
    other.cleanUp();
    expect(cold.WarmThroughput).toBeUndefined();
    expect(cold.GlobalSecondaryIndexes.every((index: { WarmThroughput?: unknown }) => index.WarmThroughput === undefined)).toBe(true);
    const wrong = serviceApp({ tableWarmWriteUnits: 'lots' });
    expect(() => new StatefulStack(wrong.app, 'ServiceStateful')).toThrow(/tableWarmWriteUnits/);
    wrong.cleanUp();
  });

  it('backs the table up daily into a retained vault for 35 days, and copies each backup to the vault of -c backupCopyVaultArn', () => {
    // Given the stateful stack with the default context
    // Then a daily rule at 03:00 UTC keeps each backup 35 days, in a vault that outlives the stack, without a copy
    const [rule] = Object.values(template.findResources('AWS::Backup::BackupPlan'))[0]!.Properties.BackupPlan.BackupPlanRule;
    expect(rule).toMatchObject({ RuleName: 'Daily', ScheduleExpression: 'cron(0 3 * * ? *)', Lifecycle: { DeleteAfterDays: 35 } });
    expect(rule.CopyActions).toBeUndefined();
    template.hasResource('AWS::Backup::BackupVault', { DeletionPolicy: 'Retain' });
    // And the table is what the plan selects
    const tableId = stack.getLogicalId(stack.table.node.defaultChild as CfnTable);
    const selection = Object.values(template.findResources('AWS::Backup::BackupSelection'))[0]!.Properties.BackupSelection;
    expect(JSON.stringify(selection.Resources)).toContain(tableId);

    // Given a vault in another account or region, and another retention
    const copyVault = 'arn:aws:backup:eu-central-1:210987654321:backup-vault:service-copies';
    const other = serviceApp({ backupCopyVaultArn: copyVault, backupRetentionDays: '90' });
    const copied = Template.fromStack(new StatefulStack(other.app, 'ServiceStateful'));
    other.cleanUp();
    // Then each backup is copied there and kept as long
    const [copiedRule] = Object.values(copied.findResources('AWS::Backup::BackupPlan'))[0]!.Properties.BackupPlan.BackupPlanRule;
    expect(copiedRule.Lifecycle).toEqual({ DeleteAfterDays: 90 });
    expect(copiedRule.CopyActions).toEqual([{ DestinationBackupVaultArn: copyVault, Lifecycle: { DeleteAfterDays: 90 } }]);
    // And that account may use the vault's key, through AWS Backup only
    const keyPolicy = JSON.stringify(Object.values(copied.findResources('AWS::KMS::Key'))[0]!.Properties.KeyPolicy);
    expect(keyPolicy).toContain('BackupCopiesToAnotherAccount');
    expect(keyPolicy).toContain(':iam::210987654321:root');
    expect(keyPolicy).toContain('backup.*.amazonaws.com');

    // And a value that is not a vault ARN stops the synth naming the key
    const wrong = serviceApp({ backupCopyVaultArn: 'arn:aws:s3:::bucket' });
    expect(() => new StatefulStack(wrong.app, 'ServiceStateful')).toThrow(/backupCopyVaultArn/);
    wrong.cleanUp();
  });

  it('gives every queue its own dead-letter queue, with the receive count and visibility timeout of its definition', () => {
    // Given the queue definitions of shared/messaging/queues.ts
    const definitions = Object.entries(queues);

    // When the template is read
    // Then there is a queue and a dead-letter queue per definition
    template.resourceCountIs('AWS::SQS::Queue', definitions.length * 2);
    // And each queue redrives to its own dead-letter queue
    for (const [name, definition] of definitions) {
      const { queue, deadLetterQueue } = stack.queues[name as keyof typeof queues];
      const queueId = stack.getLogicalId(queue.node.defaultChild as CfnQueue);
      const deadLetterQueueId = stack.getLogicalId(deadLetterQueue.node.defaultChild as CfnQueue);
      expect(template.toJSON().Resources[queueId].Properties).toMatchObject({
        VisibilityTimeout: definition.visibilityTimeoutSeconds,
        RedrivePolicy: {
          deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterQueueId, 'Arn'] },
          maxReceiveCount: definition.maxReceiveCount,
        },
      });
    }
  });

  it('keeps dead letters longer than the queues keep messages', () => {
    // Given the stateful stack
    // When its template is read
    // Then every dead-letter queue keeps messages for the 14-day maximum
    for (const { deadLetterQueue } of Object.values(stack.queues)) {
      const id = stack.getLogicalId(deadLetterQueue.node.defaultChild as CfnQueue);
      expect(template.toJSON().Resources[id].Properties.MessageRetentionPeriod).toBe(14 * 24 * 60 * 60);
    }
  });

  it('encrypts every queue at rest, refuses unencrypted transport and retains it', () => {
    // Given the stateful stack
    const sqsQueues = template.findResources('AWS::SQS::Queue');

    // When its queues are read
    // Then each has SSE, is retained and has a policy denying requests without TLS
    for (const [id, queue] of Object.entries(sqsQueues)) {
      expect(queue).toMatchObject({
        DeletionPolicy: 'Retain',
        Properties: { SqsManagedSseEnabled: true },
      });
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        },
      });
    }
  });

  it('creates a retained event bus for EventBridge event destinations', () => {
    // Given the stateful stack
    // When its template is read
    // Then there is one event bus that outlives the stack
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.hasResource('AWS::Events::EventBus', { DeletionPolicy: 'Retain' });
  });

  it('is termination-protected', () => {
    // Given the stateful stack built with default props
    // When its settings are read
    // Then CloudFormation refuses to delete it
    expect(stack.terminationProtection).toBe(true);
  });
});
