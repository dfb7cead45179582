import * as z from 'zod';
import { expandParam, idParam } from '#shared/wire/params.ts';
import { configurationNames } from '#shared/accounts/capabilities.ts';
import { useCaseTypes } from './account-link.ts';

const webUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048);

const fields = z.enum(['currently_due', 'eventually_due']);
const collectionOptions = z.strictObject({
  fields: fields
    .optional()
    .describe(
      'Specifies whether the platform collects only currently_due requirements (`currently_due`) or both currently_due and eventually_due requirements (`eventually_due`).',
    ),
  future_requirements: z
    .enum(['include', 'omit'])
    .optional()
    .describe('Specifies whether the platform collects future_requirements in addition to requirements in Connect Onboarding.'),
});

const useCaseMember = z.strictObject({
  configurations: z
    .array(z.enum(configurationNames))
    .min(1, 'must name at least one configuration')
    .max(configurationNames.length)
    .describe('The configurations of the account the link onboards (`merchant`, `customer`, `recipient`).'),
  refresh_url: webUrl.describe('The URL the user will be redirected to if the account link is expired, has been previously-visited, or is otherwise invalid.'),
  return_url: webUrl.optional().describe('The URL that the user will be redirected to upon leaving or completing the linked flow.'),
  collection_options: collectionOptions
    .optional()
    .describe('Specifies the requirements that the service collects from connected accounts in the Connect Onboarding flow.'),
});

/**
 * `use_case` carries the member named like its `type`. A member of the other type is checked and not used
 * (the SDK's own example sends both).
 */
const useCase = z
  .strictObject({
    type: z.enum(useCaseTypes).describe('The type of Account Link the user is requesting.'),
    account_onboarding: useCaseMember.optional().describe('Hash containing configuration options for an Account Link object that onboards a new account.'),
    account_update: useCaseMember.optional().describe('Hash containing configuration options for an Account Link that updates an existing account.'),
  })
  .superRefine((value, ctx) => {
    if (value[value.type] === undefined) ctx.addIssue({ code: 'invalid_type', expected: 'object', input: undefined, path: [value.type], message: 'required' });
  });

export const createAccountLinkParams = z.strictObject({
  account: idParam().describe('The identifier of the account to create an account link for.'),
  use_case: useCase.describe(
    'Specifies the hosted flow for this Account Link. Set `type` and the matching options hash—for example, `account_onboarding`—to configure the flow, including which Account configurations to collect information for and any flow-specific collection or redirect options.',
  ),
});

export type CreateAccountLinkParams = z.output<typeof createAccountLinkParams>;

/**
 * `POST /v1/account_links` (form encoded). `refresh_url` is optional in the reference's type but the
 * hosted flow needs it (a used or expired link goes there), so it is required, as the reference requires
 * it for these two types. `collect` is deprecated but accepted; it and `collection_options` exclude each other.
 */
export const createV1AccountLinkParams = z.strictObject({
  account: idParam().describe('The identifier of the account to create an account link for.'),
  type: z
    .enum(useCaseTypes)
    .describe(
      'The type of account link the user is requesting. You can create Account Links of type `account_update` only for connected accounts where your platform is responsible for collecting requirements, including Custom accounts.',
    ),
  refresh_url: webUrl.describe('The URL the user will be redirected to if the account link is expired, has been previously-visited, or is otherwise invalid.'),
  return_url: webUrl.optional().describe('The URL that the user will be redirected to upon leaving or completing the linked flow.'),
  collect: fields.optional().describe('The collect parameter is deprecated. Use `collection_options` instead.'),
  collection_options: collectionOptions
    .optional()
    .describe('Specifies the requirements that the service collects from connected accounts in the Connect Onboarding flow.'),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
});

export type CreateV1AccountLinkParams = z.output<typeof createV1AccountLinkParams>;
