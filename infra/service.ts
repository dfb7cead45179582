import { type App, type Environment, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { acknowledgeFindings } from './acknowledgements.ts';
import { EdgeStack } from './edge-stack.ts';
import { edgeSettings } from './edge-settings.ts';
import { StatefulStack } from './stateful-stack.ts';
import { StatelessStack, type StatelessStackProps } from './stateless-stack.ts';

/** Entries of the stateless stack that tests swap for fixtures. */
export type ServiceEntries = Pick<StatelessStackProps, 'routes' | 'fallbackRoute' | 'queueWorkers' | 'scheduledJobs'>;

export interface Service {
  stage: string | undefined;
  env: Environment;
  stateful: StatefulStack;
  stateless: StatelessStack;
  /** The WAF web ACL in us-east-1, with `-c edge=cloudfront`. */
  edge?: EdgeStack;
}

/**
 * The account and region a stage deploys to, explicit rather than "whatever the profile points at":
 * `-c account=… -c region=…`, else `stages.<stage>.account` / `.region` in cdk.json's context, else the
 * CLI's current profile (CDK_DEFAULT_ACCOUNT, CDK_DEFAULT_REGION). Both stacks get the same environment,
 * so their references are checked at synth and a stage cannot straddle two accounts.
 */
export function stageEnvironment(app: App, stage: string | undefined): Environment {
  const stages = (app.node.tryGetContext('stages') ?? {}) as Record<string, { account?: unknown; region?: unknown } | undefined>;
  const configured = stage ? stages[stage] : undefined;
  const account: unknown = app.node.tryGetContext('account') ?? configured?.account ?? process.env.CDK_DEFAULT_ACCOUNT;
  const region: unknown = app.node.tryGetContext('region') ?? configured?.region ?? process.env.CDK_DEFAULT_REGION;
  if (account !== undefined && (typeof account !== 'string' || !/^\d{12}$/.test(account))) {
    throw new Error(`Context account must be a 12-digit AWS account id, got ${JSON.stringify(account)}`);
  }
  if (region !== undefined && (typeof region !== 'string' || !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region))) {
    throw new Error(`Context region must be an AWS region such as eu-west-1, got ${JSON.stringify(region)}`);
  }
  return { ...(account ? { account } : {}), ...(region ? { region } : {}) };
}

/**
 * Both stacks of one stage, as `cdk deploy --all` deploys them: `ServiceStateful[-<stage>]` and
 * `ServiceStateless[-<stage>]`, the second depending on the first through CloudFormation exports (strong
 * references: CloudFormation refuses to change or remove an export a deployed consumer still imports, and
 * `cdk deploy` deploys the stateful stack first). cdk-nag's AwsSolutions and Serverless packs check both.
 */
export function buildService(app: App, entries: ServiceEntries = {}): Service {
  const stage: unknown = app.node.tryGetContext('stage');
  if (stage !== undefined && (typeof stage !== 'string' || !/^[a-z][a-z0-9-]{0,19}$/.test(stage))) {
    throw new Error(`Context stage must be lowercase letters, digits and hyphens, got ${JSON.stringify(stage)}`);
  }
  const suffix = stage ? `-${stage}` : '';
  const tags = { service: 'service-api', ...(stage ? { stage } : {}) };
  const env = stageEnvironment(app, stage);

  // With the edge on: WAF's CLOUDFRONT web ACL must live in us-east-1, in a stack of its own there, whose ARN
  // the stateless stack reads through CDK's cross-region references (an SSM parameter in the stage's region).
  const edgeOn = edgeSettings(app, env.region ?? 'us-east-1').edge === 'cloudfront';
  if (edgeOn && (!env.account || !env.region)) {
    throw new Error(
      '-c edge=cloudfront needs an explicit account and region (-c account=… -c region=…): the edge stack is in us-east-1, the API in the stage region',
    );
  }
  const crossRegion = edgeOn && env.region !== 'us-east-1';
  const edge = edgeOn
    ? new EdgeStack(app, `ServiceEdge${suffix}`, {
        description: 'Service API: the WAF web ACL of the CloudFront distribution (us-east-1)',
        env: { ...env, region: 'us-east-1' },
        tags,
        crossRegionReferences: crossRegion,
        wafRateLimit: edgeSettings(app, 'us-east-1').wafRateLimit,
      })
    : undefined;

  const stateful = new StatefulStack(app, `ServiceStateful${suffix}`, {
    description: 'Service API: table, queues and event bus (retained)',
    env,
    tags,
  });
  const stateless = new StatelessStack(app, `ServiceStateless${suffix}`, {
    description: 'Service API: HTTP API, functions, queue workers, scheduled jobs, alarms and dashboard',
    env,
    tags,
    resources: { ...stateful, table: stateful.servedTable },
    ...(edge ? { webAclArn: edge.webAcl.attrArn, crossRegionReferences: crossRegion } : {}),
    ...entries,
  });
  stateless.addStackDependency(stateful, 'the functions use the table, queues and bus of the stateful stack');
  if (edge) stateless.addStackDependency(edge, 'the distribution uses the web ACL of the edge stack');
  acknowledgeFindings(stateful, stateless);

  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }), new ServerlessChecks(app, { verbose: true }));
  return { stage, env, stateful, stateless, ...(edge ? { edge } : {}) };
}
