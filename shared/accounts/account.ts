import type { OwnedResource, OwnedResourceStore } from '#shared/platform/owned-resource.ts';
import type { Outbox } from '#shared/events/event.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { TokenUse } from '#shared/tokens/token.ts';
import type { ConfigurationName } from './capabilities.ts';

/** One configuration of an account as stored: whether it is applied, what it asks for, and its settings. */
export interface StoredConfiguration {
  applied: boolean;
  /** Requested capabilities by dotted name (`card_payments`, `bank_accounts.ach`). */
  requested: Record<string, boolean>;
  /** The configuration's own settings in API shape, without `applied` and `capabilities`. */
  settings: Record<string, unknown>;
}

/**
 * A v2 account, owned by the platform that created it (its scope is the platform's). `identity` and
 * `defaults` are kept in API shape; id numbers keep only their `type`, never their value.
 */
export interface V2Account extends OwnedResource {
  created: number;
  closed: boolean;
  contactEmail: string | null;
  contactPhone: string | null;
  displayName: string | null;
  dashboard: 'express' | 'full' | 'none' | null;
  metadata: Record<string, string>;
  configuration: Partial<Record<ConfigurationName, StoredConfiguration>>;
  defaults: Record<string, unknown> | null;
  identity: Record<string, unknown> | null;
}

/** A new account that holds nothing yet: open, no configuration, identity or defaults. */
export const blankAccount = (id: string, scope: Scope, created: number): V2Account => ({
  id,
  scope,
  version: 1,
  created,
  closed: false,
  contactEmail: null,
  contactPhone: null,
  displayName: null,
  dashboard: null,
  metadata: {},
  configuration: {},
  defaults: null,
  identity: null,
});

export interface AccountRepository extends Omit<OwnedResourceStore<V2Account>, 'create'> {
  /**
   * Stores a new account together with its account record (what lets its platform act inside it), using
   * up the `account_token` it was made with in the same transaction.
   */
  create(account: V2Account, platformId: string, outbox: Outbox, using?: TokenUse): Promise<void>;
}

/** A person of an account. It lives in the account's own partition (its scope is the account's). */
export interface AccountPerson extends OwnedResource {
  created: number;
  updated: number;
  /** The person's fields in API shape (without id, object, account, created, updated, livemode). */
  fields: Record<string, unknown>;
}

export type PersonRepository = OwnedResourceStore<AccountPerson>;
