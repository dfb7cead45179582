import { z } from 'zod';

const optionalUrl = z.url().optional();

const schema = z.object({
  TABLE_NAME: z.string().min(1),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  /** Set by the local stack: DynamoDB Local, the SQS emulator and the local EventBridge receiver. */
  DYNAMODB_ENDPOINT: optionalUrl,
  SQS_ENDPOINT: optionalUrl,
  EVENTBRIDGE_ENDPOINT: optionalUrl,
  EVENT_BUS_NAME: z.string().min(1).optional(),
  DELIVERIES_QUEUE_URL: optionalUrl,
  METER_EVENTS_QUEUE_URL: optionalUrl,
  /** Most v1 webhook endpoints one account may have per mode (the reference API allows 16). */
  MAX_WEBHOOK_ENDPOINTS: z.coerce.number().int().positive().default(16),
  /** Largest request body accepted; larger ones get 413. */
  MAX_BODY_BYTES: z.coerce.number().int().positive().default(1024 * 1024),
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
