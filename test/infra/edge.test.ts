import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { routes } from '#functions/routes.ts';
import { defaultWafRateLimit } from '#infra/edge-settings.ts';
import { managedRuleGroups } from '#infra/edge-stack.ts';
import { defaultRouteThrottles, routeThrottleClass } from '#infra/route-throttles.ts';
import { buildService, type Service, type ServiceEntries } from '#infra/service.ts';
import { originAuthorizerJob } from '#infra/stateless-stack.ts';
import { aliasLogicalId, fixtureEntries, functionProperties, serviceApp, StatelessTemplates } from './support/service-app.ts';

const withoutBundling = { 'aws:cdk:bundling-stacks': [] };
const stageEnv = { account: '123456789012', region: 'eu-west-1' };
const cloudFrontCertificate = 'arn:aws:acm:us-east-1:123456789012:certificate/0f1e2d3c-aaaa-bbbb-cccc-000000000001';
const regionalCertificate = 'arn:aws:acm:eu-west-1:123456789012:certificate/0f1e2d3c-aaaa-bbbb-cccc-000000000002';

/** The managed policies of CloudFront's: caching off, and every viewer header but Host to the origin. */
const cachingDisabledPolicyId = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const allViewerExceptHostHeaderPolicyId = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

interface Built extends Service {
  templates: StatelessTemplates;
  parent: Template;
  cleanUp: () => void;
}

function build(context: Record<string, unknown>, entries: ServiceEntries = fixtureEntries): Built {
  const { app, cleanUp } = serviceApp({ ...withoutBundling, ...context });
  const service = buildService(app, entries);
  const templates = new StatelessTemplates(service.stateless);
  return { ...service, templates, parent: templates.parent, cleanUp };
}

const logicalIdOf = (construct: { node: { defaultChild?: unknown } }) =>
  Stack.of(construct as never).getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);

describe('the API without an edge (the default)', () => {
  let built: Built;
  beforeAll(() => {
    built = build({});
  });
  afterAll(() => built?.cleanUp());

  it('has no distribution, web ACL, authorizer or edge stack, and its routes need no origin header', () => {
    expect(built.edge).toBeUndefined();
    expect(built.templates.count('AWS::CloudFront::Distribution')).toBe(0);
    expect(built.templates.count('AWS::ApiGatewayV2::Authorizer')).toBe(0);
    for (const { resource } of built.templates.find('AWS::ApiGatewayV2::Route')) expect(resource.Properties.AuthorizationType).toBe('NONE');
    // And the functions take the client's address from API Gateway, and build links from the request's host
    const variables = functionProperties(built.templates, built.stateless.functions.listFixtures!).Environment.Variables;
    expect(variables.CLIENT_ADDRESS_HEADER).toBeUndefined();
    expect(variables.PUBLIC_BASE_URL).toBeUndefined();
  });
});

describe('the API behind CloudFront and WAF (-c edge=cloudfront)', () => {
  let built: Built;
  let edgeTemplate: Template;
  beforeAll(() => {
    built = build({ ...stageEnv, edge: 'cloudfront', wafRateLimit: '3000' });
    edgeTemplate = Template.fromStack(built.edge!);
  });
  afterAll(() => built?.cleanUp());

  it('puts the web ACL in a stack of its own in us-east-1, which the stateless stack deploys after and reads across regions', () => {
    expect(built.edge!.region).toBe('us-east-1');
    expect(built.edge!.account).toBe(stageEnv.account);
    expect(built.stateless.dependencies).toContain(built.edge);
    // The ARN crosses regions through CDK's SSM-backed reader, not a CloudFormation export
    const distribution = Object.values(built.parent.findResources('AWS::CloudFront::Distribution'))[0]!;
    const webAcl = distribution.Properties.DistributionConfig.WebACLId['Fn::GetAtt'];
    expect(built.parent.toJSON().Resources[webAcl[0]].Type).toBe('Custom::CrossRegionExportReader');
    expect(webAcl[1]).toContain('WebAclArn');
  });

  it('filters with a rate-based rule per source IP and the managed common, known-bad-inputs and IP reputation groups', () => {
    const acl = Object.values(edgeTemplate.findResources('AWS::WAFv2::WebACL'));
    expect(acl).toHaveLength(1);
    const { Scope, DefaultAction, Rules } = acl[0]!.Properties;
    expect(Scope).toBe('CLOUDFRONT');
    expect(DefaultAction).toEqual({ Allow: {} });
    // The rate rule first, with the context's limit per IP and minute
    expect(Rules[0]).toMatchObject({
      Priority: 0,
      Action: { Block: {} },
      Statement: { RateBasedStatement: { AggregateKeyType: 'IP', Limit: 3000, EvaluationWindowSec: 60 } },
    });
    const groups = Rules.slice(1).map((rule: any) => rule.Statement.ManagedRuleGroupStatement);
    expect(groups.map((group: any) => `${group.VendorName}/${group.Name}`)).toEqual(managedRuleGroups.map((name) => `AWS/${name}`));
    expect(managedRuleGroups).toEqual(
      expect.arrayContaining(['AWSManagedRulesCommonRuleSet', 'AWSManagedRulesKnownBadInputsRuleSet', 'AWSManagedRulesAmazonIpReputationList']),
    );
    // Large bodies (meter event streams) are counted, not blocked, by the common rule set
    const common = groups.find((group: any) => group.Name === 'AWSManagedRulesCommonRuleSet');
    expect(common.RuleActionOverrides).toEqual([{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }]);
  });

  it('sizes the rate rule from docs/capacity.md when the context says nothing', () => {
    const defaults = build({ ...stageEnv, edge: 'cloudfront' });
    try {
      const acl = Object.values(Template.fromStack(defaults.edge!).findResources('AWS::WAFv2::WebACL'))[0]!;
      expect(acl.Properties.Rules[0].Statement.RateBasedStatement.Limit).toBe(defaultWafRateLimit);
      // The most one client may send by the service's own meter-event limit (1,000 a second), for a minute
      expect(defaultWafRateLimit).toBe(1_000 * 60);
    } finally {
      defaults.cleanUp();
    }
  });

  it('forwards every method, header but Host, query string and body to the API over HTTPS, caching nothing', () => {
    const distribution = Object.values(built.parent.findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig;
    expect(distribution.DefaultCacheBehavior).toMatchObject({
      AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
      CachePolicyId: cachingDisabledPolicyId,
      OriginRequestPolicyId: allViewerExceptHostHeaderPolicyId,
      ViewerProtocolPolicy: 'https-only',
    });
    const [origin] = distribution.Origins;
    expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
    expect(JSON.stringify(origin.DomainName)).toContain(logicalIdOf(built.stateless.api));
    expect(JSON.stringify(origin.DomainName)).toContain('.execute-api.eu-west-1.');
  });

  it('locks the origin: CloudFront sends a secret header from Secrets Manager, and an authorizer on every route requires it', () => {
    // CloudFront's origin header is a dynamic reference to the stack's secret: the value is in no template
    const distribution = Object.values(built.parent.findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig;
    const [header] = distribution.Origins[0].OriginCustomHeaders;
    expect(header.HeaderName).toBe('x-origin-verify');
    const secretId = logicalIdOf(built.stateless.originSecret!);
    expect(header.HeaderValue).toEqual({ 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']] });
    built.parent.hasResourceProperties('AWS::SecretsManager::Secret', { GenerateSecretString: Match.objectLike({ PasswordLength: 48 }) });

    // The authorizer compares the same secret, answers simply, and is cached by the header's value
    const authorizers = built.templates.find('AWS::ApiGatewayV2::Authorizer');
    expect(authorizers).toHaveLength(1);
    const authorizer = authorizers[0]!;
    expect(authorizer.resource.Properties).toMatchObject({
      AuthorizerType: 'REQUEST',
      EnableSimpleResponses: true,
      IdentitySource: ['$request.header.x-origin-verify'],
      AuthorizerResultTtlInSeconds: 300,
    });
    const verifier = built.stateless.functions[originAuthorizerJob.name]!;
    expect(JSON.stringify(authorizer.resource.Properties.AuthorizerUri)).toContain(aliasLogicalId(verifier));
    expect(functionProperties(built.templates, verifier).Environment.Variables.ORIGIN_VERIFY_SECRET).toEqual(header.HeaderValue);

    // Every route, $default included, goes through it
    const allRoutes = built.templates.find('AWS::ApiGatewayV2::Route');
    expect(allRoutes).toHaveLength(fixtureEntries.routes.length + 1);
    for (const { resource, template } of allRoutes) {
      expect(resource.Properties.AuthorizationType, resource.Properties.RouteKey).toBe('CUSTOM');
      // In the parent a Ref to the authorizer; in a nested stack a parameter the parent fills with that Ref
      const authorizerRef = resource.Properties.AuthorizerId.Ref as string;
      if (template === built.parent) {
        expect(authorizerRef).toBe(authorizer.logicalId);
      } else {
        const nestedResource = Object.values(built.parent.findResources('AWS::CloudFormation::Stack')).find(
          (nested) => nested.Properties.Parameters?.[authorizerRef],
        );
        expect(nestedResource?.Properties.Parameters[authorizerRef], resource.Properties.RouteKey).toEqual({ Ref: authorizer.logicalId });
      }
    }
  });

  it('takes the client’s address from CloudFront’s viewer header, and builds links and probes through the distribution', () => {
    const distributionId = logicalIdOf(built.stateless.distribution!);
    const variables = functionProperties(built.templates, built.stateless.functions.unmatchedFixture!).Environment.Variables;
    expect(variables.CLIENT_ADDRESS_HEADER).toBe('cloudfront-viewer-address');
    expect(variables.PUBLIC_BASE_URL).toEqual({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] });
    const probe = functionProperties(built.templates, built.stateless.probe).Environment.Variables;
    expect(probe.PROBE_URL).toEqual(variables.PUBLIC_BASE_URL);
  });

  it('uses the origin secret an operator gives instead of creating one', () => {
    const secretArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:service/origin-AbCdEf';
    const given = build({ ...stageEnv, edge: 'cloudfront', originSecretArn: secretArn });
    try {
      expect(given.stateless.originSecret).toBeUndefined();
      expect(given.parent.findResources('AWS::SecretsManager::Secret')).toEqual({});
      const distribution = Object.values(given.parent.findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig;
      expect(distribution.Origins[0].OriginCustomHeaders[0].HeaderValue).toBe(`{{resolve:secretsmanager:${secretArn}:SecretString:::}}`);
    } finally {
      given.cleanUp();
    }
  });
});

describe('a custom domain', () => {
  it('goes on the distribution with the edge on, with a us-east-1 certificate, alias records, and PUBLIC_BASE_URL', () => {
    const built = build({
      ...stageEnv,
      edge: 'cloudfront',
      domainName: 'api.example.com',
      certificateArn: cloudFrontCertificate,
      hostedZoneId: 'Z0123456789ABCDEFGHIJ',
    });
    try {
      const distribution = Object.values(built.parent.findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig;
      expect(distribution.Aliases).toEqual(['api.example.com']);
      expect(distribution.ViewerCertificate).toEqual({
        AcmCertificateArn: cloudFrontCertificate,
        MinimumProtocolVersion: 'TLSv1.2_2021',
        SslSupportMethod: 'sni-only',
      });
      const distributionId = logicalIdOf(built.stateless.distribution!);
      for (const type of ['A', 'AAAA']) {
        built.parent.hasResourceProperties('AWS::Route53::RecordSet', {
          Name: 'api.example.com.',
          Type: type,
          HostedZoneId: 'Z0123456789ABCDEFGHIJ',
          AliasTarget: Match.objectLike({ DNSName: { 'Fn::GetAtt': [distributionId, 'DomainName'] } }),
        });
      }
      expect(built.templates.count('AWS::ApiGatewayV2::DomainName')).toBe(0);
      const variables = functionProperties(built.templates, built.stateless.functions.listFixtures!).Environment.Variables;
      expect(variables.PUBLIC_BASE_URL).toBe('https://api.example.com');
    } finally {
      built.cleanUp();
    }
  });

  it('goes on API Gateway (a regional domain mapped to the stage) without the edge, and -c publicBaseUrl wins over it', () => {
    const built = build({
      ...stageEnv,
      domainName: 'api.example.com',
      certificateArn: regionalCertificate,
      hostedZoneId: 'Z0123456789ABCDEFGHIJ',
      publicBaseUrl: 'https://pay.example.com',
    });
    try {
      built.parent.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
        DomainName: 'api.example.com',
        DomainNameConfigurations: [Match.objectLike({ CertificateArn: regionalCertificate, EndpointType: 'REGIONAL' })],
      });
      built.parent.hasResourceProperties('AWS::ApiGatewayV2::ApiMapping', {
        ApiId: { Ref: logicalIdOf(built.stateless.api) },
        Stage: '$default',
      });
      built.parent.hasResourceProperties('AWS::Route53::RecordSet', { Name: 'api.example.com.', Type: 'A' });
      expect(built.templates.count('AWS::CloudFront::Distribution')).toBe(0);
      const variables = functionProperties(built.templates, built.stateless.functions.listFixtures!).Environment.Variables;
      expect(variables.PUBLIC_BASE_URL).toBe('https://pay.example.com');
    } finally {
      built.cleanUp();
    }
  });

  it('refuses settings CloudFront or API Gateway cannot honour, naming the key', () => {
    const refused = (context: Record<string, unknown>, message: RegExp) => {
      const { app, cleanUp } = serviceApp({ ...withoutBundling, ...context });
      try {
        expect(() => buildService(app, fixtureEntries), JSON.stringify(context)).toThrow(message);
      } finally {
        cleanUp();
      }
    };
    refused({ ...stageEnv, edge: 'cloudfront', domainName: 'api.example.com', certificateArn: regionalCertificate }, /certificate in us-east-1/);
    refused({ ...stageEnv, domainName: 'api.example.com', certificateArn: cloudFrontCertificate }, /certificate in eu-west-1/);
    refused({ ...stageEnv, domainName: 'api.example.com' }, /domainName and certificateArn go together/);
    refused({ edge: 'cloudfront' }, /explicit account and region/);
    refused({ edge: 'fastly' }, /edge is not valid/);
    refused({ ...stageEnv, domainName: 'Not A Domain', certificateArn: regionalCertificate }, /domainName is not valid/);
    refused({ ...stageEnv, publicBaseUrl: 'ftp://x' }, /publicBaseUrl is not valid/);
    refused({ ...stageEnv, originSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:x-AbCdEf' }, /edge=cloudfront only/);
    refused({ ...stageEnv, edge: 'cloudfront', wafRateLimit: '5' }, /wafRateLimit is not valid/);
  });
});

describe('per-route throttles on the stage', () => {
  let built: Built;
  beforeAll(() => {
    built = build({ routeThrottleReads: '3000/1500' }, { ...fixtureEntries, routes });
  });
  afterAll(() => built?.cleanUp());

  it('throttles every route by its class, from docs/capacity.md, each below the account’s 10,000 requests a second', () => {
    const settings = Object.values(built.parent.findResources('AWS::ApiGatewayV2::Stage'))[0]!.Properties.RouteSettings as Record<
      string,
      { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }
    >;
    expect(Object.keys(settings).sort()).toEqual(routes.map((route) => `${route.method} ${route.path}`).sort());
    for (const route of routes) {
      const throttleClass = routeThrottleClass(route);
      const expected = throttleClass === 'reads' ? { rate: 3000, burst: 1500 } : defaultRouteThrottles[throttleClass];
      expect(settings[`${route.method} ${route.path}`], route.name).toEqual({ ThrottlingRateLimit: expected.rate, ThrottlingBurstLimit: expected.burst });
      expect(expected.rate, route.name).toBeLessThan(10_000);
    }
    // Meter events high, writes moderate, reads higher than writes, hosted pages and the keyless document low
    expect(settings['POST /v1/billing/meter_events']!.ThrottlingRateLimit).toBe(defaultRouteThrottles.meterEvents.rate);
    expect(settings['POST /v2/billing/meter_events']!.ThrottlingRateLimit).toBe(defaultRouteThrottles.meterEvents.rate);
    expect(settings['POST /v1/customers']!.ThrottlingRateLimit).toBe(defaultRouteThrottles.writes.rate);
    expect(settings['GET /hosted/account_links/{secret}']!.ThrottlingRateLimit).toBe(defaultRouteThrottles.hostedPages.rate);
    expect(settings['GET /openapi.json']).toEqual({ ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 });
    expect(defaultRouteThrottles.meterEvents.rate).toBeGreaterThan(defaultRouteThrottles.reads.rate);
    expect(defaultRouteThrottles.reads.rate).toBeGreaterThan(defaultRouteThrottles.writes.rate);
    expect(defaultRouteThrottles.writes.rate).toBeGreaterThan(defaultRouteThrottles.hostedPages.rate);
  });

  it('caps a class at the stage’s own throttle, and refuses a malformed one naming the key', () => {
    const capped = build({ apiThrottleRate: '250', apiThrottleBurst: '100' });
    try {
      const settings = Object.values(capped.parent.findResources('AWS::ApiGatewayV2::Stage'))[0]!.Properties.RouteSettings;
      expect(settings['POST /v1/fixtures']).toEqual({ ThrottlingRateLimit: 250, ThrottlingBurstLimit: 100 });
    } finally {
      capped.cleanUp();
    }
    const { app, cleanUp } = serviceApp({ ...withoutBundling, routeThrottleWrites: 'fast' });
    try {
      expect(() => buildService(app, fixtureEntries)).toThrow(/routeThrottleWrites is not valid/);
    } finally {
      cleanUp();
    }
  });
});

describe('the origin authorizer', () => {
  afterAll(() => {
    delete process.env.ORIGIN_VERIFY_SECRET;
  });

  it('lets through only the exact secret, and nothing when no secret is configured', async () => {
    // Given the authorizer loaded without a secret: nothing passes, not even an empty header
    vi.resetModules();
    delete process.env.ORIGIN_VERIFY_SECRET;
    const unconfigured = (await import('#functions/authorizers/origin-verify.ts')).handler;
    expect(await unconfigured({ headers: { 'x-origin-verify': '' } })).toEqual({ isAuthorized: false });

    // Given the authorizer loaded with a secret in its environment, as the stack sets it
    vi.resetModules();
    process.env.ORIGIN_VERIFY_SECRET = 's3cr3t-value-from-secrets-manager';
    const { handler } = await import('#functions/authorizers/origin-verify.ts');

    // Then the same value passes, and a different, shorter, longer or missing one does not
    expect(await handler({ headers: { 'x-origin-verify': 's3cr3t-value-from-secrets-manager' } })).toEqual({ isAuthorized: true });
    for (const value of ['s3cr3t-value-from-secrets-managex', 's3cr3t', 's3cr3t-value-from-secrets-manager!', '', undefined]) {
      expect(await handler({ headers: { 'x-origin-verify': value } }), String(value)).toEqual({ isAuthorized: false });
    }
    expect(await handler({})).toEqual({ isAuthorized: false });
  });
});
