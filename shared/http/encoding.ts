import qs from 'qs';
import { InvalidRequestError, RequestTooLargeError, UnsupportedMediaTypeError } from '#shared/core/errors.ts';
import type { ApiGeneration } from './error-mapping.ts';

export type RawParams = Record<string, unknown>;

/** Bracket notation (`a[b][c]=v`, `items[0][price]=p`) with limits that refuse absurd input instead of guessing. */
const bracketOptions = {
  depth: 6,
  strictDepth: true,
  parameterLimit: 1000,
  arrayLimit: 250,
  throwOnLimitExceeded: true,
  allowPrototypes: false,
  plainObjects: true,
  duplicates: 'combine',
} as const;

const maxJsonDepth = 20;

/** Parses a form body or query string in bracket notation with `qs`; over-deep or oversized input is a 400. */
export function parseBracketParams(text: string, where: 'body' | 'query'): RawParams {
  if (text === '') return {};
  try {
    return qs.parse(text, bracketOptions) as RawParams;
  } catch (error) {
    const reason = error instanceof RangeError || error instanceof Error ? error.message : String(error);
    throw new InvalidRequestError(
      `The request ${where} could not be parsed: ${reason} (at most ${bracketOptions.depth} levels of nesting, ` +
        `${bracketOptions.parameterLimit} parameters and ${bracketOptions.arrayLimit} array items).`,
      where === 'body' ? 'invalid_form_body' : 'invalid_query_string',
    );
  }
}

function depthOf(value: unknown, level = 0): number {
  if (level > maxJsonDepth) return level;
  if (value === null || typeof value !== 'object') return level;
  let deepest = level + 1;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child, level + 1));
  return deepest;
}

/** The first array longer than form bodies may send (qs's `arrayLimit`), as a parameter path. */
function oversizedArray(value: unknown, path: string[] = []): string[] | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value) && value.length > bracketOptions.arrayLimit) return path;
  for (const [key, child] of Object.entries(value)) {
    const found = oversizedArray(child, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/** Parses a v2 JSON body, which must be an object of bounded nesting. */
export function parseJsonBody(text: string): RawParams {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidRequestError(`The request body is not valid JSON: ${(error as Error).message}.`, 'invalid_json');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidRequestError('The request body must be a JSON object.', 'invalid_json');
  }
  if (depthOf(value) > maxJsonDepth) {
    throw new InvalidRequestError(`The request body is nested more than ${maxJsonDepth} levels deep.`, 'invalid_json');
  }
  const array = oversizedArray(value);
  if (array) {
    const param = array.join('.');
    throw new InvalidRequestError(`Invalid ${param}: an array can have at most ${bracketOptions.arrayLimit} items.`, 'parameter_invalid', param);
  }
  return value as RawParams;
}

export interface RawRequest {
  api: ApiGeneration;
  method: string;
  contentType: string | undefined;
  query: string;
  body: string | undefined;
  isBase64Encoded: boolean;
  maxBodyBytes: number;
}

/**
 * Turns the query string and body into one parameter object. v1 takes form bodies; v2 takes JSON bodies;
 * GET and DELETE carry their parameters in the query string in both. A GET whose content type is JSON but
 * that has no body is normal: the official SDK sends the header on every request.
 */
export function decodeParams(request: RawRequest): RawParams {
  const body = request.body === undefined ? '' : request.isBase64Encoded ? Buffer.from(request.body, 'base64').toString('utf8') : request.body;
  if (Buffer.byteLength(body, 'utf8') > request.maxBodyBytes) throw new RequestTooLargeError(request.maxBodyBytes);
  const query = parseBracketParams(request.query, 'query');
  if (request.method !== 'POST' || body === '') return query;

  const mediaType = request.contentType?.split(';')[0]?.trim().toLowerCase();
  if (request.api === 'v1') {
    if (mediaType !== 'application/x-www-form-urlencoded') {
      throw new UnsupportedMediaTypeError(
        `v1 requests take form-encoded bodies (Content-Type: application/x-www-form-urlencoded), not '${mediaType ?? 'none'}'.`,
        'unsupported_media_type',
      );
    }
    return { ...query, ...parseBracketParams(body, 'body') };
  }
  if (mediaType !== 'application/json') {
    throw new UnsupportedMediaTypeError(
      `v2 requests take JSON bodies (Content-Type: application/json), not '${mediaType ?? 'none'}'.`,
      'unsupported_media_type',
    );
  }
  if (Object.keys(query).length > 0) {
    throw new InvalidRequestError('v2 POST requests take their parameters in the JSON body, not the query string.', 'parameter_unknown', Object.keys(query)[0]);
  }
  return parseJsonBody(body);
}
