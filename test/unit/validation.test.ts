import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InvalidRequestError } from '#shared/errors.ts';
import { booleanParam, integerParam, metadataParam } from '#shared/http/params.ts';
import { mergeMetadata } from '#shared/metadata.ts';
import { validateParams } from '#shared/http/validation.ts';
import { createWebhookEndpointParams } from '#shared/webhook-endpoints/schemas.ts';

function failure(run: () => unknown): InvalidRequestError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidRequestError) return error;
    throw error;
  }
  throw new Error('expected a validation failure');
}

const schema = z.strictObject({ url: z.string(), nested: z.strictObject({ url: z.string() }).optional(), limit: integerParam(1, 100).optional() });

describe('parameter validation', () => {
  it('names a missing parameter', () => {
    const error = failure(() => validateParams(schema, {}, 'v1'));
    expect(error).toMatchObject({ code: 'parameter_missing', param: 'url' });
  });

  it('refuses an unknown parameter and names it in bracket notation on v1 and dotted on v2', () => {
    expect(failure(() => validateParams(schema, { url: 'x', nested: { url: 'y', extra: '1' } }, 'v1'))).toMatchObject({
      code: 'parameter_unknown',
      param: 'nested[extra]',
    });
    expect(failure(() => validateParams(schema, { url: 'x', nested: { url: 'y', extra: '1' } }, 'v2'))).toMatchObject({
      param: 'nested.extra',
    });
  });

  it('refuses a wrong type with the field path', () => {
    expect(failure(() => validateParams(schema, { url: { a: 'b' } }, 'v1'))).toMatchObject({ code: 'parameter_invalid', param: 'url' });
    expect(failure(() => validateParams(schema, { url: 'x', limit: 'ten' }, 'v1'))).toMatchObject({ param: 'limit' });
    expect(failure(() => validateParams(schema, { url: 'x', limit: '101' }, 'v1'))).toMatchObject({ param: 'limit' });
  });

  it('reads form strings as integers and booleans', () => {
    expect(validateParams(schema, { url: 'x', limit: '7' }, 'v1')).toEqual({ url: 'x', limit: 7 });
    expect(booleanParam().parse('false')).toBe(false);
    expect(booleanParam().safeParse('yes').success).toBe(false);
  });

  it('names the bad event type by its index', () => {
    const error = failure(() =>
      validateParams(createWebhookEndpointParams, { url: 'https://x.test', enabled_events: ['customer.created', 'nope.nothing'] }, 'v1'),
    );
    expect(error).toMatchObject({ param: 'enabled_events[1]' });
    expect(error.message).toContain('nope.nothing');
  });

  it('treats metadata as a string map where empty values delete keys and an empty string clears all', () => {
    expect(metadataParam().parse('')).toBeNull();
    expect(mergeMetadata({ a: '1', b: '2' }, { a: '', c: '3' })).toEqual({ b: '2', c: '3' });
    expect(mergeMetadata({ a: '1' }, null)).toEqual({});
    expect(metadataParam().safeParse({ ['k'.repeat(41)]: 'v' }).success).toBe(false);
  });
});
