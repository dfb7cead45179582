import * as z from 'zod';
import type { ObjectType } from '#shared/expansion/objects.ts';
import { listOf } from '#shared/expansion/plan.ts';
import { expandParam, integerParam } from '#shared/wire/params.ts';

/**
 * A v1 search's parameters: `query` (checked by the query parser, which points at what is wrong),
 * `limit` (1 to 100, default 10), `page` (the previous page's `next_page`) and `expand`, whose `data.` paths
 * reach what the found objects of `type` declare, as on the resource's list.
 */
export const searchParams = (type: ObjectType) =>
  z.strictObject({
    query: z
      .string()
      .describe(
        "The search query string: clauses such as `email:'a@example.com'`, `name~'jen'`, `created>1700000000` or `metadata['key']:'value'`, joined by `AND` or `OR`, `-` to negate.",
      ),
    limit: integerParam(1, 100)
      .optional()
      .describe('A limit on the number of objects to be returned. Limit can range between 1 and 100, and the default is 10.'),
    page: z.string().min(1).optional().describe("A cursor for pagination across multiple pages of results: the previous page's `next_page`."),
    expand: expandParam(listOf(type)).optional().describe('Specifies which fields in the response should be expanded.'),
  });
