import * as z from 'zod';
import { expandParam, integerParam } from '#shared/http/params.ts';

/**
 * A v1 search's parameters: `query` (checked by the query parser, which points at what is wrong),
 * `limit` (1 to 100, default 10), `page` (the previous page's `next_page`) and the resource's `expand`.
 */
export const searchParams = (expandable: readonly string[] = []) =>
  z.strictObject({
    query: z.string(),
    limit: integerParam(1, 100).optional(),
    page: z.string().min(1).optional(),
    expand: expandParam(expandable).optional(),
  });
