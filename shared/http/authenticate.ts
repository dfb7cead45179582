import { systemClock } from '#shared/core/clock.ts';
import { AuthenticationError, PermissionError } from '#shared/core/errors.ts';
import { hashApiKey, keyHint, parseApiKey } from '#shared/platform/api-keys.ts';
import { isIdShaped, quoted } from './bounds.ts';
import type { AccountRecord, Caller, PlatformStore } from '#shared/platform/types.ts';

export interface AuthenticateOptions {
  /** Only token creation accepts a publishable key. */
  allowPublishableKey: boolean;
}

function presentedKey(authorization: string | undefined): string {
  if (!authorization) {
    throw new AuthenticationError(
      "You did not provide an API key. Provide it in the Authorization header using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY') or HTTP Basic auth with the key as user name.",
      'api_key_missing',
    );
  }
  const [scheme = '', ...rest] = authorization.trim().split(/\s+/);
  const credentials = rest.join(' ');
  if (scheme.toLowerCase() === 'bearer' && credentials) return credentials;
  if (scheme.toLowerCase() === 'basic' && credentials) {
    const decoded = Buffer.from(credentials, 'base64').toString('utf8');
    const user = decoded.includes(':') ? decoded.slice(0, decoded.indexOf(':')) : decoded;
    if (user) return user;
  }
  throw new AuthenticationError(
    'Invalid Authorization header. Use Bearer auth with your API key, or HTTP Basic auth with the key as user name and no password.',
    'invalid_authorization_header',
  );
}

/** The Bearer credentials of a request, or '' when it has none (a missing header or another scheme). */
export function bearerToken(headers: Record<string, string | undefined>): string {
  const [scheme = '', token = ''] = (headers.authorization ?? '').trim().split(/\s+/);
  return scheme.toLowerCase() === 'bearer' ? token : '';
}

function masked(key: string): string {
  return parseApiKey(key) ? keyHint(key) : `${key.slice(0, 8)}…`;
}

/**
 * Resolves the caller from `Authorization` (Bearer, or Basic with the key as user name) and the optional
 * `Service-Context` / `Service-Account` header, which must name the key's own account or one it controls.
 */
export async function authenticate(
  headers: Record<string, string | undefined>,
  store: PlatformStore,
  options: AuthenticateOptions,
  now = systemClock(),
): Promise<Caller> {
  const key = presentedKey(headers.authorization);
  const shape = parseApiKey(key);
  const record = shape ? await store.findApiKey(hashApiKey(key)) : undefined;
  if (!record) throw new AuthenticationError(`Invalid API Key provided: ${masked(key)}`, 'api_key_invalid');
  if (record.expiresAt !== undefined && record.expiresAt <= now) {
    throw new AuthenticationError(`Expired API Key provided: ${keyHint(key)}. It was rolled or revoked; use its replacement.`, 'api_key_expired');
  }
  if (record.kind === 'publishable' && !options.allowPublishableKey) {
    throw new PermissionError('This API call cannot be made with a publishable API key. Please use a secret API key.', 'secret_key_required');
  }

  // The official SDK spells these headers with the reference API's name (its `stripeContext` and
  // `stripeAccount` options, and `fetchEvent()` of a connected account's event), so both spellings count.
  const contextHeader = headers['service-context'] ?? headers['stripe-context'] ?? headers['service-account'] ?? headers['stripe-account'];
  let accountId = record.accountId;
  if (contextHeader && contextHeader !== record.accountId) {
    // A value no account id can have (a 3,000-character header, say) is not looked up: it would not fit a table key.
    const account: AccountRecord | undefined = isIdShaped(contextHeader) ? await store.getAccount(contextHeader) : undefined;
    // A connected account lives in one mode: the other mode's key may not act inside it. Records written
    // before the mode was kept count as test mode, where every such account was made locally.
    if (!account || account.platformId !== record.accountId || (account.livemode ?? false) !== record.livemode) {
      throw new PermissionError(
        `The provided key '${keyHint(key)}' does not have access to account '${quoted(contextHeader)}' (or that account does not exist).`,
        'account_invalid',
      );
    }
    accountId = account.id;
  }
  return {
    platformId: record.accountId,
    livemode: record.livemode,
    keyKind: record.kind,
    credentialId: record.hash,
    scope: { accountId, livemode: record.livemode },
  };
}
