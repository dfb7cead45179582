import { InvalidRequestError, NotFoundError } from '#shared/errors.ts';
import { checkMetadataSize } from '#shared/metadata.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { changeAndEmit } from '#shared/events/versioned-change.ts';
import type { Page, PageRequest } from '#shared/paging.ts';
import { newId } from '#shared/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import { blankAccount, type AccountPerson, type AccountRepository, type PersonRepository, type StoredConfiguration, type V2Account } from './account.ts';
import { configurationNames, flattenRequested, type ConfigurationName } from './capabilities.ts';
import { accountClosedEvents, accountCreatedEvents, accountUpdatedEvents, personEvents } from './events.ts';
import type { AccountsV2Gate } from './gate.ts';
import { mergeUpdate, withoutIdNumberValues } from './merge.ts';
import type { CreateAccountParams, PersonParams, UpdateAccountParams } from './schemas.ts';
import { appliedConfigurations } from './serializer.ts';
import type { TokenConsumer } from '#shared/tokens/consume.ts';
import { accountIdentityFromToken, personFieldsFromToken } from './token-data.ts';
import type { AccountUpdateLimiter } from './update-limit.ts';

export interface AccountServicePorts {
  accounts: AccountRepository;
  persons: PersonRepository;
  events: EventEmitter;
  gate: AccountsV2Gate;
  limiter: AccountUpdateLimiter;
  tokens: TokenConsumer;
  clock?: () => number;
}

type AccountParams = CreateAccountParams | UpdateAccountParams;

/** The account's configurations after a create or update: a named configuration is applied unless `applied: false`. */
function applyConfiguration(current: V2Account['configuration'], given: AccountParams['configuration']): V2Account['configuration'] {
  const next = { ...current };
  for (const name of configurationNames) {
    const params = given?.[name] as (Record<string, unknown> & { applied?: boolean; capabilities?: Record<string, unknown> }) | undefined;
    if (!params) continue;
    const { applied, capabilities, ...settings } = params;
    const existing: StoredConfiguration = current[name] ?? { applied: false, requested: {}, settings: {} };
    next[name] = {
      applied: applied ?? true,
      requested: { ...existing.requested, ...flattenRequested(capabilities) },
      settings: mergeUpdate(existing.settings, settings),
    };
  }
  return next;
}

function applyIdentity(current: V2Account['identity'], given: Record<string, unknown> | undefined, now: number): V2Account['identity'] {
  if (!given) return current;
  const next = mergeUpdate(current, withoutIdNumberValues(given));
  const individual = next.individual as Record<string, unknown> | undefined;
  if (individual && given.individual) {
    const before = (current?.individual ?? {}) as { id?: string; created?: string };
    next.individual = {
      ...individual,
      id: before.id ?? newId('person', now),
      created: before.created ?? new Date(now).toISOString(),
      updated: new Date(now).toISOString(),
    };
  }
  return next;
}

function applyAccountParams(current: V2Account, params: AccountParams, now: number): V2Account {
  const pick = <T>(value: T | undefined, fallback: T) => (value === undefined ? fallback : value);
  return {
    ...current,
    contactEmail: pick(params.contact_email, current.contactEmail),
    contactPhone: pick(params.contact_phone, current.contactPhone),
    displayName: pick(params.display_name, current.displayName),
    dashboard: pick(params.dashboard, current.dashboard),
    metadata: params.metadata ? checkMetadataSize(mergeUpdate(current.metadata, params.metadata) as Record<string, string>) : current.metadata,
    configuration: applyConfiguration(current.configuration, params.configuration),
    defaults: params.defaults ? mergeUpdate(current.defaults, params.defaults) : current.defaults,
    identity: applyIdentity(current.identity, params.identity as Record<string, unknown> | undefined, now),
  };
}

function refuseTokenWithIdentity(params: { account_token?: string; identity?: unknown }) {
  if (params.account_token !== undefined && params.identity !== undefined) {
    throw new InvalidRequestError(
      'account_token already carries the identity; send identity either in the token or in the request, not both.',
      'parameter_invalid',
      'identity',
    );
  }
}

/** v2 accounts and their persons, behind the accounts v2 gate and the per-account update limit. */
export function accountService({ accounts, persons, events, gate, limiter, tokens, clock = Date.now }: AccountServicePorts) {
  async function existing(scope: Scope, id: string): Promise<V2Account> {
    const account = await accounts.get(scope, id);
    if (!account) throw new NotFoundError('account', id);
    return account;
  }

  async function open(scope: Scope, id: string): Promise<V2Account> {
    const account = await existing(scope, id);
    if (account.closed) throw new InvalidRequestError(`Account ${id} is closed; a closed account cannot be changed.`, 'account_closed');
    return account;
  }

  /**
   * The account as `first` holds it on the first call (read before taking an update slot, to check who owns
   * it), then fresh from the table: a retry after a lost optimistic race must see the winner's write.
   */
  function thenFresh<T>(first: T, reload: () => Promise<T>): () => Promise<T> {
    let used = false;
    return () => {
      if (used) return reload();
      used = true;
      return Promise.resolve(first);
    };
  }

  const personScope = (account: V2Account): Scope => ({ accountId: account.id, livemode: account.scope.livemode });

  async function existingPerson(account: V2Account, id: string): Promise<AccountPerson> {
    const person = await persons.get(personScope(account), id);
    if (!person) throw new NotFoundError('person', id);
    return person;
  }

  /** The identity a token brings, consumed (single use) only once the rest of the request is valid. */
  async function tokenIdentity(scope: Scope, token: string | undefined): Promise<Record<string, unknown> | undefined> {
    if (token === undefined) return undefined;
    return accountIdentityFromToken((await tokens.consume(scope, token, 'account', 'account_token')).account);
  }

  async function personTokenFields(scope: Scope, token: string | undefined): Promise<Record<string, unknown> | undefined> {
    if (token === undefined) return undefined;
    return personFieldsFromToken((await tokens.consume(scope, token, 'person', 'person_token')).person);
  }

  function applyPersonParams(current: AccountPerson, params: Record<string, unknown>, now: number): AccountPerson {
    return { ...current, fields: mergeUpdate(current.fields, withoutIdNumberValues(params)), updated: now };
  }

  return {
    async create(origin: EventOrigin, params: CreateAccountParams): Promise<V2Account> {
      await gate(origin.platformId);
      refuseTokenWithIdentity(params);
      const now = clock();
      const { account_token: token, include: _include, ...rest } = params;
      let account = applyAccountParams(blankAccount(newId('acct', now), origin.scope, now), rest, now);
      const identity = await tokenIdentity(origin.scope, token);
      if (identity) account = { ...account, identity: applyIdentity(account.identity, identity, now) };
      const outbox = events.prepare(origin, accountCreatedEvents(account));
      await accounts.create(account, origin.platformId, outbox);
      await events.dispatch(outbox);
      return account;
    },

    async retrieve(origin: EventOrigin, id: string): Promise<V2Account> {
      await gate(origin.platformId);
      return existing(origin.scope, id);
    },

    async list(origin: EventOrigin, page: PageRequest, filters: { appliedConfigurations?: ConfigurationName[]; closed?: boolean }): Promise<Page<V2Account>> {
      await gate(origin.platformId);
      const where: Record<string, unknown> = { closed: filters.closed ?? false };
      for (const name of filters.appliedConfigurations ?? []) where[`configuration.${name}.applied`] = true;
      return accounts.list(origin.scope, page, where);
    },

    async update(origin: EventOrigin, id: string, params: UpdateAccountParams): Promise<V2Account> {
      await gate(origin.platformId);
      refuseTokenWithIdentity(params);
      const { account_token: token, include: _include, ...rest } = params;
      const account = await open(origin.scope, id);
      return limiter(origin.scope, id, async () => {
        const identity = await tokenIdentity(origin.scope, token);
        return changeAndEmit(
          { repository: accounts, events },
          origin,
          thenFresh(account, () => open(origin.scope, id)),
          (current) => {
            const now = clock();
            const next = applyAccountParams(current, rest, now);
            return identity ? { ...next, identity: applyIdentity(next.identity, identity, now) } : next;
          },
          (next, current) => accountUpdatedEvents(next, current),
        );
      });
    },

    async close(origin: EventOrigin, id: string, params: { applied_configurations?: ConfigurationName[] }): Promise<V2Account> {
      await gate(origin.platformId);
      const account = await open(origin.scope, id);
      return limiter(origin.scope, id, () =>
        changeAndEmit(
          { repository: accounts, events },
          origin,
          thenFresh(account, () => open(origin.scope, id)),
          (current) => {
            const applied = appliedConfigurations(current);
            const named = params.applied_configurations;
            if (named && (named.length !== applied.length || applied.some((name) => !named.includes(name)))) {
              throw new InvalidRequestError(
                `applied_configurations must list every configuration applied on the account (${applied.join(', ') || 'none'}).`,
                'parameter_invalid',
                'applied_configurations',
              );
            }
            return { ...current, closed: true };
          },
          (next, current) => accountClosedEvents(next, current),
        ),
      );
    },

    async createPerson(origin: EventOrigin, accountId: string, params: PersonParams): Promise<AccountPerson> {
      await gate(origin.platformId);
      const account = await open(origin.scope, accountId);
      return limiter(origin.scope, accountId, async () => {
        const { person_token: token, ...fields } = params;
        const now = clock();
        const blank: AccountPerson = { id: newId('person', now), scope: personScope(account), version: 1, created: now, updated: now, fields: {} };
        let person = applyPersonParams(blank, fields, now);
        const fromToken = await personTokenFields(origin.scope, token);
        if (fromToken) person = applyPersonParams(person, fromToken, now);
        const outbox = events.prepare(origin, personEvents('created', person));
        await persons.create(person, { outbox });
        await events.dispatch(outbox);
        return person;
      });
    },

    async retrievePerson(origin: EventOrigin, accountId: string, id: string): Promise<AccountPerson> {
      await gate(origin.platformId);
      return existingPerson(await existing(origin.scope, accountId), id);
    },

    async listPersons(origin: EventOrigin, accountId: string, page: PageRequest): Promise<Page<AccountPerson>> {
      await gate(origin.platformId);
      const account = await existing(origin.scope, accountId);
      return persons.list(personScope(account), page);
    },

    async updatePerson(origin: EventOrigin, accountId: string, id: string, params: PersonParams): Promise<AccountPerson> {
      await gate(origin.platformId);
      const account = await open(origin.scope, accountId);
      const person = await existingPerson(account, id);
      return limiter(origin.scope, accountId, async () => {
        const { person_token: token, ...fields } = params;
        const fromToken = await personTokenFields(origin.scope, token);
        return changeAndEmit(
          { repository: persons, events },
          origin,
          thenFresh(person, () => existingPerson(account, id)),
          (current) => {
            const now = clock();
            const next = applyPersonParams(current, fields, now);
            return fromToken ? applyPersonParams(next, fromToken, now) : next;
          },
          (next, current) => personEvents('updated', next, current),
        );
      });
    },

    async deletePerson(origin: EventOrigin, accountId: string, id: string): Promise<AccountPerson> {
      await gate(origin.platformId);
      const account = await open(origin.scope, accountId);
      const person = await existingPerson(account, id);
      return limiter(origin.scope, accountId, async () => {
        const outbox = events.prepare(origin, personEvents('deleted', person));
        if (!(await persons.delete(person.scope, id, outbox))) throw new NotFoundError('person', id);
        await events.dispatch(outbox);
        return person;
      });
    },
  };
}

export type AccountService = ReturnType<typeof accountService>;
