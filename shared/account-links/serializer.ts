import * as z from 'zod';
import { isoTime, unixTime } from '#shared/http/objects.ts';
import { isoTimestamp, unixSeconds } from '#shared/http/timestamps.ts';
import { hostedLinkPath, useCaseTypes, type AccountLink } from './account-link.ts';

const useCaseMember = z.object({
  configurations: z.array(z.string()),
  refresh_url: z.string(),
  return_url: z.string().nullable(),
  collection_options: z.object({ fields: z.enum(['currently_due', 'eventually_due']), future_requirements: z.enum(['include', 'omit']) }),
});

export const accountLinkObject = z
  .object({
    object: z.literal('v2.core.account_link'),
    account: z.string(),
    created: isoTime,
    expires_at: isoTime,
    livemode: z.boolean(),
    url: z.string(),
    use_case: z.object({
      type: z.enum(useCaseTypes),
      account_onboarding: useCaseMember.nullable(),
      account_update: useCaseMember.nullable(),
    }),
  })
  .meta({ id: 'V2CoreAccountLink' });

export const v1AccountLinkObject = z
  .object({ object: z.literal('account_link'), created: unixTime, expires_at: unixTime, url: z.string() })
  .meta({ id: 'AccountLink' });

/** The link's hosted page on this service: `<base>/hosted/account_links/<secret>`. */
export const hostedLinkUrl = (baseUrl: string, secret: string): string => `${baseUrl}${hostedLinkPath(secret)}`;

/** The v2 account link; `use_case` shows both members, the one not chosen as null. */
export function serializeAccountLink(link: AccountLink, url: string): z.input<typeof accountLinkObject> {
  const { type, ...member } = link.useCase;
  const memberOf = (name: (typeof useCaseTypes)[number]) => (name === type ? member : null);
  return {
    object: 'v2.core.account_link',
    account: link.account,
    created: isoTimestamp(link.created),
    expires_at: isoTimestamp(link.expiresAt),
    livemode: link.scope.livemode,
    url,
    use_case: { type, account_onboarding: memberOf('account_onboarding'), account_update: memberOf('account_update') },
  };
}

/** The v1 `account_link`: the same link, without an id, its times in Unix seconds. */
export function serializeV1AccountLink(link: AccountLink, url: string): z.input<typeof v1AccountLinkObject> {
  return { object: 'account_link', created: unixSeconds(link.created), expires_at: unixSeconds(link.expiresAt), url };
}
