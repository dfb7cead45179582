import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { CfnLogGroup } from 'aws-cdk-lib/aws-logs';
import { fallbackRoute, routes } from '#functions/routes.ts';
import { queues } from '#shared/messaging/queues.ts';
import { StatefulStack } from '#infra/stateful-stack.ts';
import { StatelessStack } from '#infra/stateless-stack.ts';
import {
  allowedActions,
  fixtureWorker,
  functionLogicalId,
  serviceApp,
  synthesizeService,
  type SynthesizedService,
} from './support/service-app.ts';

const tableWrites = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

describe('stateless stack', () => {
  let service: SynthesizedService;
  let stack: StatelessStack;
  let template: Template;

  beforeAll(() => {
    service = synthesizeService({ queueWorkers: [fixtureWorker] });
    stack = service.stateless;
    template = service.statelessTemplate;
  });
  afterAll(() => service.cleanUp());

  it('deploys one Node.js 22 arm64 function per route, plus the fallback and each worker', () => {
    // Given the real route table and one fixture worker
    // When the template is read
    // Then there is one function per entry, each on nodejs22.x and arm64
    template.resourceCountIs('AWS::Lambda::Function', routes.length + 2);
    for (const name of [...routes.map((route) => route.name), fallbackRoute.name, fixtureWorker.name]) {
      expect(template.toJSON().Resources[functionLogicalId(stack.functions[name]!)].Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 512,
      });
    }
  });

  it('routes every METHOD /path of the route table to the function of the same name', () => {
    // Given the real route table
    for (const route of routes) {
      // When the route for its method and path is looked up
      const routeKey = `${route.method} ${route.path}`;
      const integrationId = integrationOf(template, routeKey);

      // Then it targets a payload 2.0 proxy integration of the route's own function
      expect(template.toJSON().Resources[integrationId].Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
        IntegrationUri: { 'Fn::GetAtt': [functionLogicalId(stack.functions[route.name]!), 'Arn'] },
      });
    }
    template.resourceCountIs('AWS::ApiGatewayV2::Route', routes.length + 1);
  });

  it('sends every unmatched path or method to the fallback function on $default', () => {
    // Given the API
    // When the $default route is looked up
    const integrationId = integrationOf(template, '$default');

    // Then its integration calls the fallback function, which answers 404 or 405
    expect(template.toJSON().Resources[integrationId].Properties.IntegrationUri).toEqual({
      'Fn::GetAtt': [functionLogicalId(stack.functions[fallbackRoute.name]!), 'Arn'],
    });
  });

  it('lets API Gateway invoke a route function only through the path of its route', () => {
    // Given a route with a path parameter
    const route = routes.find((candidate) => candidate.path.includes('{'))!;

    // When the invoke permissions of its function are read
    const permissions = template.findResources('AWS::Lambda::Permission', {
      Properties: { FunctionName: { 'Fn::GetAtt': [functionLogicalId(stack.functions[route.name]!), 'Arn'] } },
    });

    // Then API Gateway may invoke it, from any stage, only for that path
    expect(Object.values(permissions)).toHaveLength(1);
    expect(JSON.stringify(Object.values(permissions)[0])).toContain(`"/*/*${route.path}"`);
  });

  it('tells every function where the table, the bus and each queue are, and how to log', () => {
    // Given the functions of the stack
    for (const fn of Object.values(stack.functions)) {
      // When the environment of its Lambda function is read
      const variables = template.toJSON().Resources[functionLogicalId(fn)].Properties.Environment.Variables;

      // Then it has every variable shared/config.ts needs to reach the stateful resources
      expect(Object.keys(variables)).toEqual(
        expect.arrayContaining([
          'TABLE_NAME',
          'EVENT_BUS_NAME',
          ...Object.values(queues).map((queue) => queue.urlVariable),
        ]),
      );
      // And the logging and source-map settings
      expect(variables).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'service-api',
        LOG_LEVEL: 'INFO',
        NODE_OPTIONS: '--enable-source-maps',
      });
    }
  });

  it('gives every function its own log group kept for one month', () => {
    // Given the functions of the stack
    for (const fn of Object.values(stack.functions)) {
      // When its logging configuration is read
      const logGroupId = stack.getLogicalId(fn.logGroup.node.defaultChild as CfnLogGroup);

      // Then it logs to its own group with a 30-day retention
      expect(template.toJSON().Resources[functionLogicalId(fn)].Properties.LoggingConfig).toEqual({
        LogGroup: { Ref: logGroupId },
      });
      expect(template.toJSON().Resources[logGroupId].Properties.RetentionInDays).toBe(30);
    }
  });

  it('stops API functions before API Gateway gives up on them after 30 seconds', () => {
    // Given the route functions and the fallback
    for (const name of [...routes.map((route) => route.name), fallbackRoute.name]) {
      // When its timeout is read
      const timeout = template.toJSON().Resources[functionLogicalId(stack.functions[name]!)].Properties.Timeout;

      // Then it is at most 29 seconds
      expect(timeout).toBeLessThanOrEqual(29);
    }
  });

  it('feeds a worker from its queue and lets it report partial batch failures', () => {
    // Given the fixture worker on the deliveries queue
    const worker = stack.functions[fixtureWorker.name]!;

    // When its event source mapping is read
    // Then it batches as configured and reports failed items instead of failing the whole batch
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionLogicalId(worker) },
      BatchSize: fixtureWorker.batchSize,
      MaximumBatchingWindowInSeconds: Match.anyValue(),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    // And it does not outlive the visibility timeout of its queue
    expect(template.toJSON().Resources[functionLogicalId(worker)].Properties.Timeout).toBeLessThanOrEqual(
      queues[fixtureWorker.queue].visibilityTimeoutSeconds,
    );
  });

  it('allows no wildcard action in any IAM policy', () => {
    // Given every identity policy of the stack
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as { Effect: string; Action: string | string[] }[],
    );
    expect(statements.length).toBeGreaterThan(0);

    // When their allowed actions are listed
    const actions = statements.filter((statement) => statement.Effect === 'Allow').flatMap((s) => [s.Action].flat());

    // Then none is `*` or a service-wide or prefix wildcard such as dynamodb:* or sqs:*
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
  });

  it('lets a GET-only function read the table but never write it', () => {
    // Given the GET routes, whose permissions are table:read
    const getRoutes = routes.filter((route) => route.method === 'GET');
    expect(getRoutes.length).toBeGreaterThan(0);

    for (const route of getRoutes) {
      // When the actions its role allows are listed
      const actions = allowedActions(template, stack.functions[route.name]!);

      // Then it can read the table but no write action is among them
      expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
      expect(actions.filter((action) => tableWrites.includes(action))).toEqual([]);
    }
  });

  it('lets a route with table:write write the table', () => {
    // Given a POST route, whose permissions include table:write
    const route = routes.find((candidate) => candidate.permissions.includes('table:write'))!;

    // When the actions its role allows are listed
    const actions = allowedActions(template, stack.functions[route.name]!);

    // Then the table writes are there
    expect(actions).toEqual(expect.arrayContaining(tableWrites));
  });

  it('grants sending to a queue or putting on the bus only to functions whose permissions ask for it', () => {
    // Given every function with the permissions of its table entry
    const entries = [...routes, fallbackRoute, fixtureWorker];
    for (const entry of entries) {
      // When the actions its role allows are listed
      const actions = allowedActions(template, stack.functions[entry.name]!);

      // Then events:PutEvents and sqs:SendMessage appear exactly when asked for
      expect(actions.includes('events:PutEvents')).toBe(entry.permissions.includes('bus:put'));
      expect(actions.includes('sqs:SendMessage')).toBe(entry.permissions.some((p) => p.startsWith('queue:')));
    }
    // And the fixture worker, which asks for bus:put, proves the check can see the grant
    expect(allowedActions(template, stack.functions[fixtureWorker.name]!)).toContain('events:PutEvents');
  });

  it('gives the fallback function nothing beyond its own logs', () => {
    // Given the fallback, whose permissions are empty
    // When the actions its role allows are listed
    const actions = allowedActions(template, stack.functions[fallbackRoute.name]!);

    // Then only writing to its log group remains
    expect([...new Set(actions)].sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
  });

  it('outputs the API URL and the table name', () => {
    // Given the stateless stack
    // When its outputs are read
    // Then the API endpoint and the table name are there
    template.hasOutput('ApiUrl', { Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^HttpApi'), 'ApiEndpoint'] } });
    template.hasOutput('TableName', { Value: Match.anyValue() });
  });

  it('bundles a worker into an ES module that loads and answers a batch', () => {
    // Given the bundle of the fixture worker, which pulls in a CommonJS package requiring a Node built-in
    const assetPath = template.toJSON().Resources[functionLogicalId(stack.functions[fixtureWorker.name]!)].Metadata[
      'aws:asset:path'
    ] as string;
    const bundle = pathToFileURL(join(service.outdir, assetPath, 'index.mjs')).href;

    // When a fresh Node process, as Lambda would, imports it and calls the handler with a batch
    const event = {
      Records: [
        { messageId: 'parsed', body: 'event[id]=evt_1' },
        { messageId: 'empty', body: '' },
      ],
    };
    const script = `const { handler } = await import(${JSON.stringify(bundle)});
console.log(JSON.stringify(await handler(${JSON.stringify(event)})));`;
    const response = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));

    // Then only the record it could not handle is reported as failed
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'empty' }] });
  });
});

/** The logical id of the integration behind a route key, following the route's `integrations/<id>` target. */
function integrationOf(template: Template, routeKey: string): string {
  const found = Object.values(template.findResources('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: routeKey } }));
  expect(found, `route ${routeKey}`).toHaveLength(1);
  const target = found[0]!.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
  return target['Fn::Join'][1][1].Ref;
}

describe('stateless stack with a faulty route table', () => {
  it('refuses two entries with the same name, since the name is the construct id', () => {
    // Given a route table where a second route reuses the name of the first
    const { app, cleanUp } = serviceApp();
    const stateful = new StatefulStack(app, 'ServiceStateful');
    const first = routes[0]!;
    const clash = { ...first, path: `${first.path}/copy` };

    try {
      // When the stack is built
      const build = () => new StatelessStack(app, 'ServiceStateless', { resources: stateful, routes: [first, clash] });

      // Then synth stops with the duplicated name
      expect(build).toThrow(`Two functions are named ${clash.name}`);
    } finally {
      cleanUp();
    }
  });
});
