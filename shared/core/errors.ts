/**
 * Domain errors. They know nothing of HTTP: `shared/http/error-mapping.ts` turns each class into a status,
 * type and code for v1 and v2 bodies.
 */
export class ServiceError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** The request cannot be served as given. `param` names the offending field path, if any. */
export class InvalidRequestError extends ServiceError {
  constructor(
    message: string,
    code: string,
    readonly param?: string,
  ) {
    super(message, code);
  }
}

/**
 * A card detail cannot be used (number, expiry, CVC, or a live card in test mode): the v1 402 `card_error`.
 * `param` names the field; `declineCode` is the reference's `decline_code` when the card was declined.
 */
export class CardError extends ServiceError {
  constructor(
    message: string,
    code: string,
    readonly param?: string,
    readonly declineCode?: string,
  ) {
    super(message, code);
  }
}

/** The addressed object does not exist for this caller (also for other owners' and other modes' objects). */
export class NotFoundError extends ServiceError {
  constructor(
    readonly resource: string,
    readonly id: string,
  ) {
    super(`No such ${resource}: '${id}'`, 'resource_missing');
  }
}

export class AuthenticationError extends ServiceError {}

/** The key is valid but may not do this (for instance a publishable key, or a foreign account context). */
export class PermissionError extends ServiceError {}

/** An `Idempotency-Key` was reused with other parameters, or is still in use by a running request. */
export class IdempotencyError extends ServiceError {}

/** Another request holds the key and has not finished (or its create won the key in a race). */
export const idempotencyKeyInUse = (key: string) =>
  new IdempotencyError(
    `There is currently another in-progress request using the Idempotency-Key '${key}'. Retry after it completes.`,
    'idempotency_key_in_use',
  );
/** An idempotency key sent again with other parameters: v1 answers 400 (which the SDK does not retry), v2 409. */
export class IdempotencyKeyReusedError extends IdempotencyError {}

/** Too many requests: `retryAfterSeconds`, when known, is when the client may try again (`Retry-After`). */
export class RateLimitError extends ServiceError {
  constructor(
    message: string,
    code: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message, code);
  }
}

/** Another request holds what this one needs at this moment (for example usage for the same customer and meter). */
export class ConflictError extends ServiceError {}

/** A short-lived credential (a meter event session token) is past its expiry. */
export class SessionExpiredError extends ServiceError {}

export class RequestTooLargeError extends ServiceError {
  constructor(limitBytes: number) {
    super(`The request body is larger than the limit of ${limitBytes} bytes.`, 'request_too_large');
  }
}

export class UnsupportedMediaTypeError extends ServiceError {}

export class MethodNotAllowedError extends ServiceError {
  constructor(
    method: string,
    path: string,
    readonly allowed: string[],
  ) {
    super(`The method ${method} is not allowed on ${path}. Allowed: ${allowed.join(', ')}.`, 'method_not_allowed');
  }
}

export class UnrecognizedUrlError extends ServiceError {
  constructor(method: string, path: string) {
    super(`Unrecognized request URL (${method}: ${path}).`, 'unrecognized_url');
  }
}
