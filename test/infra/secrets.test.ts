import { Stack } from 'aws-cdk-lib';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Permission } from '#functions/permissions.ts';
import { queueWorkers, routes, scheduledJobs } from '#functions/routes.ts';
import type { ServiceFunction } from '#infra/service-function.ts';
import { functionProperties, isArnOf, realService, type StatelessTemplates, type SynthesizedService } from './support/service-app.ts';

interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

/** Every statement (Allow and Deny) of the identity policies attached to the function's role. */
function statementsOf(templates: StatelessTemplates, fn: ServiceFunction): Statement[] {
  const roleId = Stack.of(fn).getLogicalId(fn.role.node.defaultChild as CfnRole);
  const policies = Object.values(templates.of(fn).findResources('AWS::IAM::Policy')) as {
    Properties: { Roles: unknown[]; PolicyDocument: { Statement: Statement[] } };
  }[];
  return policies
    .filter((policy) => policy.Properties.Roles.some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

const actionsOf = (statement: Statement) => [statement.Action].flat();
const leadingKeysOf = (statement: Statement) => JSON.stringify(statement.Condition ?? {});

describe('secrets out of reach', () => {
  let service: SynthesizedService;
  let functions: Record<string, ServiceFunction>;
  const entries = [...routes, ...queueWorkers, ...scheduledJobs];

  beforeAll(() => {
    service = realService();
    functions = service.stateless.functions;
  });

  it('keeps a secrets key of its own, rotated yearly and retained like the table', () => {
    // Given the stateful template
    const keys = service.statefulTemplate.findResources('AWS::KMS::Key');
    const id = Stack.of(service.stateful).getLogicalId(service.stateful.secretsKey.node.defaultChild as never);

    // Then the secrets key is a second key, not the table's, with rotation on and a retained removal policy
    expect(Object.keys(keys)).toHaveLength(2);
    expect(keys[id]).toMatchObject({
      Properties: { EnableKeyRotation: true, PendingWindowInDays: 30 },
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
    expect(service.stateful.secretsKey).not.toBe(service.stateful.tableKey);
  });

  it('lets only the functions that seal or open secrets use the secrets key: GenerateDataKey for creators, Decrypt for the delivery worker', () => {
    const sealers = entries.filter((entry) => entry.permissions.includes('secrets:seal')).map((entry) => entry.name);
    const openers = entries.filter((entry) => entry.permissions.includes('secrets:open')).map((entry) => entry.name);
    expect(sealers.sort()).toEqual(
      [
        'createEventDestination',
        'createWebhookEndpoint',
        'disableEventDestination',
        'enableEventDestination',
        'updateEventDestination',
        'updateWebhookEndpoint',
      ].sort(),
    );
    expect(openers).toEqual(['deliverEvent']);

    for (const entry of entries) {
      // Given every function's statements on the secrets key
      const onKey = statementsOf(service.statelessTemplates, functions[entry.name]!).filter((statement) =>
        [statement.Resource].flat().some((resource) => isArnOf(resource, service.stateful.secretsKey)),
      );

      // Then it may use it only as its permissions say, only with the secret's encryption context
      const expected = [...(sealers.includes(entry.name) ? ['kms:GenerateDataKey'] : []), ...(openers.includes(entry.name) ? ['kms:Decrypt'] : [])];
      expect(onKey.flatMap(actionsOf), entry.name).toEqual(expected);
      for (const statement of onKey) {
        expect(statement.Effect).toBe('Allow');
        expect(statement.Condition).toEqual({
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': ['account', 'mode', 'object'] },
          Null: { 'kms:EncryptionContextKeys': 'false' },
        });
      }
    }
  });

  it('tells each function which key seals secrets (SECRETS_KEY_ID)', () => {
    const variables = functionProperties(service.statelessTemplates, functions.deliverEvent!).Environment.Variables;
    expect(isArnOf(variables.SECRETS_KEY_ID, service.stateful.secretsKey)).toBe(true);
  });

  it('lets no read-only route write account secrets, and keeps them from every function that does not use them, with an explicit Deny', () => {
    const readOnly = routes.filter((route) => route.permissions.includes('table:read') && !route.permissions.includes('table:write'));
    expect(readOnly.length).toBeGreaterThan(40);
    const has = (permissions: Permission[], permission: Permission) => permissions.includes(permission);

    for (const entry of [...readOnly, ...queueWorkers, ...scheduledJobs]) {
      // Given the statements of a read-only route, a queue worker or a scheduled job
      const statements = statementsOf(service.statelessTemplates, functions[entry.name]!);

      // Then none allows a write of ACCOUNT_SECRET#…, and a Deny keeps every write out of those partitions
      expect(has(entry.permissions, 'table:create-account-secrets'), entry.name).toBe(false);
      const denied = statements.filter((statement) => statement.Effect === 'Deny' && leadingKeysOf(statement).includes('ACCOUNT_SECRET#*'));
      expect(denied, entry.name).toHaveLength(1);
      const deniedActions = actionsOf(denied[0]!);
      expect(deniedActions).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem']));
      expect(denied[0]!.Condition).toEqual({ 'ForAnyValue:StringLike': { 'dynamodb:LeadingKeys': ['ACCOUNT_SECRET#*'] } });
      // …and reads too, unless it keys page tokens with them
      expect(deniedActions.includes('dynamodb:GetItem'), entry.name).toBe(!has(entry.permissions, 'table:read-account-secrets'));
    }
  });

  it('leaves the API write routes free to read and create account secrets, and denies them nothing else', () => {
    for (const route of routes.filter((entry) => entry.permissions.includes('table:create-account-secrets'))) {
      const statements = statementsOf(service.statelessTemplates, functions[route.name]!);
      expect(
        statements.filter((statement) => statement.Effect === 'Deny'),
        route.name,
      ).toEqual([]);
    }
  });
});
