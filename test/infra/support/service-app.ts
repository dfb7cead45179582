import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement, NestedStack, Stack } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnAlias, CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CfnRole } from 'aws-cdk-lib/aws-iam';
import type { QueueWorker, Route, ScheduledJob } from '#functions/routes.ts';
import { repositoryRoot, type ServiceFunction } from '#infra/service-function.ts';
import { buildService, type ServiceEntries } from '#infra/service.ts';
import type { StatefulStack } from '#infra/stateful-stack.ts';
import type { StatelessStack } from '#infra/stateless-stack.ts';

export type { ServiceEntries };

/** A worker whose bundle a test loads and calls: it depends on nothing but `qs`. */
export const fixtureWorker: QueueWorker = {
  name: 'deliverFixtureEvents',
  queue: 'deliveries',
  handler: 'test/infra/fixtures/queue-worker.ts',
  permissions: ['table:read', 'table:write', 'bus:put'],
  batchSize: 5,
  maxConcurrency: 2,
};

/**
 * A small route table whose handlers live under test/infra/fixtures: for tests about the stack itself
 * (bundling, settings) rather than about the real entries, and quick to synthesize.
 */
export const fixtureEntries = {
  routes: [
    { name: 'listFixtures', method: 'GET', path: '/v1/fixtures', handler: 'test/infra/fixtures/http-route.ts', permissions: ['table:read'] },
    {
      name: 'createFixture',
      method: 'POST',
      path: '/v1/fixtures',
      handler: 'test/infra/fixtures/http-route.ts',
      permissions: ['table:read', 'table:write', 'queue:deliveries:send'],
    },
  ] satisfies Route[],
  fallbackRoute: { name: 'unmatchedFixture', handler: 'test/infra/fixtures/http-route.ts', permissions: [] },
  queueWorkers: [fixtureWorker],
  scheduledJobs: [
    { name: 'sweepFixtures', handler: 'test/infra/fixtures/scheduled-job.ts', everyMinutes: 5, permissions: ['table:read', 'table:write'] },
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
  // Tests that are not about alarms deploy without a destination, as a sandbox would (`alarmDestination=none`).
  const app = new App({ outdir, context: { ...cdkJson.context, 'aws:cdk:enable-asset-metadata': true, alarmDestination: 'none', ...context } });
  return { app, outdir, cleanUp: () => rmSync(outdir, { recursive: true, force: true }) };
}

/** A resource of a synthesized template, with the template it is in. */
export interface FoundResource {
  template: Template;
  logicalId: string;
  /** The resource as written in the template: Type, Properties, … */
  resource: { [key: string]: any };
}

/**
 * The templates of the stateless stack: its own and one per nested stack, each read once. Assertions
 * about a function read the template of the stack it lives in; counts add up over all of them.
 */
export class StatelessTemplates {
  readonly parent: Template;
  /** The parent's template first, then every nested stack's, however deep. */
  readonly all: Template[];
  /** Each of those templates by its stack. */
  readonly byStack: ReadonlyMap<Stack, Template>;

  constructor(stack: StatelessStack) {
    const nestedStacks = stack.node.findAll().filter(NestedStack.isNestedStack);
    this.byStack = new Map([stack, ...nestedStacks].map((each) => [each, Template.fromStack(each)]));
    this.parent = this.byStack.get(stack)!;
    this.all = [...this.byStack.values()];
  }

  /** The template of the stack, parent or nested, that `construct` belongs to. */
  of(construct: IConstruct): Template {
    const template = this.byStack.get(Stack.of(construct));
    if (!template) {
      throw new Error(`${construct.node.path} is in no stateless template`);
    }
    return template;
  }

  /** Resources of `type` whose definition matches `props` (as `Template.findResources`), in every template. */
  find(type: string, props?: unknown): FoundResource[] {
    return this.all.flatMap((template) =>
      Object.entries(template.findResources(type, props)).map(([logicalId, resource]) => ({ template, logicalId, resource })),
    );
  }

  count(type: string): number {
    return this.find(type).length;
  }
}

export interface SynthesizedService {
  app: App;
  stateful: StatefulStack;
  stateless: StatelessStack;
  statefulTemplate: Template;
  statelessTemplates: StatelessTemplates;
  outdir: string;
  cleanUp: () => void;
}

/**
 * Both stacks as `infra/app.ts` builds them, cdk-nag included (reading a template synthesizes the app,
 * which fails on any unacknowledged finding), with `context` as if given on the command line; the route
 * table, workers and jobs can be swapped for fixtures.
 */
export function synthesizeService(entries: ServiceEntries = {}, context: Record<string, unknown> = {}): SynthesizedService {
  const { app, outdir, cleanUp } = serviceApp(context);
  const { stateful, stateless } = buildService(app, entries);
  return {
    app,
    stateful,
    stateless,
    statefulTemplate: Template.fromStack(stateful),
    statelessTemplates: new StatelessTemplates(stateless),
    outdir,
    cleanUp,
  };
}

let synthesizedRealService: SynthesizedService | undefined;

/**
 * The real route table with the default context and no bundling (what most files read), synthesized once per
 * worker: the infra project runs its files without isolation (vitest.config.ts), so the files a worker runs
 * share it, where each used to synthesize it again (~3 s warm, ~9 s in a fresh process). Read it, never add
 * to it; its temporary directory goes when the worker exits, so its `cleanUp` does nothing.
 */
export function realService(): SynthesizedService {
  if (!synthesizedRealService) {
    const service = synthesizeService({}, { 'aws:cdk:bundling-stacks': [] });
    process.once('exit', service.cleanUp);
    synthesizedRealService = { ...service, cleanUp: () => {} };
  }
  return synthesizedRealService;
}

/** The logical id of the function in the template of its own stack, parent or nested. */
export function functionLogicalId(fn: ServiceFunction): string {
  return Stack.of(fn).getLogicalId(fn.function.node.defaultChild as CfnFunction);
}

/** The logical id of the function's `live` alias, which every trigger invokes, in the template of its stack. */
export function aliasLogicalId(fn: ServiceFunction): string {
  return Stack.of(fn).getLogicalId(fn.alias.node.defaultChild as CfnAlias);
}

/** How an event source mapping names the `live` alias: the function's name from the alias ARN, qualified. */
export function aliasQualifiedName(fn: ServiceFunction): unknown {
  return { 'Fn::Join': ['', [{ 'Fn::Select': [6, { 'Fn::Split': [':', { Ref: aliasLogicalId(fn) }] }] }, ':live']] };
}

/** How an asynchronous invocation config names the `live` alias: the qualifier from the alias ARN. */
export function aliasQualifier(fn: ServiceFunction): unknown {
  return { 'Fn::Select': [7, { 'Fn::Split': [':', { Ref: aliasLogicalId(fn) }] }] };
}

/** The `Properties` of the function's `AWS::Lambda::Function`, from the template of its stack. */
export function functionProperties(templates: StatelessTemplates, fn: ServiceFunction): { [key: string]: any } {
  return templates.of(fn).toJSON().Resources[functionLogicalId(fn)].Properties;
}

interface PolicyStatement {
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

/** Every Allow statement of the identity policies attached to the function's role. */
export function allowedStatements(templates: StatelessTemplates, fn: ServiceFunction): PolicyStatement[] {
  const roleId = Stack.of(fn).getLogicalId(fn.role.node.defaultChild as CfnRole);
  // A Ref names a resource of its own template, so only the policies of the role's template can attach to it.
  const policies = Object.values(templates.of(fn).findResources('AWS::IAM::Policy')) as {
    Properties: { Roles: unknown[]; PolicyDocument: { Statement: PolicyStatement[] } };
  }[];
  return policies
    .filter((policy) => policy.Properties.Roles.some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement)
    .filter((statement) => statement.Effect === 'Allow');
}

/** Every action the function's role is allowed. */
export function allowedActions(templates: StatelessTemplates, fn: ServiceFunction): string[] {
  return allowedStatements(templates, fn).flatMap((statement) => [statement.Action].flat());
}

/** The resources the function's role may apply `action` to. */
export function resourcesAllowed(templates: StatelessTemplates, fn: ServiceFunction, action: string): unknown[] {
  return allowedStatements(templates, fn)
    .filter((statement) => [statement.Action].flat().includes(action))
    .flatMap((statement) => [statement.Resource].flat());
}

/**
 * Whether `value`, from a stateless template (the parent's or a nested one), is the ARN of `resource` in the
 * stateful stack. Such an ARN crosses stacks as a stack output, whose name embeds the resource's logical id
 * and the attribute.
 */
export function isArnOf(value: unknown, resource: IConstruct): boolean {
  const logicalId = Stack.of(resource).getLogicalId(resource.node.defaultChild as CfnElement);
  return JSON.stringify(value).includes(`FnGetAtt${logicalId}Arn`);
}
