import { describe, expect, it } from 'vitest';
import { IdempotencyError, IdempotencyKeyReusedError, InvalidRequestError, MethodNotAllowedError, NotFoundError, RateLimitError } from '#shared/core/errors.ts';
import { errorResponse } from '#shared/http/error-mapping.ts';

describe('error bodies', () => {
  it('renders v1 errors with type, code, message and param', () => {
    const response = errorResponse(new InvalidRequestError('Missing required param: url.', 'parameter_missing', 'url'), 'v1', 'req_1');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: { type: 'invalid_request_error', code: 'parameter_missing', message: 'Missing required param: url.', param: 'url' },
    });
  });

  it('renders v2 errors with type, code and message only', () => {
    const response = errorResponse(new NotFoundError('event destination', 'ed_1'), 'v2', 'req_1');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { type: 'invalid_request_error', code: 'not_found', message: "No such event destination: 'ed_1'" } });
  });

  it('uses resource_missing for a missing v1 object', () => {
    expect(errorResponse(new NotFoundError('webhook endpoint', 'we_1'), 'v1', 'r').body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
  });

  it('maps idempotency conflicts to 409 (a reused key with other parameters to 400 on v1), rate limits to 429 and wrong methods to 405 with Allow', () => {
    expect(errorResponse(new IdempotencyKeyReusedError('x', 'idempotency_key_reused'), 'v2', 'r')).toMatchObject({
      status: 409,
      body: { error: { type: 'idempotency_error', code: 'idempotency_error' } },
    });
    expect(errorResponse(new IdempotencyKeyReusedError('x', 'idempotency_key_reused'), 'v1', 'r')).toMatchObject({
      status: 400,
      body: { error: { type: 'idempotency_error', code: 'idempotency_key_reused' } },
    });
    expect(errorResponse(new IdempotencyError('x', 'idempotency_key_in_use'), 'v1', 'r')).toMatchObject({ status: 409 });
    expect(errorResponse(new RateLimitError('x', 'lock_timeout'), 'v1', 'r')).toMatchObject({ status: 429, body: { error: { type: 'rate_limit_error' } } });
    expect(errorResponse(new MethodNotAllowedError('PUT', '/v1/x', ['GET']), 'v1', 'r')).toMatchObject({ status: 405, headers: { Allow: 'GET' } });
  });

  it('hides internals of unexpected errors behind a generic 500', () => {
    const response = errorResponse(new Error('connect ECONNREFUSED 10.0.0.1:8000 secret-table'), 'v1', 'req_9');
    expect(response.status).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain('ECONNREFUSED');
    expect(response.body.error).toMatchObject({ type: 'api_error', param: null });
  });
});
