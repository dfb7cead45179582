import { createHash } from 'node:crypto';
import type { ConfigurationName } from '#shared/accounts/capabilities.ts';
import type { Outbox } from '#shared/events/event.ts';
import { randomBase62 } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';

export const useCaseTypes = ['account_onboarding', 'account_update'] as const;
export type UseCaseType = (typeof useCaseTypes)[number];

export interface CollectionOptions {
  fields: 'currently_due' | 'eventually_due';
  future_requirements: 'include' | 'omit';
}

/** What a link collects, in API shape, with the defaults filled in. */
export interface AccountLinkUseCase {
  type: UseCaseType;
  configurations: ConfigurationName[];
  refresh_url: string;
  return_url: string | null;
  collection_options: CollectionOptions;
}

/** `fresh` until its first visit opens it (its single use), `completed` once nothing is left to collect. */
export type AccountLinkState = 'fresh' | 'opened' | 'completed';

/**
 * An account link. It has no id: it is found by the SHA-256 of the secret in its URL, and the secret
 * itself is never stored.
 */
export interface AccountLink {
  account: string;
  /** The scope of the platform that made it, where the account lives; the hosted flow acts in it. */
  scope: Scope;
  platformId: string;
  useCase: AccountLinkUseCase;
  created: number;
  /** After this the link only redirects to its refresh_url. */
  expiresAt: number;
  state: AccountLinkState;
  /** SHA-256 of the hosted session's secret (the browser's cookie), set when the link is opened. */
  sessionHash: string | null;
  /** The session outlives the link's own expiry, so that a form opened just in time can be finished. */
  sessionExpiresAt: number | null;
  /**
   * SHA-256 of the API key that made the link: the link (and its session) works only while that key does.
   * Absent on links stored before it was kept.
   */
  keyHash?: string;
}

/** Storage port. The single use and the session check are conditional writes in the adapter. */
export interface AccountLinkRepository {
  create(link: AccountLink, secretHash: string): Promise<void>;
  /** The link whose secret hashes to `secretHash`, unless its row is past its TTL. */
  find(secretHash: string, now: number): Promise<AccountLink | undefined>;
  /** fresh → opened while unexpired, recording the session. False when it was not fresh or had expired. */
  open(secretHash: string, session: { hash: string; expiresAt: number }, now: number): Promise<boolean>;
  /** opened → completed, only for the session that opened it, with the completion's events written alongside. */
  complete(secretHash: string, sessionHash: string, now: number, outbox: Outbox): Promise<boolean>;
}

/** A link or session secret: 43 base62 characters (about 256 bits). */
export const newSecret = (): string => randomBase62(43);
export const isSecretShaped = (value: string): boolean => /^[0-9A-Za-z]{43}$/.test(value);
export const hashSecret = (secret: string): string => createHash('sha256').update(secret, 'utf8').digest('hex');

/** Where a link's hosted page is served, below the service's public base URL. */
export const hostedLinkPath = (secret: string): string => `/hosted/account_links/${secret}`;
