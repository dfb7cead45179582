import { systemClock } from '#shared/core/clock.ts';
import { InvalidRequestError, NotFoundError, PermissionError } from '#shared/core/errors.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { newId } from '#shared/core/ids.ts';
import type { KeyKind } from '#shared/platform/types.ts';
import type { TokenOf, TokenRepository } from '#shared/tokens/token.ts';
import type { AccountRepository } from './account.ts';
import type { AccountsV2Gate } from './gate.ts';
import { withoutIdNumberValues } from './merge.ts';
import type { CreateAccountTokenParams, CreatePersonTokenParams } from './schemas.ts';

export interface AccountTokenServicePorts {
  tokens: TokenRepository;
  accounts: Pick<AccountRepository, 'get'>;
  gate: AccountsV2Gate;
  /** How long a token can be retrieved and used after its creation (`TOKEN_TTL_MINUTES`, as v1 tokens). */
  ttlMillis: number;
  clock?: () => number;
}

/** Who made a token: the key's kind, and the client's IP and user agent (what the token's attestations record). */
export interface TokenClient {
  keyKind: KeyKind;
  ip: string | null;
  userAgent: string | null;
}

export type AccountToken = TokenOf<'v2_account'>;
export type PersonToken = TokenOf<'v2_person'>;

/**
 * v2 account and person tokens: identity data posted (with a publishable key, from the client) in exchange
 * for a single-use id that `account_token` / `person_token` apply later as if the data were sent inline.
 * The data is checked here by the inline parameters' schemas; id number values are checked and dropped.
 */
export function accountTokenService({ tokens, accounts, gate, ttlMillis, clock = systemClock }: AccountTokenServicePorts) {
  /** In live mode the reference takes tokens from publishable keys only (the data must not pass the platform's server). */
  function checkKey(origin: EventOrigin, client: TokenClient, kind: string) {
    if (origin.scope.livemode && client.keyKind === 'secret') {
      throw new PermissionError(
        `In live mode, ${kind} tokens can only be created with a publishable key, so that the data goes from your user's browser or app to this service directly. Secret keys can create them in test mode.`,
        'publishable_key_required',
      );
    }
  }

  const base = (origin: EventOrigin, prefix: string, client: TokenClient) => {
    const now = clock();
    return { id: newId(prefix, now), scope: origin.scope, created: now, expiresAt: now + ttlMillis, clientIp: client.ip, used: false };
  };

  return {
    async createAccountToken(origin: EventOrigin, params: CreateAccountTokenParams, client: TokenClient): Promise<AccountToken> {
      await gate(origin.platformId);
      checkKey(origin, client, 'account');
      const token: AccountToken = {
        ...base(origin, 'accttok', client),
        type: 'v2_account',
        v2: { params: withoutIdNumberValues(params), userAgent: client.userAgent },
      };
      await tokens.create(token);
      return token;
    },

    async retrieveAccountToken(origin: EventOrigin, id: string): Promise<AccountToken> {
      await gate(origin.platformId);
      const token = await tokens.get(origin.scope, id, clock());
      if (token?.type !== 'v2_account') throw new NotFoundError('account token', id);
      return token;
    },

    /** A person token belongs to the account it is made for: another account's `person_token` refuses it. */
    async createPersonToken(origin: EventOrigin, accountId: string, params: CreatePersonTokenParams, client: TokenClient): Promise<PersonToken> {
      await gate(origin.platformId);
      const account = await accounts.get(origin.scope, accountId);
      if (!account) throw new NotFoundError('account', accountId);
      checkKey(origin, client, 'person');
      if (account.closed) throw new InvalidRequestError(`Account ${accountId} is closed; a closed account cannot be changed.`, 'account_closed');
      const token: PersonToken = {
        ...base(origin, 'perstok', client),
        type: 'v2_person',
        accountId,
        v2: { params: withoutIdNumberValues(params), userAgent: client.userAgent },
      };
      await tokens.create(token);
      return token;
    },

    async retrievePersonToken(origin: EventOrigin, accountId: string, id: string): Promise<PersonToken> {
      await gate(origin.platformId);
      const token = await tokens.get(origin.scope, id, clock());
      if (token?.type !== 'v2_person' || token.accountId !== accountId) throw new NotFoundError('person token', id);
      return token;
    },
  };
}
