import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { QueueWorker, Route, ScheduledJob } from '#functions/routes.ts';
import { repositoryRoot, type ServiceFunction } from '#infra/service-function.ts';
import { StatefulStack } from '#infra/stateful-stack.ts';
import { StatelessStack, type StatelessStackProps } from '#infra/stateless-stack.ts';

/** Entries of the stateless stack that can be swapped for fixtures. */
export type ServiceEntries = Pick<StatelessStackProps, 'routes' | 'fallbackRoute' | 'queueWorkers' | 'scheduledJobs'>;

/** A worker whose bundle a test loads and calls: it depends on nothing but `qs`. */
export const fixtureWorker: QueueWorker = {
  name: 'deliverFixtureEvents',
  queue: 'deliveries',
  handler: 'test/infra/fixtures/queue-worker.ts',
  permissions: ['table:write', 'bus:put'],
  batchSize: 5,
};

/**
 * A small route table whose handlers live under test/infra/fixtures: for tests about the stack itself
 * (bundling, settings) rather than about the real entries, and quick to synthesize.
 */
export const fixtureEntries = {
  routes: [
    { name: 'listFixtures', method: 'GET', path: '/v1/fixtures', handler: 'test/infra/fixtures/http-route.ts', permissions: ['table:read'] },
    { name: 'createFixture', method: 'POST', path: '/v1/fixtures', handler: 'test/infra/fixtures/http-route.ts', permissions: ['table:write', 'queue:deliveries:send'] },
  ] satisfies Route[],
  fallbackRoute: { name: 'unmatchedFixture', handler: 'test/infra/fixtures/http-route.ts', permissions: [] },
  queueWorkers: [fixtureWorker],
  scheduledJobs: [
    { name: 'sweepFixtures', handler: 'test/infra/fixtures/scheduled-job.ts', everyMinutes: 5, permissions: ['table:write'] },
  ] satisfies ScheduledJob[],
} satisfies ServiceEntries;

/**
 * A CDK app with the same context `cdk synth` gets: the feature flags from cdk.json and asset metadata,
 * plus `context` as if given with `-c key=value`.
 */
export function serviceApp(context: Record<string, unknown> = {}): { app: App; outdir: string; cleanUp: () => void } {
  const cdkJson = JSON.parse(readFileSync(join(repositoryRoot, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const outdir = mkdtempSync(join(tmpdir(), 'service-infra-'));
  const app = new App({ outdir, context: { ...cdkJson.context, 'aws:cdk:enable-asset-metadata': true, ...context } });
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

/**
 * Both stacks as `infra/app.ts` builds them, with `context` as if given on the command line; the route
 * table, workers and jobs can be swapped for fixtures.
 */
export function synthesizeService(entries: ServiceEntries = {}, context: Record<string, unknown> = {}): SynthesizedService {
  const { app, outdir, cleanUp } = serviceApp(context);
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
  Resource: unknown;
}

/** Every Allow statement of the identity policies attached to the function's role. */
export function allowedStatements(template: Template, fn: ServiceFunction): PolicyStatement[] {
  const roleId = Stack.of(fn).getLogicalId(fn.role.node.defaultChild as CfnRole);
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as {
    Properties: { Roles: unknown[]; PolicyDocument: { Statement: PolicyStatement[] } };
  }[];
  return policies
    .filter((policy) => policy.Properties.Roles.some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
    .filter((statement) => statement.Effect === 'Allow');
}

/** Every action the function's role is allowed. */
export function allowedActions(template: Template, fn: ServiceFunction): string[] {
  return allowedStatements(template, fn).flatMap((statement) => [statement.Action].flat());
}

/** The resources the function's role may apply `action` to. */
export function resourcesAllowed(template: Template, fn: ServiceFunction, action: string): unknown[] {
  return allowedStatements(template, fn)
    .filter((statement) => [statement.Action].flat().includes(action))
    .flatMap((statement) => [statement.Resource].flat());
}

/**
 * Whether `value`, from the stateless template, is the ARN of `resource` in the stateful stack. Such an
 * ARN crosses stacks as a stack output, whose name embeds the resource's logical id and the attribute.
 */
export function isArnOf(value: unknown, resource: IConstruct): boolean {
  const logicalId = Stack.of(resource).getLogicalId(resource.node.defaultChild as CfnElement);
  return JSON.stringify(value).includes(`FnGetAtt${logicalId}Arn`);
}
