import type * as z from 'zod';
import { InvalidRequestError } from '#shared/core/errors.ts';
import type { ApiGeneration } from './error-mapping.ts';
import type { RawParams } from './encoding.ts';

type PathSegment = PropertyKey;

/** `metadata[key]`, `items[0][price]` for v1 (as the client wrote it); `webhook_endpoint.url` for v2. */
export function paramName(path: readonly PathSegment[], api: ApiGeneration): string {
  const parts = path.map(String);
  if (api === 'v2') return parts.join('.');
  return parts.map((part, index) => (index === 0 ? part : `[${part}]`)).join('');
}

function valueAt(input: unknown, path: readonly PathSegment[]): unknown {
  let value: unknown = input;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

function toInvalidRequest(issue: z.core.$ZodIssue, input: unknown, api: ApiGeneration): InvalidRequestError {
  if (issue.code === 'unrecognized_keys') {
    const param = paramName([...issue.path, issue.keys[0]!], api);
    return new InvalidRequestError(`Received unknown parameter: ${param}`, 'parameter_unknown', param);
  }
  const param = paramName(issue.path, api);
  if (issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined) {
    return new InvalidRequestError(`Missing required param: ${param}.`, 'parameter_missing', param);
  }
  const where = param === '' ? 'the request' : param;
  return new InvalidRequestError(`Invalid ${where}: ${issue.message}`, 'parameter_invalid', param || undefined);
}

/** Validates raw parameters against a strict schema; the first problem becomes a 400 naming its field. */
export function validateParams<S extends z.ZodType>(schema: S, input: RawParams, api: ApiGeneration): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  // A union reports its own issue; the branch that got furthest names the real problem.
  if (issue.code === 'invalid_union' && issue.errors.length > 0) {
    const deepest = issue.errors
      .flat()
      .sort((a, b) => b.path.length - a.path.length || Number(a.code === 'invalid_type') - Number(b.code === 'invalid_type'))[0];
    if (deepest) return rethrow({ ...deepest, path: [...issue.path, ...deepest.path] } as z.core.$ZodIssue, input, api);
  }
  return rethrow(issue, input, api);
}

function rethrow(issue: z.core.$ZodIssue, input: unknown, api: ApiGeneration): never {
  throw toInvalidRequest(issue, input, api);
}
