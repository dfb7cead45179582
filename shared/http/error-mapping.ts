import * as z from 'zod';
import {
  AuthenticationError,
  CardError,
  ConflictError,
  IdempotencyError,
  IdempotencyKeyReusedError,
  InvalidRequestError,
  MethodNotAllowedError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  RequestTooLargeError,
  ServiceError,
  SessionExpiredError,
  UnrecognizedUrlError,
  UnsupportedMediaTypeError,
} from '#shared/core/errors.ts';

export type ApiGeneration = 'v1' | 'v2';

const v1ErrorTypes = ['invalid_request_error', 'card_error', 'authentication_error', 'idempotency_error', 'rate_limit_error', 'api_error'] as const;

/** The v1 error body: the SDK picks its error class by status, then `type`. */
export const v1ErrorBody = z
  .object({
    error: z
      .object({
        type: z.enum(v1ErrorTypes).describe('The type of error: `api_error`, `card_error`, `idempotency_error` or `invalid_request_error`.'),
        code: z.string().describe('A short string saying which error it is (`resource_missing`, `parameter_unknown`, …).'),
        message: z.string().describe('A human-readable message with more details about the error.'),
        /** The parameter at fault, in bracket notation (`metadata[key]`); null when none is. */
        param: z.string().nullable().describe('The parameter at fault, in bracket notation (`metadata[key]`); null when none is.'),
        decline_code: z.string().optional().describe('For a declined card, why the issuer declined it.'),
      })
      .describe('What went wrong.'),
  })
  .meta({ id: 'V1ErrorBody' });

/** The v2 error body: no `param`; the SDK picks its error class by `type`. */
export const v2ErrorBody = z
  .object({
    error: z
      .object({
        type: z.string().describe('The type of error.'),
        code: z.string().describe('A short string saying which error it is.'),
        message: z.string().describe('A human-readable message with more details about the error.'),
      })
      .describe('What went wrong.'),
  })
  .meta({ id: 'V2ErrorBody' });

export interface ErrorResponse {
  status: number;
  body: z.input<typeof v1ErrorBody> | z.input<typeof v2ErrorBody>;
  headers: Record<string, string>;
}

interface Mapping {
  status: number;
  /** When v1 answers another status than v2. */
  v1Status?: number;
  v1Type: (typeof v1ErrorTypes)[number];
  v2Type: string;
  /** When v2 answers another `code` than the error's own (the reference's v2 codes differ from v1's). */
  v2Code?: string;
}

/** The one table from error class to HTTP status and error `type`, for v1 and v2 bodies. */
const mappings: Array<[abstract new (...args: never[]) => ServiceError, Mapping]> = [
  [InvalidRequestError, { status: 400, v1Type: 'invalid_request_error', v2Type: 'invalid_request_error' }],
  [CardError, { status: 402, v1Type: 'card_error', v2Type: 'card_error' }],
  [NotFoundError, { status: 404, v1Type: 'invalid_request_error', v2Type: 'invalid_request_error' }],
  [UnrecognizedUrlError, { status: 404, v1Type: 'invalid_request_error', v2Type: 'invalid_request_error' }],
  [AuthenticationError, { status: 401, v1Type: 'authentication_error', v2Type: 'authentication_error' }],
  [PermissionError, { status: 403, v1Type: 'invalid_request_error', v2Type: 'invalid_request_error' }],
  [MethodNotAllowedError, { status: 405, v1Type: 'invalid_request_error', v2Type: 'invalid_request_error' }],
  // v1 answers 400 `idempotency_error` (the SDK's IdempotencyError, not retried); v2 answers 409 with type and code `idempotency_error`.
  [IdempotencyKeyReusedError, { status: 409, v1Status: 400, v1Type: 'idempotency_error', v2Type: 'idempotency_error', v2Code: 'idempotency_error' }],
  [IdempotencyError, { status: 409, v1Type: 'idempotency_error', v2Type: 'idempotency_error' }],
  [ConflictError, { status: 409, v1Type: 'invalid_request_error', v2Type: 'invalid_request_error' }],
  [SessionExpiredError, { status: 401, v1Type: 'authentication_error', v2Type: 'temporary_session_expired' }],
  [RequestTooLargeError, { status: 413, v1Type: 'invalid_request_error', v2Type: 'invalid_request_error' }],
  [UnsupportedMediaTypeError, { status: 415, v1Type: 'invalid_request_error', v2Type: 'invalid_request_error' }],
  [RateLimitError, { status: 429, v1Type: 'rate_limit_error', v2Type: 'rate_limit' }],
];

/**
 * Renders any thrown value as the documented error body: v1 `{error: {type, code, message, param}}`,
 * v2 `{error: {type, code, message}}`. Anything that is not a ServiceError is a 500 that reveals nothing.
 */
export function errorResponse(error: unknown, api: ApiGeneration, requestId: string): ErrorResponse {
  const mapping = error instanceof ServiceError ? mappings.find(([type]) => error instanceof type)?.[1] : undefined;
  if (!mapping || !(error instanceof ServiceError)) {
    const message = `An unexpected error occurred while processing the request. Quote request id ${requestId} when reporting it.`;
    const body =
      api === 'v1' ? { type: 'api_error' as const, code: 'internal_error', message, param: null } : { type: 'api_error', code: 'internal_error', message };
    return { status: 500, body: { error: body }, headers: {} };
  }
  const code = api === 'v2' ? (error instanceof NotFoundError ? 'not_found' : (mapping.v2Code ?? error.code)) : error.code;
  const param = error instanceof InvalidRequestError || error instanceof CardError ? (error.param ?? null) : error instanceof NotFoundError ? 'id' : null;
  const declined = error instanceof CardError && error.declineCode ? { decline_code: error.declineCode } : {};
  const body =
    api === 'v1' ? { type: mapping.v1Type, code, message: error.message, param, ...declined } : { type: mapping.v2Type, code, message: error.message };
  const headers: Record<string, string> = error instanceof MethodNotAllowedError ? { Allow: error.allowed.join(', ') } : {};
  if (error instanceof RateLimitError && error.retryAfterSeconds !== undefined) {
    // The official SDK retries a 429 only when told to, under the reference API's header name.
    Object.assign(headers, { 'Retry-After': String(error.retryAfterSeconds), 'Service-Should-Retry': 'true', 'Stripe-Should-Retry': 'true' });
  }
  if (error instanceof IdempotencyKeyReusedError) {
    // The SDK retries every 409 unless told not to; the same key with other parameters conflicts forever.
    Object.assign(headers, { 'Service-Should-Retry': 'false', 'Stripe-Should-Retry': 'false' });
  }
  return { status: api === 'v1' ? (mapping.v1Status ?? mapping.status) : mapping.status, body: { error: body }, headers };
}
