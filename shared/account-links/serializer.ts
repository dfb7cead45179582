import type * as z from 'zod';
import { isoTimestamp, unixSeconds } from '#shared/wire/timestamps.ts';
import { hostedLinkPath, type useCaseTypes, type AccountLink } from './account-link.ts';
import type { accountLinkObject, v1AccountLinkObject } from './objects.ts';

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
