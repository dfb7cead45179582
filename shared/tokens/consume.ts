import { InvalidRequestError } from '#shared/errors.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { AccountTokenData, PersonTokenData } from './schemas.ts';
import type { ConsumableTokenType, TokenOf, TokenRepository, TokenType } from './token.ts';

interface ConsumedTokenBase {
  id: string;
  /** Milliseconds. */
  created: number;
  livemode: boolean;
  clientIp: string | null;
}

/** An account token's data: v1 names (`business_type`, `company`, `individual`, `tos_shown_and_accepted`). */
export interface ConsumedAccountToken extends ConsumedTokenBase {
  type: 'account';
  account: AccountTokenData;
}

/** A person token's data: v1 names (`first_name`, `dob`, `address`, `relationship`, `id_number_provided`, …). */
export interface ConsumedPersonToken extends ConsumedTokenBase {
  type: 'person';
  person: PersonTokenData;
}

export type ConsumedToken<T extends ConsumableTokenType = ConsumableTokenType> = Extract<ConsumedAccountToken | ConsumedPersonToken, { type: T }>;

/** The consumption port: what v2 account and person create/update call with an `account_token` or `person_token`. */
export interface TokenConsumer {
  /**
   * Uses the token once, atomically (one conditional write: concurrent callers cannot both succeed), and
   * returns its stored data. Fails with a 400 `InvalidRequestError` naming `param`:
   * - `resource_missing` when no such token exists in `scope` (other accounts' and modes' tokens included),
   * - `parameter_invalid` when the token is of another type than `expected`,
   * - `token_already_used` when it was used before.
   */
  consume<T extends ConsumableTokenType>(scope: Scope, tokenId: string, expected: T, param: string): Promise<ConsumedToken<T>>;
}

const withArticle = (type: TokenType | ConsumableTokenType) => `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;

/** A token that does not exist in the caller's account and mode (or has expired), named by `param`. */
export const noSuchToken = (tokenId: string, param: string) => new InvalidRequestError(`No such token: '${tokenId}'`, 'resource_missing', param);
/** A token used before, as the reference words it. */
export const tokenAlreadyUsed = (tokenId: string, param: string) =>
  new InvalidRequestError(`You cannot use a Service token more than once: ${tokenId}.`, 'token_already_used', param);

export function tokenConsumer({ repository, clock = Date.now }: { repository: TokenRepository; clock?: () => number }): TokenConsumer {
  return {
    async consume<T extends ConsumableTokenType>(scope: Scope, tokenId: string, expected: T, param: string): Promise<ConsumedToken<T>> {
      const result = await repository.consume(scope, tokenId, expected, clock());
      switch (result.outcome) {
        case 'missing':
          throw noSuchToken(tokenId, param);
        case 'wrong_type':
          throw new InvalidRequestError(
            `Invalid ${param}: '${tokenId}' is ${withArticle(result.actualType)} token, but ${param} takes ${withArticle(expected)} token.`,
            'parameter_invalid',
            param,
          );
        case 'used':
          throw tokenAlreadyUsed(tokenId, param);
        case 'consumed': {
          const token = result.token as TokenOf<ConsumableTokenType>;
          const base = { id: token.id, created: token.created, livemode: token.scope.livemode, clientIp: token.clientIp };
          const consumed =
            token.type === 'account' ? { ...base, type: token.type, account: token.account } : { ...base, type: token.type, person: token.person };
          return consumed as ConsumedToken<T>;
        }
      }
    },
  };
}
