import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createCustomerParams, updateCustomerParams } from '#shared/customers/schemas.ts';
import { listSnapshotEventsParams } from '#shared/events/schemas.ts';
import { parseBracketParams } from '#shared/http/encoding.ts';
import { singleValuesAsArrays } from '#shared/http/single-values.ts';
import { validateParams } from '#shared/http/validation.ts';

/** What a v1 handler sees of a query string or form body, through the same steps as the pipeline. */
const decoded = (schema: z.ZodType, text: string) => validateParams(schema, singleValuesAsArrays(schema, parseBracketParams(text, 'query')), 'v1');

describe('an array parameter sent as one plain value', () => {
  it('is the array of that value, as the indexed, the bracketed and the repeated forms are', () => {
    // When `types` is sent in each form a client may use
    const forms = ['types=customer.created', 'types[0]=customer.created', 'types[]=customer.created'].map((text) => decoded(listSnapshotEventsParams, text));
    const repeated = decoded(listSnapshotEventsParams, 'types=customer.created&types=customer.updated');

    // Then each is the same one-element array, and a repeated name is the array of its values
    for (const params of forms) expect(params).toMatchObject({ types: ['customer.created'] });
    expect(repeated).toMatchObject({ types: ['customer.created', 'customer.updated'] });
  });

  it('works for expand and for arrays inside objects, and leaves what is not an array alone', () => {
    // When `expand` and a nested array are sent with one value each, beside plain scalars
    const params = decoded(updateCustomerParams, 'expand=sources&preferred_locales=fr&email=a%40example.com&metadata[k]=v');

    // Then the arrays are arrays (`expand` checked into its plan of one path), and the rest is as sent
    expect(params).toMatchObject({ expand: { paths: ['sources'] }, preferred_locales: ['fr'], email: 'a@example.com', metadata: { k: 'v' } });
  });

  it('keeps the empty value that clears an emptyable array', () => {
    // When `preferred_locales=` (the v1 way to clear a list) is sent
    const params = decoded(updateCustomerParams, 'preferred_locales=');

    // Then it still clears it rather than becoming `['']`
    expect(params).toMatchObject({ preferred_locales: null });
  });

  it('walks arrays of objects by their fields and leaves unknown parameters for the strict schema to refuse', () => {
    // Given a schema with an array of objects that hold an array
    const schema = z.strictObject({ items: z.array(z.strictObject({ tax_rates: z.array(z.string()).optional() })).optional() });

    // When one plain value is sent inside an indexed item, and an unknown parameter beside it
    const walked = singleValuesAsArrays(schema, parseBracketParams('items[0][tax_rates]=txr_1&unknown=x', 'body'));

    // Then the nested array is an array, and the unknown parameter is passed through untouched (and refused)
    expect(walked).toEqual({ items: [{ tax_rates: ['txr_1'] }], unknown: 'x' });
    expect(() => validateParams(schema, walked, 'v1')).toThrow(/unknown parameter: unknown/);
  });

  it('still refuses a value the array does not take', () => {
    expect(() => decoded(createCustomerParams, 'expand=not_a_field')).toThrow(/cannot be expanded/);
  });
});
