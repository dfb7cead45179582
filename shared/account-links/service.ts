import type { AccountService } from '#shared/accounts/service.ts';
import { appliedConfigurations } from '#shared/accounts/serializer.ts';
import type { AccountUpdateLimiter } from '#shared/accounts/update-limit.ts';
import { InvalidRequestError } from '#shared/errors.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { hashSecret, newSecret, type AccountLink, type AccountLinkRepository, type AccountLinkUseCase } from './account-link.ts';
import type { CreateAccountLinkParams } from './schemas.ts';

export interface AccountLinkServicePorts {
  /** Its `retrieve` applies the accounts v2 gate and finds only the caller's own accounts. */
  accounts: Pick<AccountService, 'retrieve'>;
  limiter: AccountUpdateLimiter;
  links: AccountLinkRepository;
  /** Minutes a link can be opened after creation. */
  ttlMinutes: number;
  clock?: () => number;
  secret?: () => string;
}

function useCaseOf(params: CreateAccountLinkParams['use_case']): AccountLinkUseCase {
  const member = params[params.type]!;
  return {
    type: params.type,
    configurations: [...new Set(member.configurations)],
    refresh_url: member.refresh_url,
    return_url: member.return_url ?? null,
    collection_options: {
      fields: member.collection_options?.fields ?? 'currently_due',
      future_requirements: member.collection_options?.future_requirements ?? 'omit',
    },
  };
}

/** Account links: single-use URLs to the hosted flow that collects what one of the platform's accounts still needs. */
export function accountLinkService({ accounts, limiter, links, ttlMinutes, clock = Date.now, secret = newSecret }: AccountLinkServicePorts) {
  return {
    /** Returns the stored link and its secret (the URL's last segment), which only this answer ever shows. */
    async create(origin: EventOrigin, params: CreateAccountLinkParams): Promise<{ link: AccountLink; secret: string }> {
      const account = await accounts.retrieve(origin, params.account);
      if (account.closed) {
        throw new InvalidRequestError(`Account ${account.id} is closed; account links can only be created for open accounts.`, 'account_closed', 'account');
      }
      const useCase = useCaseOf(params.use_case);
      const applied = appliedConfigurations(account);
      const missing = useCase.configurations.filter((name) => !applied.includes(name));
      if (missing.length > 0) {
        throw new InvalidRequestError(
          `Account ${account.id} does not have the ${missing.join(', ')} configuration${missing.length > 1 ? 's' : ''} applied ` +
            `(applied: ${applied.join(', ') || 'none'}); an account link can only collect for configurations applied on the account.`,
          'configs_must_match_to_use_account_links',
          `use_case.${useCase.type}.configurations`,
        );
      }
      // A link is a way to change the account, so making one takes a turn of the account's update limit.
      return limiter(origin.scope, account.id, async () => {
        const now = clock();
        const linkSecret = secret();
        const link: AccountLink = {
          account: account.id,
          scope: origin.scope,
          platformId: origin.platformId,
          useCase,
          created: now,
          expiresAt: now + ttlMinutes * 60_000,
          state: 'fresh',
          sessionHash: null,
          sessionExpiresAt: null,
        };
        await links.create(link, hashSecret(linkSecret));
        return { link, secret: linkSecret };
      });
    },
  };
}
