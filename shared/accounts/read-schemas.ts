import * as z from 'zod';
import { booleanParam, integerParam } from '#shared/wire/params.ts';

/**
 * The v2 account and person parameters of the routes that read or close (`include`, list filters): apart from
 * schemas.ts, whose create and update parameters the other account functions need not bundle or build.
 */

export const includeValues = [
  'configuration.customer',
  'configuration.merchant',
  'configuration.recipient',
  'defaults',
  'future_requirements',
  'identity',
  'requirements',
] as const;
export type AccountInclude = (typeof includeValues)[number];
export const include = z
  .array(z.enum(includeValues))
  .max(includeValues.length * 2)
  .optional()
  .describe(
    'Sections of the account to include in the response (`configuration.*`, `defaults`, `identity`, `requirements`, `future_requirements`); others are null.',
  );
const configurationName = z.enum(['customer', 'merchant', 'recipient']);

export const retrieveAccountParams = z.strictObject({ include });
export const listAccountsParams = z.strictObject({
  applied_configurations: z.array(configurationName).max(6).optional().describe('Filter only accounts that have all of the configurations specified.'),
  // A query string: the text booleans of v1 query strings (v2-era stripe-python sends `closed=True` too).
  closed: booleanParam().optional().describe('Filter by whether the account is closed. If omitted, returns only Accounts that are not closed.'),
  limit: integerParam(1, 100).optional().describe('The maximum number of items returned by the list request.'),
});
export const closeAccountParams = z.strictObject({
  applied_configurations: z
    .array(configurationName)
    .max(6)
    .optional()
    .describe('Configurations on the Account to be closed. All configurations on the Account must be passed in for this request to succeed.'),
});

export const listPersonsParams = z.strictObject({
  limit: integerParam(1, 100).optional().describe('The maximum number of items returned by the list request.'),
});
