import * as z from 'zod';

const optionalUrl = z.url().optional();

const secondsList = z
  .string()
  .regex(/^\d+(,\d+)*$/, 'a comma-separated list of whole seconds')
  .transform((text) => text.split(',').map(Number));

const schema = z.object({
  TABLE_NAME: z.string().min(1),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  /** Set by the local stack: DynamoDB Local, the SQS emulator and the local EventBridge receiver. */
  DYNAMODB_ENDPOINT: optionalUrl,
  SQS_ENDPOINT: optionalUrl,
  EVENTBRIDGE_ENDPOINT: optionalUrl,
  EVENT_BUS_NAME: z.string().min(1).optional(),
  /**
   * The KMS key (ARN) that seals webhook signing secrets (shared/secrets/): set on every function by the
   * stack; only the functions granted `secrets:seal` or `secrets:open` may use it. Locally the stack's own key.
   */
  SECRETS_KEY_ID: z.string().min(1).optional(),
  DELIVERIES_QUEUE_URL: optionalUrl,
  METER_EVENTS_QUEUE_URL: optionalUrl,
  BILLING_QUEUE_URL: optionalUrl,
  /** Most v1 webhook endpoints one account may have per mode (the reference API allows 16). */
  MAX_WEBHOOK_ENDPOINTS: z.coerce.number().int().positive().default(16),
  /** Largest request body accepted; larger ones get 413. */
  MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /** Most v2 event destinations one account may have per mode. */
  MAX_EVENT_DESTINATIONS: z.coerce.number().int().positive().default(16),
  /** Seconds before each retry of a failed delivery, comma-separated: test mode (3 retries over a few hours). */
  DELIVERY_RETRY_SCHEDULE_TEST: secondsList.default([60, 1800, 7200]),
  /** …and live mode (retries for up to about 3 days). */
  DELIVERY_RETRY_SCHEDULE_LIVE: secondsList.default([60, 300, 1800, 3600, 7200, 14400, 28800, 43200, 43200, 43200, 43200, 43200, 43200]),
  /**
   * Whether test-mode webhooks may target private, loopback and link-local addresses (a receiver on the
   * developer's machine). Live mode never may. The local stack sets it; the CDK stack sets it to false.
   */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  /** A webhook delivery is successful on a 2xx within this time. */
  DELIVERY_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** The sweeper re-enqueues a pending delivery this long after it was due. */
  SWEEP_GRACE_SECONDS: z.coerce.number().int().nonnegative().default(60),
  /** Errors found while processing meter events are gathered per meter over windows this long, then reported. */
  METER_ERROR_WINDOW_SECONDS: z.coerce.number().int().positive().default(60),
  /** Base URL of the cloudtwo Event Grid partner topics (the local stack runs a receiver). */
  CLOUDTWO_EVENT_GRID_ENDPOINT: optionalUrl,
  /** Partner name in cloudone event source names: `<prefix>/<account>/<destination>`. */
  CLOUDONE_EVENT_SOURCE_PREFIX: z.string().min(1).default('cloudone.partner/service.local'),
  /** Most requests that may change one v2 account at the same time; more get 429 account_rate_limit_exceeded. */
  ACCOUNT_UPDATE_CONCURRENCY: z.coerce.number().int().positive().default(4),
  /** Requests per second one live-mode API key may make (0: no limit). */
  RATE_LIMIT_PER_KEY_LIVE: z.coerce.number().int().nonnegative().default(100),
  /** Requests per second one test-mode API key may make (0: no limit). */
  RATE_LIMIT_PER_KEY_TEST: z.coerce.number().int().nonnegative().default(100),
  /** `POST /v2/billing/meter_events` per second per live-mode platform (the spec's 1,000; 0: no limit). */
  RATE_LIMIT_METER_EVENTS_LIVE: z.coerce.number().int().nonnegative().default(1000),
  /** `POST /v2/billing/meter_events` per second per platform in test mode (0: no limit). */
  RATE_LIMIT_METER_EVENTS_TEST: z.coerce.number().int().nonnegative().default(1000),
  /** `POST /v2/billing/meter_event_stream` requests per second per platform and mode (0: no limit). */
  RATE_LIMIT_METER_EVENT_STREAM: z.coerce.number().int().nonnegative().default(10_000),
  /** Search requests (`GET /v1/<kind>/search`, all kinds together) per second per live-mode account, as the reference allows (0: no limit). */
  RATE_LIMIT_SEARCH_LIVE: z.coerce.number().int().nonnegative().default(20),
  /** The same in test mode (a separate count, as in the reference). */
  RATE_LIMIT_SEARCH_TEST: z.coerce.number().int().nonnegative().default(20),
  /**
   * Requests per second from one source address that may fail authentication (an unknown, expired or
   * missing key or session token, an unknown account link) before that address is refused with 429 for the
   * rest of the second, without a table read (0: no limit).
   */
  RATE_LIMIT_AUTH_FAILURES: z.coerce.number().int().nonnegative().default(20),
  /** How long a process trusts an API key it has read: a revoked or rolled key stops working within this. */
  API_KEY_CACHE_SECONDS: z.coerce.number().int().nonnegative().default(60),
  /** Minutes a token (v1 `POST /v1/tokens`) can be retrieved and used after creation; then it is gone. */
  TOKEN_TTL_MINUTES: z.coerce.number().int().positive().default(10),
  /** Minutes an account link stays usable after creation. */
  ACCOUNT_LINK_TTL_MINUTES: z.coerce.number().int().positive().default(10),
  /** The service's public base URL for links to its own pages (account links); default: the request's scheme and host. */
  PUBLIC_BASE_URL: optionalUrl,
  /**
   * The header a trusted proxy writes the client's address to (shared/http/client-address.ts); set by the
   * stack behind CloudFront only. Default: API Gateway's source address.
   */
  CLIENT_ADDRESS_HEADER: z.literal('cloudfront-viewer-address').optional(),
});

export type Config = z.infer<typeof schema>;

let cached: Config | undefined;

/** Parses the environment once per process (a Lambda cold start); a missing variable fails fast. */
export function config(): Config {
  if (!cached) {
    const parsed = schema.safeParse(process.env);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
      throw new Error(`Invalid configuration: ${problems}`);
    }
    cached = parsed.data;
  }
  return cached;
}
