import { systemClock } from '#shared/core/clock.ts';
import type { AccountService } from '#shared/accounts/service.ts';
import { appliedConfigurations } from '#shared/accounts/serializer.ts';
import type { AccountUpdateLimiter } from '#shared/accounts/update-limit.ts';
import { InvalidRequestError } from '#shared/core/errors.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import type { V2Account } from '#shared/accounts/account.ts';
import { hashSecret, newSecret, type AccountLink, type AccountLinkRepository, type AccountLinkUseCase } from './account-link.ts';
import type { CreateAccountLinkParams, CreateV1AccountLinkParams } from './schemas.ts';

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

/**
 * Account links: single-use URLs to the hosted flow that collects what one of the platform's accounts still
 * needs. v2 and v1 links are one mechanism with two wire shapes: the same stored link, the same flow.
 */
export function accountLinkService({ accounts, limiter, links, ttlMinutes, clock = systemClock, secret = newSecret }: AccountLinkServicePorts) {
  /** The platform's open account the link is for (the accounts v2 gate applies). */
  async function openAccount(origin: EventOrigin, id: string): Promise<V2Account> {
    const account = await accounts.retrieve(origin, id);
    if (account.closed) {
      throw new InvalidRequestError(`Account ${account.id} is closed; account links can only be created for open accounts.`, 'account_closed', 'account');
    }
    return account;
  }

  /** Stores a link; a link is a way to change the account, so making one takes a turn of the account's update limit. */
  function issue(origin: EventOrigin, keyHash: string, account: V2Account, useCase: AccountLinkUseCase): Promise<{ link: AccountLink; secret: string }> {
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
        keyHash,
      };
      await links.create(link, hashSecret(linkSecret));
      return { link, secret: linkSecret };
    });
  }

  return {
    /**
     * Returns the stored link and its secret (the URL's last segment), which only this answer ever shows.
     * The link works only while `keyHash` (the SHA-256 of the API key that makes it) does.
     */
    async create(origin: EventOrigin, keyHash: string, params: CreateAccountLinkParams): Promise<{ link: AccountLink; secret: string }> {
      const account = await openAccount(origin, params.account);
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
      return issue(origin, keyHash, account, useCase);
    },

    /**
     * A v1 link (`POST /v1/account_links`). A v1 account is the whole account, so the link collects for
     * every configuration applied on it when the link is made; an account with none has nothing a link
     * could collect and is refused. `collect` (deprecated) is `collection_options.fields`.
     */
    async createV1(origin: EventOrigin, keyHash: string, params: CreateV1AccountLinkParams): Promise<{ link: AccountLink; secret: string }> {
      if (params.collect !== undefined && params.collection_options !== undefined) {
        throw new InvalidRequestError('You may only specify one of these parameters: collect, collection_options.', 'parameters_exclusive', 'collect');
      }
      const account = await openAccount(origin, params.account);
      const configurations = appliedConfigurations(account);
      if (configurations.length === 0) {
        throw new InvalidRequestError(
          `Account ${account.id} has no configuration applied (customer, merchant or recipient), so an account link has nothing to collect for it. ` +
            'Apply a configuration to the account first.',
          'configs_must_match_to_use_account_links',
          'account',
        );
      }
      return issue(origin, keyHash, account, {
        type: params.type,
        configurations,
        refresh_url: params.refresh_url,
        return_url: params.return_url ?? null,
        collection_options: {
          fields: params.collection_options?.fields ?? params.collect ?? 'currently_due',
          future_requirements: params.collection_options?.future_requirements ?? 'omit',
        },
      });
    },
  };
}
