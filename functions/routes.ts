/**
 * The map of the API. The CDK stateless stack creates one Lambda function and one API Gateway route per
 * entry; the local gateway serves the very same handler modules from this table. Nothing else lists routes.
 *
 * Paths use API Gateway's `{param}` syntax. `handler` is the entry file relative to the repository root
 * and must export `handler`. `permissions` drive the least-privilege grants in the stack.
 */
export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** What a function may touch. `table:write` includes reads. */
export type Permission = 'table:read' | 'table:write' | `queue:${QueueName}:send` | 'bus:put';

export type QueueName = 'deliveries' | 'meter-events';

export interface Route {
  /** Operation name; also the construct id of the function in the stack. */
  name: string;
  method: HttpMethod;
  path: string;
  handler: string;
  permissions: Permission[];
}

/** Every request authenticates (a table read); every POST and DELETE may write an idempotency record. */
const reads: Permission[] = ['table:read'];
const writes: Permission[] = ['table:write'];

export const routes: Route[] = [
  { name: 'createWebhookEndpoint', method: 'POST', path: '/v1/webhook_endpoints', handler: 'functions/http/v1/webhook-endpoints/create.ts', permissions: writes },
  { name: 'listWebhookEndpoints', method: 'GET', path: '/v1/webhook_endpoints', handler: 'functions/http/v1/webhook-endpoints/list.ts', permissions: reads },
  { name: 'retrieveWebhookEndpoint', method: 'GET', path: '/v1/webhook_endpoints/{id}', handler: 'functions/http/v1/webhook-endpoints/retrieve.ts', permissions: reads },
  { name: 'updateWebhookEndpoint', method: 'POST', path: '/v1/webhook_endpoints/{id}', handler: 'functions/http/v1/webhook-endpoints/update.ts', permissions: writes },
  { name: 'deleteWebhookEndpoint', method: 'DELETE', path: '/v1/webhook_endpoints/{id}', handler: 'functions/http/v1/webhook-endpoints/delete.ts', permissions: writes },
];

/** Answers every request no route matches: 405 when the path exists with other methods, else 404. */
export const fallbackRoute = {
  name: 'unmatchedRequest',
  handler: 'functions/http/fallback.ts',
  permissions: [] as Permission[],
};

/** A queue consumer: gets SQS batch events and answers with partial batch failures. */
export interface QueueWorker {
  name: string;
  queue: QueueName;
  handler: string;
  permissions: Permission[];
  /** @default 10 */
  batchSize?: number;
}

export const queueWorkers: QueueWorker[] = [];
