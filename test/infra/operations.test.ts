import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { queueWorkers, routes, scheduledJobs } from '#functions/routes.ts';
import { alarmThresholds, parkedWorkMetricName, refusedMessagesMetricName } from '#infra/monitoring.ts';
import { routeStackGroups } from '#infra/api-areas.ts';
import { buildService } from '#infra/service.ts';
import { probeSuccessMetricName } from '#shared/core/api-probe.ts';
import { tableSchema } from '#shared/data/table-schema.ts';
import { rateLimitedMetricName } from '#shared/http/rate-limit.ts';
import { queues } from '#shared/messaging/queues.ts';
import {
  fixtureEntries,
  functionProperties,
  isArnOf,
  realService,
  serviceApp,
  synthesizeService,
  type StatelessTemplates,
  type SynthesizedService,
} from './support/service-app.ts';

/** The context an operator passes for a stage: where alarms go, throttles, retention, env. */
const context = {
  alarmEmail: 'oncall@example.com',
  apiThrottleRate: '250',
  apiThrottleBurst: '100',
  logRetentionDays: '731',
  account: '123456789012',
  region: 'eu-west-1',
  // Without bundling: these tests read the templates, not the code.
  'aws:cdk:bundling-stacks': [],
};

const logicalIdOf = (construct: { node: { defaultChild?: unknown } }) =>
  Stack.of(construct as never).getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);

describe('the deployed service, as an operator configures it', () => {
  let service: SynthesizedService;
  let templates: StatelessTemplates;
  let parent: Template;

  beforeAll(() => {
    service = synthesizeService({}, context);
    templates = service.statelessTemplates;
    parent = templates.parent;
  });
  afterAll(() => service?.cleanUp());

  /** The alarm of `id` under the monitoring construct, as written in the parent template. */
  const alarm = (id: string) => {
    const found = Object.entries(parent.findResources('AWS::CloudWatch::Alarm')).filter(([logicalId]) => logicalId.startsWith(`Monitoring${id}`));
    expect(found, id).toHaveLength(1);
    return found[0]![1].Properties as Record<string, any>;
  };

  it('alarms when anything waits in a dead-letter queue, and when a queue’s oldest message is too old', () => {
    for (const name of Object.keys(queues) as (keyof typeof queues)[]) {
      // Given a queue and its dead-letter queue in the stateful stack
      const { queue, deadLetterQueue } = service.stateful.queues[name];
      const pascal = name.replace(/(^|-)(\w)/g, (_, __, letter: string) => letter.toUpperCase());

      // When the alarms on them are read
      const deadLetters = alarm(`${pascal}DeadLetters`);
      const oldest = alarm(`${pascal}OldestMessage`);

      // Then one dead letter is enough, and the backlog alarm uses the queue's own threshold
      expect(deadLetters).toMatchObject({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Namespace: 'AWS/SQS',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      expect(isArnOf(deadLetters.Dimensions, deadLetterQueue) || JSON.stringify(deadLetters.Dimensions).includes(logicalIdOf(deadLetterQueue))).toBe(true);
      expect(oldest).toMatchObject({ MetricName: 'ApproximateAgeOfOldestMessage', Threshold: alarmThresholds.oldestMessageSeconds[name] });
      expect(JSON.stringify(oldest.Dimensions)).toContain(logicalIdOf(queue));
    }
  });

  it('alarms on errors and throttles of every queue worker and scheduled job', () => {
    for (const { name } of [...queueWorkers, ...scheduledJobs]) {
      const pascal = name[0]!.toUpperCase() + name.slice(1);
      expect(alarm(`${pascal}Errors`), name).toMatchObject({ MetricName: 'Errors', Namespace: 'AWS/Lambda', Threshold: 1 });
      expect(alarm(`${pascal}Throttles`), name).toMatchObject({ MetricName: 'Throttles', Namespace: 'AWS/Lambda', Threshold: 1 });
    }
  });

  it('alarms on the API’s 5xx rate and p99 latency, for the $default stage', () => {
    const serverErrors = alarm('ApiServerErrors');
    expect(serverErrors.Threshold).toBe(alarmThresholds.apiServerErrorPercent);
    expect(JSON.stringify(serverErrors.Metrics)).toContain('100 * errors / requests');
    expect(JSON.stringify(serverErrors.Metrics)).toContain('"MetricName":"5xx"');
    const latency = alarm('ApiLatencyP99');
    expect(latency).toMatchObject({ MetricName: 'Latency', ExtendedStatistic: 'p99', Threshold: alarmThresholds.apiLatencyP99Millis, EvaluationPeriods: 3 });
    expect(latency.Dimensions).toEqual(expect.arrayContaining([{ Name: 'Stage', Value: '$default' }]));
  });

  it('counts parked poison work from the sweepers’ logs and alarms on it', () => {
    // Given each scheduled job's log group
    const filters = parent.findResources('AWS::Logs::MetricFilter');
    for (const { name } of scheduledJobs) {
      const logGroupId = logicalIdOf(service.stateless.functions[name]!.logGroup);

      // Then a filter counts its `parked: true` lines into the parked-work metric
      const filter = Object.values(filters).find((each) => JSON.stringify(each.Properties.LogGroupName) === JSON.stringify({ Ref: logGroupId }));
      expect(filter?.Properties, name).toMatchObject({
        FilterPattern: '{ $.parked IS TRUE }',
        MetricTransformations: [{ MetricName: parkedWorkMetricName, MetricNamespace: 'ServiceApi', MetricValue: '1' }],
      });
    }
    expect(alarm('ParkedWork')).toMatchObject({ MetricName: parkedWorkMetricName, Namespace: 'ServiceApi', Threshold: 1 });
  });

  it('counts the queue messages the workers refused (not sealed by the service) and alarms on the first', () => {
    // Given each queue worker's log group
    const filters = parent.findResources('AWS::Logs::MetricFilter');
    for (const { name } of queueWorkers) {
      const logGroupId = logicalIdOf(service.stateless.functions[name]!.logGroup);

      // Then a filter counts its `refusedMessage: true` lines into the refused-messages metric
      const filter = Object.values(filters).find((each) => JSON.stringify(each.Properties.LogGroupName) === JSON.stringify({ Ref: logGroupId }));
      expect(filter?.Properties, name).toMatchObject({
        FilterPattern: '{ $.refusedMessage IS TRUE }',
        MetricTransformations: [{ MetricName: refusedMessagesMetricName, MetricNamespace: 'ServiceApi', MetricValue: '1' }],
      });
    }
    expect(alarm('RefusedQueueMessages')).toMatchObject({ MetricName: refusedMessagesMetricName, Namespace: 'ServiceApi', Threshold: 1 });
  });

  it('sends every alarm, and its return to OK, to one encrypted topic with the operator’s email subscribed', () => {
    // Given the alarm topic
    const [topicId, topic] = Object.entries(parent.findResources('AWS::SNS::Topic'))[0]!;
    expect(topic.Properties.KmsMasterKeyId).toBeDefined();

    // Then every alarm notifies it on ALARM and on OK: the parent's directly, the route areas' (in their nested
    // stacks, beside the deployment groups that roll back on them) through the parameter the parent fills
    const alarms = Object.values(parent.findResources('AWS::CloudWatch::Alarm'));
    const parentAlarms = alarms.length;
    for (const routeStack of Object.values(service.stateless.routeStacks)) {
      const nestedResource = parent.toJSON().Resources[service.stateless.getLogicalId(routeStack.nestedStackResource as CfnElement)];
      for (const each of Object.values(templates.of(routeStack).findResources('AWS::CloudWatch::Alarm'))) {
        for (const actions of [each.Properties.AlarmActions, each.Properties.OKActions]) {
          expect(actions).toHaveLength(1);
          expect(nestedResource.Properties.Parameters[actions[0].Ref]).toEqual({ Ref: topicId });
        }
        alarms.push({ ...each, Properties: { ...each.Properties, AlarmActions: [{ Ref: topicId }], OKActions: [{ Ref: topicId }] } });
      }
    }
    expect(parentAlarms).toBeLessThan(alarms.length);
    const routeAreaAlarms = routeStackGroups(routes).reduce((sum, group) => sum + Math.ceil(group.routes.length / 10), 0);
    const tableAlarms = 2 + tableSchema.globalIndexes.length;
    // (the probe is a scheduled job of the stack's own, with the ApiProbe alarm besides)
    const jobs = scheduledJobs.length + 1;
    // (and the backup vault's failed backup and copy jobs)
    expect(alarms.length).toBe(2 * Object.keys(queues).length + 3 * jobs + 2 * queueWorkers.length + 4 + 1 + 1 + routeAreaAlarms + tableAlarms + 2);
    for (const each of alarms) {
      expect(each.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
      expect(each.Properties.OKActions).toEqual([{ Ref: topicId }]);
    }
    // And the email of -c alarmEmail is subscribed
    parent.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: context.alarmEmail, TopicArn: { Ref: topicId } });
    // And CloudWatch may use the topic's key, and only TLS reaches the topic
    parent.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: { Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' } })]) },
    });
    parent.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
  });

  it('pages when a scheduled job stops running, counting silence as an outage', () => {
    for (const job of scheduledJobs) {
      // Given a job's not-running alarm
      const notRunning = alarm(`${job.name.replace(/^\w/, (letter) => letter.toUpperCase())}NotRunning`);
      // Then fewer than one invocation in each of two five-minute periods, or no data at all, is an alarm
      expect(notRunning).toMatchObject({
        MetricName: 'Invocations',
        ComparisonOperator: 'LessThanThreshold',
        Threshold: 1,
        EvaluationPeriods: 2,
        TreatMissingData: 'breaching',
      });
    }
  });

  it('probes the deployed API every minute through its public URL, paging on two failed minutes of three or on silence', () => {
    // Given the probe function, given the API's URL
    const probe = Object.values(parent.findResources('AWS::Lambda::Function')).find((fn) => fn.Properties.Environment?.Variables?.PROBE_URL);
    expect(probe, 'a function with PROBE_URL').toBeDefined();
    expect(JSON.stringify(probe!.Properties.Environment.Variables.PROBE_URL)).toContain('HttpApi');
    // And its alarm
    expect(alarm('ApiProbe')).toMatchObject({
      MetricName: probeSuccessMetricName,
      Statistic: 'Minimum',
      Period: 60,
      ComparisonOperator: 'LessThanThreshold',
      Threshold: 1,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
      TreatMissingData: 'breaching',
    });
  });

  it('alarms on route function errors per API area, every route function in exactly one alarm of at most 10 metrics', () => {
    const watched: string[] = [];
    for (const group of routeStackGroups(routes)) {
      for (let part = 0; part * 10 < group.routes.length; part++) {
        // Given the area's alarm (or part of it), in the area's nested stack beside its functions
        const id = `${group.id}${part === 0 ? '' : `Part${part + 1}`}RouteErrors`;
        const inArea = Object.entries(templates.of(service.stateless.routeStacks[group.id]!).findResources('AWS::CloudWatch::Alarm')).filter(([logicalId]) =>
          logicalId.startsWith(id),
        );
        expect(inArea, id).toHaveLength(1);
        const errors = inArea[0]![1].Properties as Record<string, any>;
        const metrics = (
          errors.Metrics as Array<{ Id: string; MetricStat?: { Metric: { MetricName: string; Dimensions: Array<{ Value: unknown }> } } }>
        ).filter((each) => each.MetricStat);
        // Then it sums the Errors of at most 10 of the area's functions, each counted 0 when it did not run
        // (Lambda publishes no Errors then, and a sum with a missing term has no value: the alarm would stay OK)
        expect(metrics.length).toBeLessThanOrEqual(10);
        const expression = (errors.Metrics as Array<{ Expression?: string }>).find((each) => each.Expression)!.Expression!;
        expect(expression.match(/FILL\(\w+, 0\)/g)).toHaveLength(metrics.length);
        for (const metric of metrics) {
          expect(metric.MetricStat!.Metric.MetricName).toBe('Errors');
          watched.push(JSON.stringify(metric.MetricStat!.Metric.Dimensions[0]!.Value));
        }
      }
    }
    expect(watched).toHaveLength(routes.length);
    expect(new Set(watched).size).toBe(routes.length);
  });

  it('alarms on the share of requests the functions refuse with 429, and on DynamoDB throttles and system errors of the table and each index', () => {
    // Given the 429 alarm: the RateLimitedRequests the pipeline counts, over the stage's requests
    const limited = alarm('ApiRateLimited');
    expect(JSON.stringify(limited.Metrics)).toContain(rateLimitedMetricName);
    expect(limited.Threshold).toBe(alarmThresholds.rateLimitedPercent);

    // And the table's throttles and system errors, summed over the operations the functions call, and each
    // index's read and write throttles: every term counted 0 when DynamoDB published nothing for it
    const filled = (id: string, metricName: string, terms: number) => {
      const metrics = alarm(id).Metrics as Array<{ Expression?: string; MetricStat?: { Metric: { MetricName: string } } }>;
      expect(
        metrics.filter((each) => each.MetricStat).every((each) => each.MetricStat!.Metric.MetricName.endsWith(metricName)),
        id,
      ).toBe(true);
      expect(metrics.find((each) => each.Expression)!.Expression!.match(/FILL\(\w+, 0\)/g), id).toHaveLength(terms);
    };
    filled('TableThrottles', 'ThrottledRequests', 8);
    filled('TableSystemErrors', 'SystemErrors', 8);
    for (const { indexName } of tableSchema.globalIndexes) {
      filled(`${indexName}Throttles`, 'ThrottleEvents', 2);
      expect(JSON.stringify(alarm(`${indexName}Throttles`).Metrics)).toContain(indexName);
    }
  });

  it('draws a dashboard of the same signals, requests per route and delivery outcomes', () => {
    const dashboards = Object.values(parent.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    // The body is a JSON document joined from strings and references; its literal parts hold the titles and labels
    const parts = dashboards[0]!.Properties.DashboardBody['Fn::Join'][1] as unknown[];
    const body = parts.filter((part): part is string => typeof part === 'string').join('');
    for (const title of [
      'API requests and errors',
      'API latency (p50, p99)',
      'Requests per route',
      'Delivery outcomes',
      'Queue backlog',
      'Dead letters',
      'Parked work',
    ]) {
      expect(body).toContain(title);
    }
    for (const metric of ['DeliveriesDelivered', 'DeliveriesFailed', 'DeliveryRetriesScheduled']) expect(body).toContain(metric);
    // One line per route, labelled with its name
    for (const route of routes) expect(body, route.name).toContain(`"label":"${route.name}"`);
  });

  it('throttles the $default stage as configured, with detailed metrics and JSON access logs that hold no secret', () => {
    const stages = templates.find('AWS::ApiGatewayV2::Stage');
    expect(stages).toHaveLength(1);
    const stage = stages[0]!.resource.Properties;
    expect(stage).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 250, ThrottlingBurstLimit: 100, DetailedMetricsEnabled: true },
      // The keyless OpenAPI document has a small throttle of its own
      RouteSettings: { 'GET /openapi.json': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 } },
    });
    const format = JSON.parse(stage.AccessLogSettings.Format) as Record<string, string>;
    expect(format).toMatchObject({ requestId: '$context.requestId', status: '$context.status', routeKey: '$context.routeKey' });
    expect(Object.values(format).join(' ')).not.toMatch(/header|authorization|querystring|body/i);
    // And the access log group is kept as long as the function logs, and outlives the stack
    const logGroupId = logicalIdOf(service.stateless.accessLogs);
    expect(JSON.stringify(stage.AccessLogSettings.DestinationArn)).toContain(logGroupId);
    parent.hasResource('AWS::Logs::LogGroup', { Properties: { RetentionInDays: 731 }, DeletionPolicy: 'Retain' });
  });

  it('deploys both stacks to the stage’s explicit account and region, the stateless one after the stateful one', () => {
    for (const stack of [service.stateful, service.stateless]) {
      expect(stack.account).toBe(context.account);
      expect(stack.region).toBe(context.region);
    }
    expect(service.stateless.dependencies).toContain(service.stateful);
  });

  it('reaches the stateful resources through CloudFormation exports, which a deployed consumer pins', () => {
    // Given the stateless templates (parent and nested)
    const all = templates.all.map((template) => JSON.stringify(template.toJSON())).join('\n');

    // Then the table, queues and bus come in as Fn::ImportValue of the stateful stack's exports
    expect(all).toContain('"Fn::ImportValue":"ServiceStateful:ExportsOutputRef');
    const exported = Object.values(service.statefulTemplate.toJSON().Outputs ?? {}).map((output: any) => output.Export?.Name);
    expect(exported.length).toBeGreaterThan(0);
    for (const name of exported) expect(name).toMatch(/^ServiceStateful:ExportsOutput/);
  });
});

describe('the deployed service with tracing turned off', () => {
  it('leaves every function untraced', () => {
    const service = synthesizeService(fixtureEntries, { tracing: 'false', 'aws:cdk:bundling-stacks': [] });
    try {
      for (const fn of Object.values(service.stateless.functions)) {
        const properties = functionProperties(service.statelessTemplates, fn);
        expect(properties.TracingConfig?.Mode ?? 'PassThrough').toBe('PassThrough');
      }
    } finally {
      service.cleanUp();
    }
  });
});

describe('the stateful stack’s table key', () => {
  it('encrypts the table with a customer-managed key that rotates and outlives the stack', () => {
    const { stateful, statefulTemplate: template } = realService();
    const keyId = logicalIdOf(stateful.tableKey);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: { 'Fn::GetAtt': [keyId, 'Arn'] } },
    });
    template.hasResource('AWS::KMS::Key', {
      Properties: Match.objectLike({ EnableKeyRotation: true }),
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
    });
  });
});

describe('cdk-nag over both stacks', () => {
  it('finds nothing that is not acknowledged with a reason, and stops synth on a new finding', () => {
    // Given the service as `cdk synth` builds it, with the AwsSolutions and Serverless packs
    // When it is synthesized (once per worker, shared with the other files), Then no pack reports a finding
    expect(() => realService().app.synth()).not.toThrow();

    // Given the service (the fixture route table: the flaw is in the stateful stack) with one more queue that
    // has no dead-letter queue and allows plain HTTP
    const flawed = serviceApp({ 'aws:cdk:bundling-stacks': [] });
    try {
      const { stateful } = buildService(flawed.app, fixtureEntries);
      new Queue(stateful, 'Unprotected');

      // When it is synthesized, Then synth stops naming the rules it breaks
      expect(() => flawed.app.synth()).toThrow(/AwsSolutions-SQS3|AwsSolutions-SQS4/);
    } finally {
      flawed.cleanUp();
    }
  });

  it('refuses to deploy alarms that notify nobody unless told so, and then says it loudly; a pager topic is notified too', () => {
    // Given no alarm destination at all
    const silent = serviceApp({ alarmDestination: undefined, 'aws:cdk:bundling-stacks': [] });
    try {
      // Then synth stops, saying how to give one
      expect(() => buildService(silent.app)).toThrow(/Alarms would notify nobody.*alarmEmail.*alarmTopicArn.*alarmDestination=none/);
    } finally {
      silent.cleanUp();
    }

    // Given the explicit opt-out (the context of every test that is not about alarms), Then synth warns
    const warnings = Annotations.fromStack(realService().stateless).findWarning('*', Match.stringLikeRegexp('alarmDestination=none'));
    expect(warnings).toHaveLength(1);

    // Given a pager's topic, Then every alarm notifies it as well as the service's own topic
    const pagerTopic = 'arn:aws:sns:eu-west-1:123456789012:oncall-pager';
    const paged = serviceApp({ alarmDestination: undefined, alarmTopicArn: pagerTopic, 'aws:cdk:bundling-stacks': [] });
    try {
      const { stateless } = buildService(paged.app);
      const alarms = Object.values(Template.fromStack(stateless).findResources('AWS::CloudWatch::Alarm'));
      expect(alarms.length).toBeGreaterThan(0);
      for (const each of alarms) expect(each.Properties.AlarmActions).toContain(pagerTopic);
    } finally {
      paged.cleanUp();
    }
  });

  it('serves a restored table when told (-c restoredTableName), granting the functions that table and backing it up too', () => {
    // Given the service deployed after a restore into a new table
    const restored = serviceApp({ restoredTableName: 'service-restored-1', 'aws:cdk:bundling-stacks': [] });
    try {
      const { stateful, stateless } = buildService(restored.app);
      const template = Template.fromStack(stateless);
      const functions = Object.values(template.findResources('AWS::Lambda::Function')).filter((fn) => fn.Properties.Environment?.Variables?.TABLE_NAME);
      // Then every function of the parent stack names it, and the policies grant it (not the original table)
      expect(functions.length).toBeGreaterThan(0);
      for (const fn of functions) expect(fn.Properties.Environment.Variables.TABLE_NAME).toBe('service-restored-1');
      const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
      expect(policies).toContain(':table/service-restored-1');
      // And the backup plan selects it beside the original, which stays (retained)
      const selection = JSON.stringify(Template.fromStack(stateful).findResources('AWS::Backup::BackupSelection'));
      expect(selection).toContain(':table/service-restored-1');
      Template.fromStack(stateful).resourceCountIs('AWS::DynamoDB::Table', 1);
    } finally {
      restored.cleanUp();
    }
  });

  it('refuses operations settings it cannot honour, naming the context key', () => {
    for (const [key, value] of [
      ['alarmEmail', 'not-an-email'],
      ['alarmTopicArn', 'arn:aws:s3:::bucket'],
      ['alarmDestination', 'nobody'],
      ['restoredTableName', 'x'],
      ['logRetentionDays', '17'],
      ['apiThrottleBurst', '9000'],
      ['tracing', 'maybe'],
      ['account', '1234'],
      ['region', 'Mars'],
    ] as const) {
      const { app, cleanUp } = serviceApp({ [key]: value, 'aws:cdk:bundling-stacks': [] });
      try {
        expect(() => buildService(app), key).toThrow(new RegExp(key));
      } finally {
        cleanUp();
      }
    }
  });
});
