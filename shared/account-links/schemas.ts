import * as z from 'zod';
import { expandParam, idParam } from '#shared/http/params.ts';
import { configurationNames } from '#shared/accounts/capabilities.ts';
import { useCaseTypes } from './account-link.ts';

const webUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048);

const fields = z.enum(['currently_due', 'eventually_due']);
const collectionOptions = z.strictObject({ fields: fields.optional(), future_requirements: z.enum(['include', 'omit']).optional() });

const useCaseMember = z.strictObject({
  configurations: z.array(z.enum(configurationNames)).min(1, 'must name at least one configuration').max(configurationNames.length),
  refresh_url: webUrl,
  return_url: webUrl.optional(),
  collection_options: collectionOptions.optional(),
});

/**
 * `use_case` carries the member named like its `type`. A member of the other type is checked and not used
 * (the SDK's own example sends both).
 */
const useCase = z
  .strictObject({
    type: z.enum(useCaseTypes),
    account_onboarding: useCaseMember.optional(),
    account_update: useCaseMember.optional(),
  })
  .superRefine((value, ctx) => {
    if (value[value.type] === undefined) ctx.addIssue({ code: 'invalid_type', expected: 'object', input: undefined, path: [value.type], message: 'required' });
  });

export const createAccountLinkParams = z.strictObject({
  account: idParam(),
  use_case: useCase,
});

export type CreateAccountLinkParams = z.output<typeof createAccountLinkParams>;

/**
 * `POST /v1/account_links` (form encoded). `refresh_url` is optional in the reference's type but the
 * hosted flow needs it (a used or expired link goes there), so it is required, as the reference requires
 * it for these two types. `collect` is deprecated but accepted; it and `collection_options` exclude each other.
 */
export const createV1AccountLinkParams = z.strictObject({
  account: idParam(),
  type: z.enum(useCaseTypes),
  refresh_url: webUrl,
  return_url: webUrl.optional(),
  collect: fields.optional(),
  collection_options: collectionOptions.optional(),
  expand: expandParam().optional(),
});

export type CreateV1AccountLinkParams = z.output<typeof createV1AccountLinkParams>;
