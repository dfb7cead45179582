import { Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import * as z from 'zod';

/**
 * How the API meets its clients, from context (`-c edge=cloudfront -c domainName=api.example.com …`): the
 * edge, the domain, the public URL, and which routes a deploy leaves detached while they move between stacks.
 * Checked at synth: a malformed value stops `cdk synth` naming the key.
 */
export interface EdgeSettings {
  /** `cloudfront`: a CloudFront distribution with a WAF web ACL in front of the API, the only way in. */
  edge?: 'cloudfront';
  /** A custom domain: on the distribution when the edge is on, else on API Gateway (regional). */
  domainName?: string;
  /** The ACM certificate of `domainName`: in us-east-1 for CloudFront, in the stack's region for API Gateway. */
  certificateArn?: string;
  /** A Route 53 hosted zone of `domainName`: an alias record (A and AAAA) to the distribution or the regional domain. */
  hostedZoneId?: string;
  /** `PUBLIC_BASE_URL` of the functions (hosted links); defaults to `https://<domainName>`, else the distribution's. */
  publicBaseUrl?: string;
  /** An existing Secrets Manager secret (its ARN) CloudFront sends as the origin header; else the stack creates one. */
  originSecretArn?: string;
  /** Requests one source IP may make in a minute before WAF blocks it for a while. */
  wafRateLimit: number;
  /** Which route groups (nested stack ids, or `all`) are deployed without their API Gateway routes: one step of a move. */
  detachRoutes: string[];
}

/**
 * WAF's rate-based rule, per source IP and minute: the most one client may send by the service's own limits
 * (1,000 meter events a second per platform, docs/capacity.md) for a minute. Beyond it the functions would
 * answer 429 anyway; WAF refuses it at the edge, before API Gateway, Lambda or DynamoDB are paid for.
 */
export const defaultWafRateLimit = 60_000;

const hostName = z.string().regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'a lowercase DNS name such as api.example.com');

const schema = z.object({
  edge: z.literal('cloudfront').optional(),
  domainName: hostName.optional(),
  certificateArn: z
    .string()
    .regex(/^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[\w-]+$/, 'an ACM certificate ARN')
    .optional(),
  hostedZoneId: z
    .string()
    .regex(/^Z[A-Z0-9]{1,31}$/, 'a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ')
    .optional(),
  publicBaseUrl: z.url({ protocol: /^https?$/ }).optional(),
  originSecretArn: z
    .string()
    .regex(/^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+$/, 'a Secrets Manager secret ARN')
    .optional(),
  wafRateLimit: z.coerce.number().int().min(10).max(2_000_000_000).default(defaultWafRateLimit),
  detachRoutes: z
    .string()
    .regex(/^[A-Za-z0-9]+(,[A-Za-z0-9]+)*$/, 'comma-separated route group ids, or all')
    .transform((value) => value.split(','))
    .default([]),
});

/** The edge settings of the context of `scope`, with their defaults; throws on a malformed or inconsistent one. */
export function edgeSettings(scope: Construct, region: string): EdgeSettings {
  const given = Object.fromEntries(
    Object.keys(schema.shape).map((key) => {
      const value: unknown = scope.node.tryGetContext(key);
      return [key, value === '' ? undefined : value];
    }),
  );
  const parsed = schema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0]);
    throw new Error(`${key} is not valid (${issue.message}), got ${JSON.stringify(given[key])}`);
  }
  const settings = parsed.data;
  if (Boolean(settings.domainName) !== Boolean(settings.certificateArn)) {
    throw new Error('domainName and certificateArn go together: a custom domain needs the ACM certificate that covers it');
  }
  if (settings.hostedZoneId && !settings.domainName) throw new Error('hostedZoneId needs domainName: the alias record is for the custom domain');
  if (settings.certificateArn) {
    // CloudFront takes certificates from us-east-1 only; a regional API Gateway domain, from its own region.
    const certificateRegion = settings.certificateArn.split(':')[3];
    const needed = settings.edge === 'cloudfront' ? 'us-east-1' : region;
    if (!Token.isUnresolved(needed) && certificateRegion !== needed) {
      throw new Error(
        `certificateArn must be a certificate in ${needed} (${settings.edge ? 'CloudFront' : "API Gateway's regional domain"} takes no other), got one in ${certificateRegion}`,
      );
    }
  }
  if (settings.originSecretArn && !settings.edge) throw new Error('originSecretArn is for -c edge=cloudfront only');
  return settings;
}
