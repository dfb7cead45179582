import { isoTimestamp, unixSeconds } from '#shared/http/timestamps.ts';
import { hostedLinkPath, useCaseTypes, type AccountLink } from './account-link.ts';

/** The link's hosted page on this service: `<base>/hosted/account_links/<secret>`. */
export const hostedLinkUrl = (baseUrl: string, secret: string): string => `${baseUrl}${hostedLinkPath(secret)}`;

/** The v2 account link; `use_case` shows both members, the one not chosen as null. */
export function serializeAccountLink(link: AccountLink, url: string) {
  const { type, ...member } = link.useCase;
  return {
    object: 'v2.core.account_link' as const,
    account: link.account,
    created: isoTimestamp(link.created),
    expires_at: isoTimestamp(link.expiresAt),
    livemode: link.scope.livemode,
    url,
    use_case: { type, ...Object.fromEntries(useCaseTypes.map((name) => [name, name === type ? member : null])) },
  };
}

/** The v1 `account_link`: the same link, without an id, its times in Unix seconds. */
export function serializeV1AccountLink(link: AccountLink, url: string) {
  return { object: 'account_link' as const, created: unixSeconds(link.created), expires_at: unixSeconds(link.expiresAt), url };
}
