import * as z from 'zod';
import { isoTime, unixTime } from '#shared/wire/objects.ts';
import { useCaseTypes } from './account-link.ts';

const useCaseMember = z.object({
  configurations: z.array(z.string()).describe('The configurations of the account the link onboards (`merchant`, `customer`, `recipient`).'),
  refresh_url: z.string().describe('The URL the user will be redirected to if the AccountLink is expired, has been used, or is otherwise invalid.'),
  return_url: z.string().nullable().describe('The URL that the user will be redirected to upon completing the linked flow.'),
  collection_options: z
    .object({
      fields: z
        .enum(['currently_due', 'eventually_due'])
        .describe(
          'Specifies whether the platform collects only currently_due requirements (`currently_due`) or both currently_due and eventually_due requirements (`eventually_due`).',
        ),
      future_requirements: z
        .enum(['include', 'omit'])
        .describe('Specifies whether the platform collects future_requirements in addition to requirements in Connect Onboarding.'),
    })
    .describe('Specifies the requirements that the service collects from v2/core/accounts in the Onboarding flow.'),
});

export const accountLinkObject = z
  .object({
    object: z
      .literal('v2.core.account_link')
      .describe("String representing the object's type. Objects of the same type share the same value of the object field."),
    account: z.string().describe('The ID of the connected account this Account Link applies to.'),
    created: isoTime.describe('The timestamp at which this Account Link was created.'),
    expires_at: isoTime.describe('The timestamp at which this Account Link will expire.'),
    livemode: z.boolean().describe('Has the value `true` if the object exists in live mode or the value `false` if the object exists in test mode.'),
    url: z.string().describe('The URL at which the account can access the hosted flow.'),
    use_case: z
      .object({
        type: z.enum(useCaseTypes).describe('The type of Account Link the user is requesting.'),
        account_onboarding: useCaseMember.nullable().describe('Hash containing configuration options for an Account Link object that onboards a new account.'),
        account_update: useCaseMember.nullable().describe('Hash containing configuration options for an Account Link that updates an existing account.'),
      })
      .describe('Describes the hosted flow for this Account Link, including its type and flow-specific configuration.'),
  })
  .meta({ id: 'V2CoreAccountLink' });

export const v1AccountLinkObject = z
  .object({
    object: z.literal('account_link').describe("String representing the object's type. Objects of the same type share the same value of the object field."),
    created: unixTime.describe('The timestamp at which this Account Link was created.'),
    expires_at: unixTime.describe('The timestamp at which this Account Link will expire.'),
    url: z.string().describe('The URL at which the account can access the hosted flow.'),
  })
  .meta({ id: 'AccountLink' });
