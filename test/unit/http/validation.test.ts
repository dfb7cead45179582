import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { InvalidRequestError } from '#shared/core/errors.ts';
import { booleanParam, integerParam, metadataParam } from '#shared/wire/params.ts';
import { mergeMetadata } from '#shared/wire/metadata.ts';
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

  it('takes any case of true and false as a form boolean, as older SDKs send True and False (Python)', () => {
    // Given the values older SDKs and hand-written clients send
    const parse = (value: unknown) => booleanParam().parse(value);
    // Then every casing of the two words reads as the boolean it names, and JSON booleans pass through
    for (const value of ['true', 'True', 'TRUE', 'tRuE']) expect(parse(value)).toBe(true);
    for (const value of ['false', 'False', 'FALSE', 'fAlSe']) expect(parse(value)).toBe(false);
    expect(parse(true)).toBe(true);
    expect(parse(false)).toBe(false);
    // And nothing else is a boolean: no yes/1/empty/padded words
    for (const value of ['yes', 'no', '1', '0', '', '`', '`true`', ' true', 'true ', 'truee', 'T', null, 1, ['true'], { a: 'true' }]) {
      expect(booleanParam().safeParse(value).success, JSON.stringify(value)).toBe(false);
    }
  });

  it('refuses a bad form boolean with a 400 naming the nested parameter', () => {
    // Given a strict schema with a nested boolean, like person[relationship][owner]
    const nested = z.strictObject({ person: z.strictObject({ relationship: z.strictObject({ owner: booleanParam().optional() }) }) });
    // When the value is True it is read; when it is yes the error names the field in bracket notation
    expect(validateParams(nested, { person: { relationship: { owner: 'True' } } }, 'v1')).toEqual({ person: { relationship: { owner: true } } });
    const error = failure(() => validateParams(nested, { person: { relationship: { owner: 'yes' } } }, 'v1'));
    expect(error).toMatchObject({ code: 'parameter_invalid', param: 'person[relationship][owner]' });
    expect(error.message).toBe('Invalid person[relationship][owner]: must be true or false');
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
