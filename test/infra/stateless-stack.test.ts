import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { build } from 'esbuild';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { CfnLogGroup } from 'aws-cdk-lib/aws-logs';
import { fallbackRoute, queueWorkers, routes, scheduledJobs } from '#functions/routes.ts';
import { queues } from '#shared/messaging/queues.ts';
import { apiArea } from '#infra/api-areas.ts';
import { StatefulStack } from '#infra/stateful-stack.ts';
import { esbuildOptions, repositoryRoot } from '#infra/service-function.ts';
import { apiProbeJob, originAuthorizerJob, StatelessStack } from '#infra/stateless-stack.ts';
import { tableStatements, type TablePermission } from '#functions/permissions.ts';
import {
  aliasLogicalId,
  aliasQualifiedName,
  aliasQualifier,
  allowedActions,
  allowedStatements,
  fixtureEntries,
  fixtureWorker,
  functionLogicalId,
  functionProperties,
  isArnOf,
  resourcesAllowed,
  serviceApp,
  realService,
  synthesizeService,
  type ServiceEntries,
  type StatelessTemplates,
  type SynthesizedService,
} from './support/service-app.ts';

const tableWrites = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const deliverySettingVariables = ['CLOUDTWO_EVENT_GRID_ENDPOINT', 'DELIVERY_RETRY_SCHEDULE_TEST', 'DELIVERY_RETRY_SCHEDULE_LIVE'];

describe('stateless stack', () => {
  let service: SynthesizedService;
  let stack: StatelessStack;
  let templates: StatelessTemplates;

  beforeAll(() => {
    // Without bundling: one esbuild run per function would take minutes. Every entry's bundle is checked
    // in one build below, and the fixture stack checks what CDK's bundling produces.
    service = realService();
    stack = service.stateless;
    templates = service.statelessTemplates;
  });

  it('deploys one Node.js 24 arm64 function per route, plus the fallback, each worker and each scheduled job', () => {
    // Given the real route table, and the stack's own probe
    const entries = [...routes, fallbackRoute, ...queueWorkers, ...scheduledJobs, apiProbeJob];

    // When the templates are read, the parent's and the nested stacks'
    // Then there is one function per entry, each on nodejs24.x and arm64
    expect(templates.count('AWS::Lambda::Function')).toBe(entries.length);
    for (const { name } of entries) {
      expect(functionProperties(templates, stack.functions[name]!), name).toMatchObject({
        Runtime: 'nodejs24.x',
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
      const { template, integrationId } = integrationOf(templates, routeKey);

      // Then it targets a payload 2.0 proxy integration of the route's own function, in the function's stack
      const fn = stack.functions[route.name]!;
      expect(template, routeKey).toBe(templates.of(fn));
      expect(template.toJSON().Resources[integrationId].Properties).toMatchObject({
        IntegrationType: 'AWS_PROXY',
        PayloadFormatVersion: '2.0',
        IntegrationUri: { Ref: aliasLogicalId(fn) },
      });
    }
    expect(templates.count('AWS::ApiGatewayV2::Route')).toBe(routes.length + 1);
  });

  it('declares every route of the route table exactly once across the templates, plus $default', () => {
    // Given the route table
    const expected = [...routes.map((route) => `${route.method} ${route.path}`), '$default'];

    // When the route keys of every template, the parent's and the nested stacks', are listed
    const declared = templates.find('AWS::ApiGatewayV2::Route').map(({ resource }) => resource.Properties.RouteKey as string);

    // Then each route of the table is there once, and no other
    expect(declared.sort()).toEqual(expected.sort());
  });

  it('deploys no /_local route: the local clock and diagnostics exist in the local stack only (on AWS $default answers 404)', () => {
    const declared = templates.find('AWS::ApiGatewayV2::Route').map(({ resource }) => resource.Properties.RouteKey as string);
    expect(declared.length).toBeGreaterThan(1);
    expect(declared.filter((routeKey) => routeKey.includes('/_local'))).toEqual([]);
  });

  it('keeps every template, the parent and each nested stack, under 400 of the 500 resources CloudFormation allows', () => {
    // Given the parent and its nested stacks, more than one since the routes alone need more than 500 resources
    expect(templates.byStack.size).toBeGreaterThan(1);

    for (const [each, template] of templates.byStack) {
      // When its resources are counted
      const count = Object.keys(template.toJSON().Resources).length;

      // Then there is room left for the route table to grow
      expect(count, each.node.path).toBeLessThan(400);
    }
  });

  it('puts each route function in the nested stack of its API area, and the other functions in the parent', () => {
    // Given the functions of the route table
    const areasByStack = new Map<Stack, Set<string>>();
    const stacksByArea = new Map<string, Set<Stack>>();
    for (const route of routes) {
      // When the stack of its function is looked up
      const routeStack = Stack.of(stack.functions[route.name]!);

      // Then it is a nested stack of the stateless stack
      expect(routeStack.nestedStackParent, route.name).toBe(stack);
      const area = apiArea(route.path);
      areasByStack.set(routeStack, new Set([...(areasByStack.get(routeStack) ?? []), area]));
      stacksByArea.set(area, new Set([...(stacksByArea.get(area) ?? []), routeStack]));
    }
    // And one nested stack holds one whole area, named after it
    expect([...areasByStack.values()].filter((areas) => areas.size !== 1)).toEqual([]);
    expect([...stacksByArea.values()].filter((stacks) => stacks.size !== 1)).toEqual([]);
    expect(Stack.of(stack.functions.createCustomer!).node.id).toBe('V1Customers');
    expect(Stack.of(stack.functions.retrieveCustomer!)).toBe(Stack.of(stack.functions.createCustomer!));
    expect(Stack.of(stack.functions.createPerson!).node.id).toBe('V2CoreAccounts');
    expect(Stack.of(stack.functions.showAccountLink!).node.id).toBe('HostedAccountLinks');
    // And the fallback, the queue workers and the scheduled jobs stay in the parent, with the API
    for (const { name } of [fallbackRoute, ...queueWorkers, ...scheduledJobs]) {
      expect(Stack.of(stack.functions[name]!), name).toBe(stack);
    }
    expect(Stack.of(stack.api)).toBe(stack);
  });

  it('passes each nested stack the id of the API, and every other parameter it declares, from the parent', () => {
    // Given the API in the parent
    const apiLogicalId = stack.getLogicalId(stack.api.node.defaultChild as CfnElement);

    for (const routeStack of Object.values(stack.routeStacks)) {
      // When the parameters the parent passes to the nested stack are read
      const nestedTemplate = templates.of(routeStack);
      const nested = nestedTemplate.toJSON();
      const stackResourceId = stack.getLogicalId(routeStack.nestedStackResource as CfnElement);
      const passed = templates.parent.toJSON().Resources[stackResourceId].Properties.Parameters ?? {};

      // Then every parameter the nested template declares is given a value, and no other
      expect(Object.keys(passed).sort(), routeStack.node.id).toEqual(Object.keys(nested.Parameters ?? {}).sort());
      // And each of its routes belongs to the parent's API
      const nestedRoutes = Object.values(nestedTemplate.findResources('AWS::ApiGatewayV2::Route'));
      expect(nestedRoutes.length, routeStack.node.id).toBeGreaterThan(0);
      for (const route of nestedRoutes) {
        expect(passed[route.Properties.ApiId.Ref], route.Properties.RouteKey).toEqual({ Ref: apiLogicalId });
      }
    }
  });

  it('sends every unmatched path or method to the fallback function on $default', () => {
    // Given the API
    // When the $default route is looked up
    const { template, integrationId } = integrationOf(templates, '$default');

    // Then it is in the parent, and its integration calls the fallback function, which answers 404 or 405
    expect(template).toBe(templates.parent);
    expect(template.toJSON().Resources[integrationId].Properties.IntegrationUri).toEqual({ Ref: aliasLogicalId(stack.functions[fallbackRoute.name]!) });
  });

  it('lets API Gateway invoke a route function only through the path of its route', () => {
    // Given a route with a path parameter
    const route = routes.find((candidate) => candidate.path.includes('{'))!;

    // When the invoke permissions of its function are read
    const fn = stack.functions[route.name]!;
    const permissions = templates.of(fn).findResources('AWS::Lambda::Permission', {
      Properties: { FunctionName: { Ref: aliasLogicalId(fn) } },
    });

    // Then API Gateway may invoke it, from any stage, only for that path
    expect(Object.values(permissions)).toHaveLength(1);
    expect(JSON.stringify(Object.values(permissions)[0])).toContain(`"/*/*${route.path}"`);
  });

  it('tells every function where the table, the bus and each queue are, how to log, and traces it', () => {
    // Given the functions of the stack
    for (const fn of Object.values(stack.functions)) {
      // When the environment of its Lambda function is read
      const variables = functionProperties(templates, fn).Environment.Variables;

      // Then it has every variable shared/core/config.ts needs to reach the stateful resources
      expect(Object.keys(variables)).toEqual(
        expect.arrayContaining(['TABLE_NAME', 'EVENT_BUS_NAME', ...Object.values(queues).map((queue) => queue.urlVariable)]),
      );
      // And Powertools' settings, with no source map to load at cold start
      expect(variables).toMatchObject({
        POWERTOOLS_SERVICE_NAME: 'service-api',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        POWERTOOLS_METRICS_NAMESPACE: 'ServiceApi',
      });
      expect(variables.NODE_OPTIONS).toBeUndefined();
      // And X-Ray traces it
      expect(functionProperties(templates, fn).TracingConfig).toEqual({ Mode: 'Active' });
    }
  });

  it('gives every function its own JSON log group, kept 13 months and retained when the stack goes', () => {
    // Given the functions of the stack
    for (const fn of Object.values(stack.functions)) {
      // When its logging configuration is read, in the template of its stack
      const logGroupId = Stack.of(fn).getLogicalId(fn.logGroup.node.defaultChild as CfnLogGroup);

      // Then it logs JSON to its own group, application logs from INFO
      expect(functionProperties(templates, fn).LoggingConfig).toEqual({
        LogGroup: { Ref: logGroupId },
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'WARN',
      });
      // And the group keeps 400 days of logs and outlives the function
      const logGroup = templates.of(fn).toJSON().Resources[logGroupId];
      expect(logGroup.Properties.RetentionInDays).toBe(400);
      expect(logGroup).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
  });

  it('stops API functions before API Gateway gives up on them after 30 seconds', () => {
    // Given the route functions and the fallback
    for (const name of [...routes.map((route) => route.name), fallbackRoute.name]) {
      // When its timeout is read
      const timeout = functionProperties(templates, stack.functions[name]!).Timeout;

      // Then it is at most 29 seconds
      expect(timeout).toBeLessThanOrEqual(29);
    }
  });

  it('feeds each worker from its queue and lets it report partial batch failures', () => {
    // Given the queue workers of the route table, among them deliverEvent on the deliveries queue
    expect(queueWorkers).toContainEqual(expect.objectContaining({ name: 'deliverEvent', queue: 'deliveries' }));
    expect(templates.count('AWS::Lambda::EventSourceMapping')).toBe(queueWorkers.length);

    for (const worker of queueWorkers) {
      // When its event source mapping is read
      const fn = stack.functions[worker.name]!;
      const mappings = Object.values(
        templates.of(fn).findResources('AWS::Lambda::EventSourceMapping', { Properties: { FunctionName: aliasQualifiedName(fn) } }),
      );

      // Then it reads its own queue, batches as configured and reports failed items instead of failing the batch
      expect(mappings, worker.name).toHaveLength(1);
      const mapping = mappings[0]!.Properties;
      expect(isArnOf(mapping.EventSourceArn, service.stateful.queues[worker.queue].queue), worker.name).toBe(true);
      expect(mapping).toMatchObject({
        BatchSize: worker.batchSize ?? 10,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: worker.maxConcurrency },
      });
      expect(mapping.MaximumBatchingWindowInSeconds, worker.name).toBe(worker.maxBatchingWindowSeconds || undefined);
      // And its queue's visibility timeout is at least six times its timeout
      expect(6 * functionProperties(templates, fn).Timeout).toBeLessThanOrEqual(queues[worker.queue].visibilityTimeoutSeconds);
    }
  });

  it('lets the delivery worker send to the deliveries queue and put events on the bus', () => {
    // Given deliverEvent, which re-enqueues retries and delivers to EventBridge destinations
    const worker = stack.functions.deliverEvent!;

    // When the resources its role may send messages and put events to are listed
    const sendTargets = resourcesAllowed(templates, worker, 'sqs:SendMessage');
    const putTargets = resourcesAllowed(templates, worker, 'events:PutEvents');

    // Then it may send to the deliveries queue and put events on the service's bus, and nothing else
    expect(sendTargets).toHaveLength(1);
    expect(isArnOf(sendTargets[0], service.stateful.queues.deliveries.queue)).toBe(true);
    expect(putTargets).toHaveLength(1);
    expect(isArnOf(putTargets[0], service.stateful.eventBus)).toBe(true);
  });

  it('runs each scheduled job on its rate, through a rule that targets its function', () => {
    // Given the scheduled jobs of the route table, among them the delivery sweeper every minute
    expect(scheduledJobs).toContainEqual(expect.objectContaining({ name: 'sweepDeliveries', everyMinutes: 1 }));
    expect(templates.count('AWS::Events::Rule')).toBe(scheduledJobs.length + 1);

    for (const job of [...scheduledJobs, apiProbeJob]) {
      // When the rule targeting its function is looked up, in the template of its stack
      const fn = stack.functions[job.name]!;
      const template = templates.of(fn);
      // The rule invokes the live alias, which CodeDeploy shifts (test/infra/safe-deploys.test.ts)
      const functionArn = { Ref: aliasLogicalId(fn) };
      const rules = template.findResources('AWS::Events::Rule', {
        Properties: { Targets: Match.arrayWith([Match.objectLike({ Arn: functionArn })]) },
      });

      // Then one enabled rule runs it at its rate
      expect(Object.values(rules), job.name).toHaveLength(1);
      const [ruleId, rule] = Object.entries(rules)[0]!;
      const rate = job.everyMinutes === 1 ? 'rate(1 minute)' : `rate(${job.everyMinutes} minutes)`;
      expect(rule.Properties).toMatchObject({ ScheduleExpression: rate, State: 'ENABLED' });
      // And EventBridge is allowed to invoke the function, from that rule only
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        FunctionName: functionArn,
        Principal: 'events.amazonaws.com',
        SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
      });
    }
  });

  it('runs the delivery sweeper every minute', () => {
    // Given the sweeper of the route table
    const sweeper = stack.functions.sweepDeliveries!;

    // When the rule targeting it is read
    // Then it runs at a rate of one minute
    templates.of(sweeper).hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { Ref: aliasLogicalId(sweeper) } })],
    });
  });

  it('drops a failed or late scheduled run instead of retrying it into the next one', () => {
    for (const job of scheduledJobs) {
      // Given a scheduled job
      const fn = stack.functions[job.name]!;
      const template = templates.of(fn);
      const logicalId = functionLogicalId(fn);
      const period = job.everyMinutes * 60;

      // When its timeout, its asynchronous invocation settings and its rule target are read
      const timeout = template.toJSON().Resources[logicalId].Properties.Timeout;
      const invokeConfigs = template.findResources('AWS::Lambda::EventInvokeConfig', {
        Properties: { FunctionName: { Ref: logicalId }, Qualifier: aliasQualifier(fn) },
      });
      const rule = Object.values(
        template.findResources('AWS::Events::Rule', {
          Properties: { Targets: [Match.objectLike({ Arn: { Ref: aliasLogicalId(fn) } })] },
        }),
      )[0]!;

      // Then a run ends before the next one starts
      expect(timeout).toBeLessThan(Math.min(period, 60));
      // And Lambda neither retries a failed run nor keeps a run waiting longer than the period
      expect(Object.values(invokeConfigs)).toHaveLength(1);
      expect(Object.values(invokeConfigs)[0]!.Properties).toMatchObject({ MaximumRetryAttempts: 0 });
      expect(Object.values(invokeConfigs)[0]!.Properties.MaximumEventAgeInSeconds).toBeLessThanOrEqual(period);
      // And EventBridge gives up handing a run to Lambda once the next run is due
      expect(rule.Properties.Targets[0].RetryPolicy.MaximumEventAgeInSeconds).toBeLessThanOrEqual(period);
    }
  });

  it('leaves out the delivery settings when no context sets them', () => {
    // Given the stack synthesized with the context of cdk.json only
    for (const fn of Object.values(stack.functions)) {
      // When the environment of its Lambda function is read
      const variables = functionProperties(templates, fn).Environment.Variables;

      // Then shared/core/config.ts is left to apply its defaults
      expect(Object.keys(variables).filter((name) => deliverySettingVariables.includes(name))).toEqual([]);
      // except that deployed webhooks stay off private addresses, whatever the mode
      expect(variables.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe('false');
    }
  });

  it('allows no wildcard action in any IAM policy', () => {
    // Given every identity policy of the stack and of its nested stacks
    const statements = templates
      .find('AWS::IAM::Policy')
      .flatMap(({ resource }) => resource.Properties.PolicyDocument.Statement as { Effect: string; Action: string | string[] }[]);
    expect(statements.length).toBeGreaterThan(0);

    // When their allowed actions are listed
    const actions = statements.filter((statement) => statement.Effect === 'Allow').flatMap((s) => [s.Action].flat());

    // Then none is `*` or a service-wide or prefix wildcard such as dynamodb:* or sqs:*
    expect(actions.filter((action) => action.includes('*'))).toEqual([]);
  });

  it('grants each function exactly the DynamoDB actions of its permissions: no Scan, no stream action, deletes and batch writes only where declared', () => {
    const entries = [...routes, fallbackRoute, ...queueWorkers, ...scheduledJobs];
    for (const entry of entries) {
      // Given a function and the actions functions/permissions.ts gives its permissions
      const declared = new Set(
        entry.permissions.flatMap((permission) => tableStatements[permission as TablePermission]?.actions.map((action) => `dynamodb:${action}`) ?? []),
      );

      // When the DynamoDB actions its role allows are listed
      const granted = new Set(allowedActions(templates, stack.functions[entry.name]!).filter((action) => action.startsWith('dynamodb:')));

      // Then they are exactly those
      expect([...granted].sort(), entry.name).toEqual([...declared].sort());
    }
    // And no function may scan, read a stream, or delete or batch-write without declaring it
    const all = entries.flatMap((entry) => allowedActions(templates, stack.functions[entry.name]!).map((action) => ({ entry, action })));
    expect(all.filter(({ action }) => /Scan|Stream|GetRecords|GetShardIterator|PartiQL|\*$/.test(action) && action.startsWith('dynamodb:'))).toEqual([]);
    for (const { entry, action } of all) {
      if (action === 'dynamodb:DeleteItem') expect(entry.permissions, entry.name).toContain('table:delete');
      if (action === 'dynamodb:BatchWriteItem') expect(entry.permissions, entry.name).toContain('table:batch-write');
    }
  });

  it('lets a read-only route write nothing but rate counters, by their leading keys', () => {
    // Given the routes that only read (and count their requests)
    const readOnlyRoutes = routes.filter((route) => route.permissions.includes('table:read') && !route.permissions.includes('table:write'));
    expect(readOnlyRoutes.length).toBeGreaterThan(10);

    for (const route of readOnlyRoutes) {
      // When the statements of its role that allow a table write are read
      const writes = allowedStatements(templates, stack.functions[route.name]!).filter((statement) =>
        [statement.Action].flat().some((action) => tableWrites.includes(action)),
      );

      // Then each is bound to the partitions of its permission: UpdateItem on RATE#… (account secrets: test/infra/secrets.test.ts)
      expect(
        writes.map((statement) => ({ actions: [statement.Action].flat(), condition: statement.Condition })),
        route.name,
      ).toEqual([{ actions: ['dynamodb:UpdateItem'], condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['RATE#*'] } } }]);
    }
  });

  it('lets Query reach the named indexes while every other table action stays on the table itself', () => {
    // Given a route that reads and writes
    const fn = stack.functions.createCustomer!;

    // When the resources of its Query and its PutItem are read
    const queried = resourcesAllowed(templates, fn, 'dynamodb:Query');
    const written = resourcesAllowed(templates, fn, 'dynamodb:PutItem');

    // Then Query may use the table and each named index (no index wildcard); PutItem only the table
    expect(queried).toHaveLength(3);
    expect(isArnOf(queried[0], service.stateful.table)).toBe(true);
    expect(JSON.stringify(queried.slice(1))).toMatch(/\/index\/GSI1.*\/index\/GSI2/);
    expect(JSON.stringify(queried)).not.toContain('index/*');
    expect(written.length).toBeGreaterThan(0);
    for (const resource of written) {
      expect(isArnOf(resource, service.stateful.table)).toBe(true);
      expect(JSON.stringify(resource)).not.toContain('/index/');
    }
  });

  it('lets every function that touches the table use its key, and no other', () => {
    // Given a read-only route, a writing one and the fallback
    const kms = (name: string) =>
      allowedStatements(templates, stack.functions[name]!)
        .filter((statement) => isArnOf(statement.Resource, service.stateful.tableKey))
        .flatMap((statement) => [statement.Action].flat());

    // When the KMS actions their roles allow on the table key are read
    // Then each may decrypt what it reads and encrypt what it writes (a read-only route writes rate counters)
    expect(kms('retrieveCustomer')).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey']));
    expect(kms('createCustomer')).toEqual(expect.arrayContaining(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey', 'kms:ReEncryptFrom']));
    // And only through DynamoDB
    const conditions = allowedStatements(templates, stack.functions.createCustomer!)
      .filter((statement) => isArnOf(statement.Resource, service.stateful.tableKey))
      .map((statement) => JSON.stringify(statement.Condition));
    expect(conditions.length).toBeGreaterThan(0);
    for (const condition of conditions) expect(condition).toContain('kms:ViaService');
    // And the fallback, which never touches the table, may not use the key at all
    expect(kms(fallbackRoute.name)).toEqual([]);
  });

  it('grants sending to a queue or putting on the bus only to functions whose permissions ask for it', () => {
    // Given every function with the permissions of its table entry
    const entries = [...routes, fallbackRoute, ...queueWorkers, ...scheduledJobs];
    for (const entry of entries) {
      // When the actions its role allows are listed
      const actions = allowedActions(templates, stack.functions[entry.name]!);

      // Then events:PutEvents and sqs:SendMessage appear exactly when asked for
      expect(actions.includes('events:PutEvents'), entry.name).toBe(entry.permissions.includes('bus:put'));
      expect(actions.includes('sqs:SendMessage'), entry.name).toBe(entry.permissions.some((p) => p.startsWith('queue:')));
    }
    // And the delivery worker, which asks for bus:put, proves the check can see the grant
    expect(allowedActions(templates, stack.functions.deliverEvent!)).toContain('events:PutEvents');
  });

  it('lets the delivery sweeper re-enqueue deliveries but never put events on the bus', () => {
    // Given the sweeper, which only finds due deliveries and puts them back on the queue
    // When the actions its role allows are listed
    const actions = allowedActions(templates, stack.functions.sweepDeliveries!);

    // Then it may send to the queue but has no events:PutEvents
    expect(actions).toContain('sqs:SendMessage');
    expect(actions).not.toContain('events:PutEvents');
  });

  it('gives the fallback function nothing beyond its own logs and traces', () => {
    // Given the fallback, whose permissions are empty
    // When the actions its role allows are listed
    const actions = allowedActions(templates, stack.functions[fallbackRoute.name]!);

    // Then only writing to its log group and sending its traces remain
    expect([...new Set(actions)].sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
  });

  it('gives the OpenAPI document’s function nothing beyond its own logs and traces', () => {
    // Given the document route, which reads nothing but its own bundle
    const route = routes.find((candidate) => candidate.path === '/openapi.json')!;

    // When the actions its role allows are listed
    const actions = allowedActions(templates, stack.functions[route.name]!);

    // Then only writing to its log group and sending its traces remain
    expect([...new Set(actions)].sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents', 'xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
  });

  it('outputs the API URL and the table name', () => {
    // Given the stateless stack
    // When its outputs are read
    // Then the API endpoint and the table name are there
    templates.parent.hasOutput('ApiUrl', { Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^HttpApi'), 'ApiEndpoint'] } });
    templates.parent.hasOutput('TableName', { Value: Match.anyValue() });
  });
});

describe('the handlers of the route table', () => {
  it('each bundle as the stack bundles them (ES modules for Node 24, AWS SDK included, no tracing SDK, no source map)', async () => {
    // Given every entry file of the route table
    const entries = [...new Set([...routes, fallbackRoute, ...queueWorkers, ...scheduledJobs, apiProbeJob, originAuthorizerJob].map((entry) => entry.handler))];

    // When esbuild bundles them all in one build, with the stack's settings
    const result = await build({
      entryPoints: entries.map((entry) => join(repositoryRoot, entry)),
      ...esbuildOptions,
      outdir: 'out',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });

    // Then every entry bundles without errors into a module exporting its handler
    expect(result.errors).toEqual([]);
    expect(result.outputFiles.filter((file) => file.path.endsWith('.js'))).toHaveLength(entries.length);
    for (const file of result.outputFiles) expect(file.text, file.path).toMatch(/export\s*\{[^}]*\bhandler\b/);
    // And none carries the X-Ray SDK (end of support 2027-02-25) or a credential provider Lambda never reaches
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => /aws-xray-sdk|powertools\/tracer|credential-provider-(sso|ini|web-identity)|nested-clients/.test(input))).toEqual([]);
  });
});

describe('stateless stack with fixture entries', () => {
  let service: SynthesizedService;
  let stack: StatelessStack;
  let templates: StatelessTemplates;

  beforeAll(() => {
    service = synthesizeService(fixtureEntries);
    stack = service.stateless;
    templates = service.statelessTemplates;
  });
  afterAll(() => service?.cleanUp());

  it('bundles a worker into an ES module that loads and answers a batch', () => {
    // Given the bundle of the fixture worker, which pulls in a CommonJS package requiring a Node built-in
    const worker = stack.functions[fixtureWorker.name]!;
    const assetPath = templates.of(worker).toJSON().Resources[functionLogicalId(worker)].Metadata['aws:asset:path'] as string;
    const bundle = pathToFileURL(join(service.outdir, assetPath, 'index.mjs')).href;
    // And no source map ships with it
    expect(readdirSync(join(service.outdir, assetPath))).toEqual(['index.mjs']);

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

describe('stateless stack with delivery settings in the context', () => {
  const context = {
    cloudtwoEventGridEndpoint: 'https://eventgrid.cloudtwo.example/partner-topics',
    deliveryRetryScheduleTest: '30,600',
    deliveryRetryScheduleLive: '60,300,1800,3600',
    webhookAllowPrivateTargets: 'true',
  };
  let service: SynthesizedService;

  beforeAll(() => {
    // Bundling is skipped: these tests read environment variables, not code.
    service = synthesizeService(fixtureEntries, { ...context, 'aws:cdk:bundling-stacks': [] });
  });
  afterAll(() => service?.cleanUp());

  it('passes the Event Grid endpoint and the retry schedules to every function', () => {
    // Given the stack synthesized with -c cloudtwoEventGridEndpoint=… -c deliveryRetryScheduleTest=… -c deliveryRetryScheduleLive=…
    const functions = Object.values(service.stateless.functions);
    expect(functions).toHaveLength(Object.values(fixtureEntries).flat().length + 1);

    for (const fn of functions) {
      // When the environment of its Lambda function is read
      const variables = functionProperties(service.statelessTemplates, fn).Environment.Variables;

      // Then each setting arrives under the name shared/core/config.ts reads
      expect(variables).toMatchObject({
        CLOUDTWO_EVENT_GRID_ENDPOINT: context.cloudtwoEventGridEndpoint,
        DELIVERY_RETRY_SCHEDULE_TEST: context.deliveryRetryScheduleTest,
        DELIVERY_RETRY_SCHEDULE_LIVE: context.deliveryRetryScheduleLive,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      });
    }
  });
});

/**
 * The template that declares the route key, which must be declared once across all of them, and the
 * logical id of the integration behind it, following the route's `integrations/<id>` target.
 */
function integrationOf(templates: StatelessTemplates, routeKey: string): { template: Template; integrationId: string } {
  const found = templates.find('AWS::ApiGatewayV2::Route', { Properties: { RouteKey: routeKey } });
  expect(found, `route ${routeKey}`).toHaveLength(1);
  const { template, resource } = found[0]!;
  const target = resource.Properties.Target as { 'Fn::Join': [string, [string, { Ref: string }]] };
  return { template, integrationId: target['Fn::Join'][1][1].Ref };
}

describe('stateless stack with a faulty route table or settings', () => {
  /** Builds the stateless stack from fixture entries, without bundling, and returns the error it throws. */
  function buildError(entries: ServiceEntries, context: Record<string, unknown> = {}): unknown {
    const { app, cleanUp } = serviceApp({ ...context, 'aws:cdk:bundling-stacks': [] });
    try {
      const stateful = new StatefulStack(app, 'ServiceStateful');
      new StatelessStack(app, 'ServiceStateless', { resources: stateful, ...fixtureEntries, ...entries });
      return undefined;
    } catch (error) {
      return error;
    } finally {
      cleanUp();
    }
  }

  it('refuses two entries with the same name, since the name is the construct id', () => {
    // Given a route table where a second route reuses the name of the first
    const first = fixtureEntries.routes[0];
    const clash = { ...first, path: `${first.path}/copy` };

    // When the stack is built
    const error = buildError({ routes: [first, clash] });

    // Then synth stops with the duplicated name
    expect(error).toEqual(new Error(`Two functions are named ${clash.name}; names in functions/routes.ts must be unique`));
  });

  it('refuses a scheduled job that does not run every whole number of minutes', () => {
    // Given a job every half minute, which an EventBridge rate cannot express
    const job = { ...fixtureEntries.scheduledJobs[0], everyMinutes: 0.5 };

    // When the stack is built
    const error = buildError({ scheduledJobs: [job] });

    // Then synth stops, naming the job
    expect(String(error)).toContain(`Scheduled job ${job.name} must run every whole number of minutes`);
  });

  it.each([
    ['cloudtwoEventGridEndpoint', 'eventgrid.cloudtwo.example', 'an http or https URL'],
    ['cloudtwoEventGridEndpoint', 'ftp://eventgrid.cloudtwo.example', 'an http or https URL'],
    ['deliveryRetryScheduleTest', '60, 1800', 'comma-separated whole seconds'],
    ['deliveryRetryScheduleLive', '1m,5m', 'comma-separated whole seconds'],
  ])('refuses -c %s=%s at synth rather than at the first cold start', (key, value, expected) => {
    // Given a malformed value in the context
    // When the stack is built
    const error = buildError({}, { [key]: value });

    // Then synth stops, naming the context key and what it expects
    expect(String(error)).toContain(`${key} must be ${expected}`);
  });
});
