import { Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import * as z from 'zod';

/**
 * Deployment settings of the functions that are not in the code: event delivery and the per-key request
 * limits. Each is a stack prop and, when the prop is not given, the context value of the same name
 * (`-c cloudtwoEventGridEndpoint=https://…` or the `context` of cdk.json). Unset or empty, the variable is
 * left out and `shared/core/config.ts` applies its own default (no Event Grid destinations; the built-in retry
 * schedules; 100 requests a second per key, 1,000 meter events a second per platform and mode).
 */
export interface FunctionSettings {
  /**
   * Base URL of the cloudtwo Event Grid partner topics, an http(s) URL; becomes
   * `CLOUDTWO_EVENT_GRID_ENDPOINT`.
   * @default - the context value `cloudtwoEventGridEndpoint`, else unset
   */
  cloudtwoEventGridEndpoint?: string;
  /**
   * Seconds before each retry of a failed test-mode delivery, comma-separated (`60,1800,7200`); becomes
   * `DELIVERY_RETRY_SCHEDULE_TEST`.
   * @default - the context value `deliveryRetryScheduleTest`, else unset
   */
  deliveryRetryScheduleTest?: string;
  /**
   * The same for live mode; becomes `DELIVERY_RETRY_SCHEDULE_LIVE`.
   * @default - the context value `deliveryRetryScheduleLive`, else unset
   */
  deliveryRetryScheduleLive?: string;
  /**
   * Whether test-mode webhooks may target private, loopback and link-local addresses (`true` or `false`);
   * becomes `WEBHOOK_ALLOW_PRIVATE_TARGETS`. Live-mode webhooks never may.
   * @default - the context value `webhookAllowPrivateTargets`, else `false`
   */
  webhookAllowPrivateTargets?: string;
  /**
   * Requests a second one live-mode API key may make (0: unlimited); becomes `RATE_LIMIT_PER_KEY_LIVE`.
   * @default - the context value `rateLimitPerKeyLive`, else 100
   */
  rateLimitPerKeyLive?: string;
  /** The same for test-mode keys; becomes `RATE_LIMIT_PER_KEY_TEST`. @default - context `rateLimitPerKeyTest`, else 100 */
  rateLimitPerKeyTest?: string;
  /** Live meter events a second per platform; becomes `RATE_LIMIT_METER_EVENTS_LIVE`. @default - context, else 1,000 */
  rateLimitMeterEventsLive?: string;
  /** Test meter events a second per platform; becomes `RATE_LIMIT_METER_EVENTS_TEST`. @default - context, else 1,000 */
  rateLimitMeterEventsTest?: string;
  /** Meter event stream events a second per platform and mode; becomes `RATE_LIMIT_METER_EVENT_STREAM`. @default - context, else 10,000 */
  rateLimitMeterEventStream?: string;
  /** Live search requests a second per account; becomes `RATE_LIMIT_SEARCH_LIVE`. @default - context, else 20 */
  rateLimitSearchLive?: string;
  /** Test search requests a second per account; becomes `RATE_LIMIT_SEARCH_TEST`. @default - context, else 20 */
  rateLimitSearchTest?: string;
  /** Failed authentications a second per source address; becomes `RATE_LIMIT_AUTH_FAILURES`. @default - context, else 20 */
  rateLimitAuthFailures?: string;
}

const wholeNumber = { schema: z.string().regex(/^\d{1,9}$/), expected: 'a whole number' };

/** Each setting with the variable it becomes and the check it must pass, the same that `shared/core/config.ts` makes. */
const settings: Record<keyof FunctionSettings, { variable: string; schema: z.ZodType<string>; expected: string }> = {
  cloudtwoEventGridEndpoint: {
    variable: 'CLOUDTWO_EVENT_GRID_ENDPOINT',
    schema: z.url({ protocol: /^https?$/ }),
    expected: 'an http or https URL',
  },
  deliveryRetryScheduleTest: {
    variable: 'DELIVERY_RETRY_SCHEDULE_TEST',
    schema: z.string().regex(/^\d+(,\d+)*$/),
    expected: 'comma-separated whole seconds such as 60,1800,7200',
  },
  deliveryRetryScheduleLive: {
    variable: 'DELIVERY_RETRY_SCHEDULE_LIVE',
    schema: z.string().regex(/^\d+(,\d+)*$/),
    expected: 'comma-separated whole seconds such as 60,300,1800',
  },
  webhookAllowPrivateTargets: {
    variable: 'WEBHOOK_ALLOW_PRIVATE_TARGETS',
    schema: z.enum(['true', 'false']),
    expected: 'true or false',
  },
  rateLimitPerKeyLive: { variable: 'RATE_LIMIT_PER_KEY_LIVE', ...wholeNumber },
  rateLimitPerKeyTest: { variable: 'RATE_LIMIT_PER_KEY_TEST', ...wholeNumber },
  rateLimitMeterEventsLive: { variable: 'RATE_LIMIT_METER_EVENTS_LIVE', ...wholeNumber },
  rateLimitMeterEventsTest: { variable: 'RATE_LIMIT_METER_EVENTS_TEST', ...wholeNumber },
  rateLimitMeterEventStream: { variable: 'RATE_LIMIT_METER_EVENT_STREAM', ...wholeNumber },
  rateLimitSearchLive: { variable: 'RATE_LIMIT_SEARCH_LIVE', ...wholeNumber },
  rateLimitSearchTest: { variable: 'RATE_LIMIT_SEARCH_TEST', ...wholeNumber },
  rateLimitAuthFailures: { variable: 'RATE_LIMIT_AUTH_FAILURES', ...wholeNumber },
};

/**
 * The variables the given settings (or the context of `scope`) set on every function. Throws at synth on
 * a malformed value, which would otherwise fail every function at its first cold start.
 */
export function functionEnvironment(scope: Construct, props: FunctionSettings): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [key, { variable, schema, expected }] of Object.entries(settings)) {
    const given: unknown = props[key as keyof FunctionSettings] ?? scope.node.tryGetContext(key);
    // `-c key=` on the command line gives an empty string: treat it as not set.
    if (given === undefined || given === '') {
      continue;
    }
    // A single number in cdk.json is a one-step schedule; the command line always gives strings.
    const value = typeof given === 'number' ? String(given) : given;
    if (typeof value === 'string' && Token.isUnresolved(value)) {
      environment[variable] = value;
      continue;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      throw new Error(`${key} must be ${expected}, got ${JSON.stringify(given)}`);
    }
    environment[variable] = parsed.data;
  }
  // Deployed, webhooks stay off private addresses unless the operator says otherwise (the local stack allows them).
  environment.WEBHOOK_ALLOW_PRIVATE_TARGETS ??= 'false';
  return environment;
}
