import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';

export interface EdgeStackProps extends StackProps {
  /** Requests one source IP may make in a minute (infra/edge-settings.ts). */
  wafRateLimit: number;
}

/** AWS managed rule groups of the web ACL, in evaluation order after the rate rule. */
export const managedRuleGroups = ['AWSManagedRulesAmazonIpReputationList', 'AWSManagedRulesKnownBadInputsRuleSet', 'AWSManagedRulesCommonRuleSet'] as const;

/**
 * The WAF web ACL of the CloudFront distribution (`-c edge=cloudfront`). WAF takes a CLOUDFRONT-scoped web
 * ACL only in us-east-1, so it has this stack of its own there; the stateless stack, in the service's
 * region, reads its ARN through CDK's cross-region references (an SSM parameter written in the service's
 * region by a custom resource of this stack), which also keeps CloudFormation from deleting an ACL in use.
 *
 * Rules, cheapest refusal first: a rate-based rule per source IP, Amazon's IP reputation list, known bad
 * inputs (Log4j, exploit paths), and the common rule set, whose 8 KB body size rule only counts: meter event
 * streams and form bodies are legitimately larger, and the API refuses oversized bodies itself.
 */
export class EdgeStack extends Stack {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    super(scope, id, props);
    const visibility = (metricName: string) => ({ cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      description: 'Service API edge: rate limit per source IP and AWS managed rule groups',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('ServiceApiEdge'),
      rules: [
        {
          name: 'RatePerSourceIp',
          priority: 0,
          action: { block: {} },
          statement: { rateBasedStatement: { aggregateKeyType: 'IP', limit: props.wafRateLimit, evaluationWindowSec: 60 } },
          visibilityConfig: visibility('RatePerSourceIp'),
        },
        ...managedRuleGroups.map((name, index) => ({
          name,
          priority: index + 1,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name,
              ...(name === 'AWSManagedRulesCommonRuleSet' ? { ruleActionOverrides: [{ name: 'SizeRestrictions_BODY', actionToUse: { count: {} } }] } : {}),
            },
          },
          visibilityConfig: visibility(name),
        })),
      ],
    });
    new CfnOutput(this, 'WebAclArn', { value: this.webAcl.attrArn, description: 'The web ACL of the CloudFront distribution' });
  }
}
