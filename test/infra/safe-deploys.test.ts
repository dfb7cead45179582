import { beforeAll, describe, expect, it } from 'vitest';
import { type CfnElement, type NestedStack, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { fallbackRoute, queueWorkers, routes, scheduledJobs } from '#functions/routes.ts';
import { maxRoutesPerStack, routeStackGroups } from '#infra/api-areas.ts';
import { buildService } from '#infra/service.ts';
import { apiProbeJob, type StatelessStack } from '#infra/stateless-stack.ts';
import type { ServiceFunction } from '#infra/service-function.ts';
import {
  aliasLogicalId,
  aliasQualifiedName,
  aliasQualifier,
  fixtureEntries,
  functionLogicalId,
  serviceApp,
  realService,
  synthesizeService,
  type StatelessTemplates,
  type SynthesizedService,
} from './support/service-app.ts';

/** CloudFormation's limit of resources in one template. */
const resourceLimit = 500;

/**
 * The API's logical id since its first deploy. CloudFormation replaces a resource whose logical id changes,
 * and a replaced HTTP API gets a new id, hence a new URL for every client: it must never change.
 */
const apiLogicalId = 'HttpApiF5A9A8A7';

const withoutBundling = { 'aws:cdk:bundling-stacks': [] };

const logicalIdOf = (construct: { node: { defaultChild?: unknown } }) =>
  Stack.of(construct as never).getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);

/** The deployment group of `fn`, as written in the template of its stack. */
const deploymentGroupOf = (templates: StatelessTemplates, stack: StatelessStack, name: string) => {
  const fn = stack.functions[name]!;
  return templates.of(fn).toJSON().Resources[logicalIdOf(stack.deploymentGroups[name]!)] as { Properties: Record<string, any> };
};

/** The names of the alarms a deployment group rolls back on: `Ref`s to an alarm of its own template, or to a parameter the parent fills. */
const rollbackAlarmIds = (templates: StatelessTemplates, stack: StatelessStack, fn: ServiceFunction, group: { Properties: Record<string, any> }) => {
  const fnStack = Stack.of(fn);
  const passed =
    fnStack === stack
      ? {}
      : (templates.parent.toJSON().Resources[stack.getLogicalId((fnStack as NestedStack).nestedStackResource as CfnElement)].Properties.Parameters ?? {});
  return (group.Properties.AlarmConfiguration.Alarms as Array<{ Name: { Ref: string } }>).map(({ Name }) => passed[Name.Ref]?.Ref ?? Name.Ref);
};

describe('safe deploys of the real route table', () => {
  let service: SynthesizedService;
  let stack: StatelessStack;
  let templates: StatelessTemplates;

  beforeAll(() => {
    service = realService();
    stack = service.stateless;
    templates = service.statelessTemplates;
  });

  it('publishes every function as a version behind a live alias, and keeps a replaced version to shift back to', () => {
    // Given every function of the stack
    const names = [...routes, fallbackRoute, ...queueWorkers, ...scheduledJobs, apiProbeJob].map(({ name }) => name);
    expect(Object.keys(stack.functions).sort()).toEqual(names.sort());
    expect(templates.count('AWS::Lambda::Alias')).toBe(names.length);

    for (const name of names) {
      // When its alias and version are read
      const fn = stack.functions[name]!;
      const resources = templates.of(fn).toJSON().Resources;
      const alias = resources[aliasLogicalId(fn)];

      // Then the alias is `live` on a version of the function, and CodeDeploy shifts it
      expect(alias.Properties, name).toMatchObject({ Name: 'live', FunctionName: { Ref: functionLogicalId(fn) } });
      const versionId = alias.Properties.FunctionVersion['Fn::GetAtt'][0];
      expect(resources[versionId]).toMatchObject({ Type: 'AWS::Lambda::Version', DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
      expect(alias.UpdatePolicy.CodeDeployLambdaAliasUpdate.DeploymentGroupName, name).toEqual({ Ref: logicalIdOf(stack.deploymentGroups[name]!) });
    }
  });

  it('shifts each alias by a 10 % canary for ten minutes, rolling back on a failure, a stop or an alarm', () => {
    expect(templates.count('AWS::CodeDeploy::DeploymentGroup')).toBe(Object.keys(stack.functions).length);
    for (const name of Object.keys(stack.functions)) {
      expect(deploymentGroupOf(templates, stack, name).Properties, name).toMatchObject({
        DeploymentConfigName: 'CodeDeployDefault.LambdaCanary10Percent10Minutes',
        DeploymentStyle: { DeploymentType: 'BLUE_GREEN', DeploymentOption: 'WITH_TRAFFIC_CONTROL' },
        AlarmConfiguration: { Enabled: true },
        AutoRollbackConfiguration: {
          Enabled: true,
          Events: ['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_REQUEST', 'DEPLOYMENT_STOP_ON_ALARM'],
        },
      });
    }
    // One application and one service role for all of them, with CodeDeploy's Lambda policy
    expect(templates.count('AWS::CodeDeploy::Application')).toBe(1);
    templates.parent.hasOutput('DeploymentApplication', { Value: { Ref: Match.stringLikeRegexp('^Deployments') } });
    templates.parent.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: { Statement: [Match.objectLike({ Principal: { Service: 'codedeploy.amazonaws.com' } })] },
      ManagedPolicyArns: [{ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited']] }],
    });
  });

  it('rolls a route function back on the API’s 5xx rate, the probe and the error alarm of its own area', () => {
    const apiAlarms = [logicalIdOf(stack.monitoring.apiServerErrors), logicalIdOf(stack.monitoring.apiProbe)];
    for (const group of routeStackGroups(routes)) {
      for (const route of group.routes) {
        // Given a route function and its deployment group, in its area's nested stack
        const fn = stack.functions[route.name]!;
        const alarms = rollbackAlarmIds(templates, stack, fn, deploymentGroupOf(templates, stack, route.name));

        // Then the group watches the API's alarms, passed from the parent, and the alarm of the area part that
        // sums the function's errors, in its own template
        expect(alarms.slice(0, 2), route.name).toEqual(apiAlarms);
        const areaAlarm = templates.of(fn).toJSON().Resources[alarms[2]!];
        expect(areaAlarm.Type).toBe('AWS::CloudWatch::Alarm');
        expect(JSON.stringify(areaAlarm.Properties.Metrics), route.name).toContain(functionLogicalId(fn));
      }
    }
  });

  it('rolls a queue worker or scheduled job back on its own error alarm, and the fallback on the API’s alarms', () => {
    for (const name of [...Object.keys(stack.queueWorkers), ...Object.keys(stack.scheduledJobs)]) {
      const alarms = rollbackAlarmIds(templates, stack, stack.functions[name]!, deploymentGroupOf(templates, stack, name));
      expect(alarms, name).toEqual([logicalIdOf(stack.monitoring.functionErrorAlarms[name]!)]);
    }
    const fallbackAlarms = rollbackAlarmIds(templates, stack, stack.functions[fallbackRoute.name]!, deploymentGroupOf(templates, stack, fallbackRoute.name));
    expect(fallbackAlarms).toEqual([logicalIdOf(stack.monitoring.apiServerErrors), logicalIdOf(stack.monitoring.apiProbe)]);
  });

  it('invokes the live alias from API Gateway, the queues and the schedules, never the unqualified function', () => {
    // API Gateway: every integration calls an alias, and only the alias may be invoked by API Gateway
    for (const { template, resource } of templates.find('AWS::ApiGatewayV2::Integration')) {
      const target = resource.Properties.IntegrationUri.Ref as string;
      expect(template.toJSON().Resources[target]?.Type).toBe('AWS::Lambda::Alias');
    }
    for (const { template, resource } of templates.find('AWS::Lambda::Permission', { Properties: { Principal: 'apigateway.amazonaws.com' } })) {
      expect(template.toJSON().Resources[resource.Properties.FunctionName.Ref]?.Type).toBe('AWS::Lambda::Alias');
    }
    // Queues: each event source mapping feeds the worker's alias
    for (const worker of queueWorkers) {
      const fn = stack.functions[worker.name]!;
      templates.of(fn).hasResourceProperties('AWS::Lambda::EventSourceMapping', { FunctionName: aliasQualifiedName(fn) });
    }
    expect(templates.count('AWS::Lambda::EventSourceMapping')).toBe(queueWorkers.length);
    // Schedules: each rule targets the job's alias, which alone EventBridge may invoke, with the job's async settings
    for (const job of [...scheduledJobs, apiProbeJob]) {
      const fn = stack.functions[job.name]!;
      const template = templates.of(fn);
      template.hasResourceProperties('AWS::Events::Rule', { Targets: [Match.objectLike({ Arn: { Ref: aliasLogicalId(fn) } })] });
      template.hasResourceProperties('AWS::Lambda::Permission', { Principal: 'events.amazonaws.com', FunctionName: { Ref: aliasLogicalId(fn) } });
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: functionLogicalId(fn) },
        Qualifier: aliasQualifier(fn),
        MaximumRetryAttempts: 0,
      });
    }
  });

  it('keeps every template under CloudFormation’s 500 resources, counted from the synthesized templates', () => {
    for (const [each, template] of templates.byStack) {
      const count = Object.keys(template.toJSON().Resources).length;
      expect(count, each.node.path).toBeLessThan(resourceLimit);
    }
  });

  it('keeps the API’s logical id, and the properties that would replace it, stable', () => {
    // Given the parent template: exactly one HTTP API, under the id it has had since the first deploy
    const apis = templates.find('AWS::ApiGatewayV2::Api');
    expect(apis.map(({ logicalId }) => logicalId)).toEqual([apiLogicalId]);
    expect(logicalIdOf(stack.api)).toBe(apiLogicalId);
    // And the one property whose change replaces it keeps its value
    expect(apis[0]!.resource.Properties.ProtocolType).toBe('HTTP');
    expect(apis[0]!.resource.DeletionPolicy).toBeUndefined();
  });
});

describe('an area as full as a nested stack may be', () => {
  it('stays under CloudFormation’s 500 resources with every function’s version, alias and deployment group', () => {
    // Given one area with the most routes a nested stack may hold
    const [template] = fixtureEntries.routes;
    const fullArea = Array.from({ length: maxRoutesPerStack }, (_, index) => ({
      ...template,
      name: `listFixtures${index}`,
      path: `/v1/fixtures/{id}/part${index}`,
    }));
    const service = synthesizeService({ ...fixtureEntries, routes: fullArea }, withoutBundling);
    try {
      // When its nested stack's resources are counted
      const nested = Object.values(service.stateless.routeStacks);
      expect(nested).toHaveLength(1);
      const count = Object.keys(service.statelessTemplates.of(nested[0]!).toJSON().Resources).length;

      // Then they fit, with room for the area's error alarms
      expect(count).toBeLessThan(resourceLimit);
      expect(count).toBeGreaterThanOrEqual(maxRoutesPerStack * 10);
    } finally {
      service.cleanUp();
    }
  });
});

describe('deployment settings from the context', () => {
  const synthesize = (context: Record<string, unknown>) => synthesizeService(fixtureEntries, { ...withoutBundling, ...context });

  it('takes the rollout an operator names, all at once included, and may deploy through alarms already firing', () => {
    for (const [deploymentStrategy, configName] of [
      ['allAtOnce', 'CodeDeployDefault.LambdaAllAtOnce'],
      ['canary10Percent5Minutes', 'CodeDeployDefault.LambdaCanary10Percent5Minutes'],
      ['linear10PercentEvery1Minute', 'CodeDeployDefault.LambdaLinear10PercentEvery1Minute'],
    ] as const) {
      const service = synthesize({ deploymentStrategy });
      try {
        for (const { resource } of service.statelessTemplates.find('AWS::CodeDeploy::DeploymentGroup')) {
          expect(resource.Properties.DeploymentConfigName, deploymentStrategy).toBe(configName);
        }
      } finally {
        service.cleanUp();
      }
    }
    const ignoring = synthesize({ deploymentAlarms: 'ignore' });
    try {
      const groups = ignoring.statelessTemplates.find('AWS::CodeDeploy::DeploymentGroup');
      expect(groups.length).toBeGreaterThan(0);
      for (const { resource } of groups) expect(resource.Properties.AlarmConfiguration.Enabled).toBe(false);
    } finally {
      ignoring.cleanUp();
    }
  });

  it('refuses a rollout it does not know, naming the context key', () => {
    const { app, cleanUp } = serviceApp({ ...withoutBundling, deploymentStrategy: 'yolo' });
    try {
      expect(() => buildService(app, fixtureEntries)).toThrow(/deploymentStrategy is not valid/);
    } finally {
      cleanUp();
    }
  });
});

describe('moving routes between stacks without replacing the API', () => {
  it('deploys a group’s functions without their routes when told (-c detachRoutes), keeping the API, the stage and the other routes', () => {
    // Given the first step of a move: the V1Customers group detached
    const service = synthesizeService({}, { ...withoutBundling, detachRoutes: 'V1Customers' });
    try {
      const { stateless, statelessTemplates: templates } = service;
      const customers = stateless.routeStacks.V1Customers!;

      // Then that group's functions and aliases are deployed, but none of its routes, nor their throttles
      const customerTemplate = templates.of(customers);
      expect(Object.keys(customerTemplate.findResources('AWS::Lambda::Function')).length).toBeGreaterThan(0);
      expect(customerTemplate.findResources('AWS::ApiGatewayV2::Route')).toEqual({});
      const settings = templates.parent.findResources('AWS::ApiGatewayV2::Stage');
      const routeKeys = Object.keys(Object.values(settings)[0]!.Properties.RouteSettings);
      const detached = routeStackGroups(routes).find(({ id }) => id === 'V1Customers')!.routes;
      for (const route of detached) expect(routeKeys).not.toContain(`${route.method} ${route.path}`);
      // And every other route, and the API under its stable id, stay
      expect(routeKeys).toContain('GET /v1/invoices');
      expect(logicalIdOf(stateless.api)).toBe(apiLogicalId);
      expect(templates.count('AWS::ApiGatewayV2::Route')).toBe(
        routes.length + 1 - routeStackGroups(routes).find(({ id }) => id === 'V1Customers')!.routes.length,
      );
    } finally {
      service.cleanUp();
    }
  });

  it('refuses to detach a group that does not exist', () => {
    const { app, cleanUp } = serviceApp({ ...withoutBundling, detachRoutes: 'V1Nothing' });
    try {
      expect(() => buildService(app, fixtureEntries)).toThrow(/detachRoutes names V1Nothing/);
    } finally {
      cleanUp();
    }
  });
});

describe('the API’s logical id across settings', () => {
  it('is the same with the edge on, with a custom domain, or with neither', () => {
    for (const context of [
      {},
      { domainName: 'api.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc-123', account: '123456789012', region: 'eu-west-1' },
      { edge: 'cloudfront', account: '123456789012', region: 'eu-west-1' },
    ]) {
      const { app, cleanUp } = serviceApp({ ...withoutBundling, ...context });
      try {
        const { stateless } = buildService(app, fixtureEntries);
        expect(Object.keys(Template.fromStack(stateless).findResources('AWS::ApiGatewayV2::Api')), JSON.stringify(context)).toEqual([apiLogicalId]);
      } finally {
        cleanUp();
      }
    }
  });
});
