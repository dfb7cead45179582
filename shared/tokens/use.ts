import { InvalidRequestError } from '#shared/core/errors.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { TokenOf, TokenRepository, TokenType, TokenUse } from './token.ts';

const names: Record<TokenType, string> = {
  card: 'a card token',
  bank_account: 'a bank account token',
  cvc_update: 'a CVC update token',
  person: 'a v1 person token',
  pii: 'a PII token',
  account: 'a v1 account token',
  v2_account: 'an account token',
  v2_person: 'a person token',
};

/** A token that does not exist in the caller's account and mode (or has expired), named by `param`. */
export const noSuchToken = (tokenId: string, param: string): InvalidRequestError =>
  new InvalidRequestError(`No such token: '${tokenId}'`, 'resource_missing', param);

/** The refusal of a token used before, or meanwhile by a concurrent write (its transaction found it used). */
export const tokenAlreadyUsed = (use: Pick<TokenUse, 'id' | 'param'>): InvalidRequestError =>
  new InvalidRequestError(`You cannot use a Service token more than once: ${use.id}.`, 'token_already_used', use.param);

/**
 * Reads a token an account or person write is about to use, and refuses (400, naming `param`) what cannot
 * be used: no such token in `scope` (another platform's or mode's, or expired: `resource_missing`), a token
 * of another type than `accepted` (`parameter_invalid`), or one used before (`token_already_used`). The
 * answer's `use` goes into the write's transaction, which uses the token up.
 */
export async function tokenForUse<T extends TokenType>(
  tokens: Pick<TokenRepository, 'get'>,
  scope: Scope,
  tokenId: string,
  accepted: readonly T[],
  param: string,
  now: number,
): Promise<{ token: TokenOf<T>; use: TokenUse }> {
  const token = await tokens.get(scope, tokenId, now);
  if (!token) throw noSuchToken(tokenId, param);
  if (!(accepted as readonly TokenType[]).includes(token.type)) {
    throw new InvalidRequestError(
      `Invalid ${param}: '${tokenId}' is ${names[token.type]}, but ${param} takes ${names[accepted[0]!]}.`,
      'parameter_invalid',
      param,
    );
  }
  const use: TokenUse = { scope, id: token.id, type: token.type, now, param };
  if (token.used) throw tokenAlreadyUsed(use);
  return { token: token as TokenOf<T>, use };
}
