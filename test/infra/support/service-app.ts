import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { QueueWorker } from '#functions/routes.ts';
import { repositoryRoot, type ServiceFunction } from '#infra/service-function.ts';
import { StatefulStack } from '#infra/stateful-stack.ts';
import { StatelessStack, type StatelessStackProps } from '#infra/stateless-stack.ts';

/** Stands in for `queueWorkers` while the real list is empty. */
export const fixtureWorker: QueueWorker = {
  name: 'deliverFixtureEvents',
  queue: 'deliveries',
  handler: 'test/infra/fixtures/queue-worker.ts',
  permissions: ['table:write', 'bus:put'],
  batchSize: 5,
};

/** A CDK app with the same context `cdk synth` gets: the feature flags from cdk.json and asset metadata. */
export function serviceApp(): { app: App; outdir: string; cleanUp: () => void } {
  const { context } = JSON.parse(readFileSync(join(repositoryRoot, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const outdir = mkdtempSync(join(tmpdir(), 'service-infra-'));
  const app = new App({ outdir, context: { ...context, 'aws:cdk:enable-asset-metadata': true } });
  return { app, outdir, cleanUp: () => rmSync(outdir, { recursive: true, force: true }) };
}

export interface SynthesizedService {
  stateful: StatefulStack;
  stateless: StatelessStack;
  statefulTemplate: Template;
  statelessTemplate: Template;
  outdir: string;
  cleanUp: () => void;
}

/** Both stacks as `infra/app.ts` builds them; the route table and workers can be swapped for fixtures. */
export function synthesizeService(
  entries: Pick<StatelessStackProps, 'routes' | 'fallbackRoute' | 'queueWorkers'> = {},
): SynthesizedService {
  const { app, outdir, cleanUp } = serviceApp();
  const stateful = new StatefulStack(app, 'ServiceStateful');
  const stateless = new StatelessStack(app, 'ServiceStateless', { resources: stateful, ...entries });
  return {
    stateful,
    stateless,
    statefulTemplate: Template.fromStack(stateful),
    statelessTemplate: Template.fromStack(stateless),
    outdir,
    cleanUp,
  };
}

export function functionLogicalId(fn: ServiceFunction): string {
  return Stack.of(fn).getLogicalId(fn.function.node.defaultChild as CfnFunction);
}

interface PolicyStatement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
}

/** Every action the function's role is allowed, from the identity policies attached to it. */
export function allowedActions(template: Template, fn: ServiceFunction): string[] {
  const roleId = Stack.of(fn).getLogicalId(fn.role.node.defaultChild as CfnRole);
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
    Properties: { Roles: unknown[]; PolicyDocument: { Statement: PolicyStatement[] } };
  }[];
  return policies
    .filter((policy) => policy.Properties.Roles.some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
    .filter((statement) => statement.Effect === 'Allow')
    .flatMap((statement) => [statement.Action].flat());
}
