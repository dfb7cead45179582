import { systemClock } from '#shared/core/clock.ts';
import type { V2Account } from '#shared/accounts/account.ts';
import { fieldsToCollect, type RequirementField } from '#shared/accounts/requirements.ts';
import type { AccountService } from '#shared/accounts/service.ts';
import { ConflictError, InvalidRequestError, NotFoundError, PermissionError, RateLimitError, ServiceError } from '#shared/core/errors.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventInput, EventOrigin } from '#shared/events/event.ts';
import { defaultServiceVersion } from '#shared/wire/api-version.ts';
import type { AuthFailureGuard, PlatformStore } from '#shared/platform/types.ts';
import { isLiveKey } from '#shared/platform/api-keys.ts';
import { hashSecret, isSecretShaped, newSecret, type AccountLink, type AccountLinkRepository } from './account-link.ts';
import { inputForParam, readFields, type FormIssue, type FormValues } from './form.ts';

export interface HostedFlowPorts {
  links: AccountLinkRepository;
  /** Both apply the accounts v2 gate; `update` also the per-account update limit and the account events. */
  accounts: Pick<AccountService, 'retrieve' | 'update'>;
  /** Emits `v2.core.account_link.returned` when a link's flow completes. */
  events: EventEmitter;
  /** The API keys (cached): a link works only while the key that made it does. */
  apiKeys: Pick<PlatformStore, 'findApiKey'>;
  /** Visits with unknown link secrets count as failed authentications of their address. */
  failures: AuthFailureGuard;
  clock?: () => number;
  secret?: () => string;
  /** Minutes a session lasts once the link is opened (never less than the link's own lifetime). @default 60 */
  sessionMinutes?: number;
}

/** Who is on the page: the request that acts, and what the terms-of-service attestation records. */
export interface Visitor {
  requestId: string;
  ip: string;
  userAgent: string;
}

export interface HostedSession {
  secret: string;
  expiresAt: number;
}

/** What a visit comes to; `pages.ts` turns it into HTML or a redirect. */
export type HostedOutcome =
  | { kind: 'unknown' }
  | { kind: 'refresh'; url: string }
  | { kind: 'unavailable'; status: number; message: string }
  | {
      kind: 'form';
      status: number;
      link: AccountLink;
      account: V2Account;
      fields: RequirementField[];
      values: FormValues;
      issues: FormIssue[];
      /** Earlier inputs were saved and these fields came up next. */
      saved: boolean;
      session?: HostedSession;
    }
  | { kind: 'done'; link: AccountLink };

/** The hosted flow's updates act as the link's platform, as a request of their own. */
const originOf = (link: AccountLink, visitor: Visitor): EventOrigin => ({
  scope: link.scope,
  platformId: link.platformId,
  request: { id: visitor.requestId, idempotencyKey: null },
  apiVersion: defaultServiceVersion,
});

/**
 * The reference's `v2.core.account_link.returned` (SDK 23.1.0 `V2CoreAccountLinkReturnedEvent`): `data` names
 * the account, the link's configurations and its use case; it has no related object (a link has no id).
 */
export const accountLinkReturned = (link: AccountLink): EventInput => ({
  kind: 'thin',
  type: 'v2.core.account_link.returned',
  relatedObject: null,
  changes: null,
  data: { account_id: link.account, configurations: link.useCase.configurations, use_case: link.useCase.type },
});

const fieldsFor = (account: V2Account, link: AccountLink): RequirementField[] =>
  fieldsToCollect(account, link.useCase.configurations, {
    fields: link.useCase.collection_options.fields,
    futureRequirements: link.useCase.collection_options.future_requirements,
  });

/**
 * The status of a hosted page that shows what the account refused: the visitor's input (400), an account
 * gone (404), not the platform's to change (403), changed meanwhile (409), or too many changes at once (429).
 */
function statusOf(error: ServiceError): number {
  if (error instanceof NotFoundError) return 404;
  if (error instanceof PermissionError) return 403;
  if (error instanceof ConflictError) return 409;
  if (error instanceof RateLimitError) return 429;
  if (error instanceof InvalidRequestError) return 400;
  return 400;
}

/**
 * The hosted page behind an account link. The first visit opens the link (its single use, a conditional
 * write) and starts a session whose secret only that browser holds; the form posts must present it.
 * Anything expired, used or without the session goes to the link's refresh_url.
 */
export function hostedFlow({ links, accounts, events, apiKeys, failures, clock = systemClock, secret = newSecret, sessionMinutes = 60 }: HostedFlowPorts) {
  const refresh = (link: AccountLink): HostedOutcome => ({ kind: 'refresh', url: link.useCase.refresh_url });

  /** The account the link is for, or why it can no longer be changed. */
  async function accountOf(link: AccountLink, visitor: Visitor): Promise<V2Account | HostedOutcome> {
    try {
      const account = await accounts.retrieve(originOf(link, visitor), link.account);
      if (account.closed) return { kind: 'unavailable', status: 400, message: 'This account is closed, so its details can no longer be changed.' };
      return account;
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      return {
        kind: 'unavailable',
        status: statusOf(error),
        message: 'This account cannot be changed through this link. Ask the business that sent it for help.',
      };
    }
  }

  const isOutcome = (value: V2Account | HostedOutcome): value is HostedOutcome => 'kind' in value;

  /**
   * The link a secret names, or the outcome for a visitor who has none: an unknown secret counts as a
   * failed authentication of the visitor's address (too many, and the address is refused before any read).
   */
  async function linkOf(linkSecret: string, visitor: Visitor, now: number): Promise<{ hash: string; link: AccountLink } | HostedOutcome> {
    try {
      failures.admit(visitor.ip, now);
      const hash = hashSecret(linkSecret);
      const link = isSecretShaped(linkSecret) ? await links.find(hash, now) : undefined;
      if (link) return { hash, link };
      await failures.failed(visitor.ip, now);
      return { kind: 'unknown' };
    } catch (error) {
      if (!(error instanceof RateLimitError)) throw error;
      return {
        kind: 'unavailable',
        status: 429,
        message: 'Too many attempts from your network with links that do not exist. Wait a few seconds, then try again.',
      };
    }
  }

  /** A link dies with the API key that made it (revoked or rolled): it goes where an expired link goes. */
  const keyIsLive = async (link: AccountLink, now: number) => link.keyHash === undefined || isLiveKey(await apiKeys.findApiKey(link.keyHash), now);

  /** Completes the link and emits its return, once: another tab of the session that completed it first is done too, silently. */
  async function finish(hash: string, link: AccountLink, sessionHash: string, now: number, visitor: Visitor): Promise<HostedOutcome> {
    const outbox = events.prepare(originOf(link, visitor), [accountLinkReturned(link)]);
    if (await links.complete(hash, sessionHash, now, outbox)) await events.dispatch(outbox);
    return { kind: 'done', link: { ...link, state: 'completed' } };
  }

  return {
    /** GET: the single use of the link. */
    async open(linkSecret: string, visitor: Visitor): Promise<HostedOutcome> {
      const now = clock();
      const found = await linkOf(linkSecret, visitor, now);
      if ('kind' in found) return found;
      const { hash, link } = found;
      if (link.state !== 'fresh' || link.expiresAt <= now || !(await keyIsLive(link, now))) return refresh(link);
      const session: HostedSession = { secret: secret(), expiresAt: Math.max(link.expiresAt, now + sessionMinutes * 60_000) };
      const sessionHash = hashSecret(session.secret);
      if (!(await links.open(hash, { hash: sessionHash, expiresAt: session.expiresAt }, now))) return refresh(link);
      const opened: AccountLink = { ...link, state: 'opened', sessionHash, sessionExpiresAt: session.expiresAt };
      const account = await accountOf(opened, visitor);
      if (isOutcome(account)) return account;
      const fields = fieldsFor(account, opened);
      if (fields.length === 0) return finish(hash, opened, sessionHash, now, visitor);
      return { kind: 'form', status: 200, link: opened, account, fields, values: {}, issues: [], saved: false, session };
    },

    /** POST: saves the inputs through the account service, then asks for what is still due or finishes. */
    async submit(linkSecret: string, sessionSecret: string | undefined, values: FormValues, visitor: Visitor): Promise<HostedOutcome> {
      const now = clock();
      const found = await linkOf(linkSecret, visitor, now);
      if ('kind' in found) return found;
      const { hash, link } = found;
      const sessionHash = sessionSecret ? hashSecret(sessionSecret) : undefined;
      if (link.state !== 'opened' || !sessionHash || link.sessionHash !== sessionHash || (link.sessionExpiresAt ?? 0) <= now) return refresh(link);
      if (!(await keyIsLive(link, now))) return refresh(link);
      const account = await accountOf(link, visitor);
      if (isOutcome(account)) return account;
      const fields = fieldsFor(account, link);
      if (fields.length === 0) return finish(hash, link, sessionHash, now, visitor);

      const form = (status: number, issues: FormIssue[]): HostedOutcome => ({ kind: 'form', status, link, account, fields, values, issues, saved: false });
      const read = readFields(fields, values, { account, now, ip: visitor.ip, userAgent: visitor.userAgent });
      if (!read.params) return form(400, read.issues);
      let updated: V2Account;
      try {
        updated = await accounts.update(originOf(link, visitor), link.account, read.params);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        const message =
          error instanceof RateLimitError
            ? 'Too many changes are being made to this account at the moment. Wait a few seconds, then submit the form again.'
            : error.message;
        return form(statusOf(error), [{ input: inputForParam(fields, 'param' in error ? (error.param as string | undefined) : undefined), message }]);
      }
      const next = fieldsFor(updated, link);
      if (next.length > 0) return { kind: 'form', status: 200, link, account: updated, fields: next, values: {}, issues: [], saved: true };
      return finish(hash, link, sessionHash, clock(), visitor);
    },
  };
}
