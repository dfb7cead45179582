import { systemClock } from '#shared/core/clock.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { checkMetadataSize } from '#shared/wire/metadata.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { changeAndEmit } from '#shared/events/versioned-change.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';
import { newId } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import { blankAccount, type AccountPerson, type AccountRepository, type PersonRepository, type StoredConfiguration, type V2Account } from './account.ts';
import { configurationNames, flattenRequested, type ConfigurationName } from './capabilities.ts';
import { accountClosedEvents, accountCreatedEvents, accountUpdatedEvents, personEvents } from './events.ts';
import type { AccountsV2Gate } from './gate.ts';
import { mergeUpdate, withoutIdNumberValues } from './merge.ts';
import type { CreateAccountParams, PersonParams, UpdateAccountParams } from './schemas.ts';
import { appliedConfigurations } from './serializer.ts';
import type { TokenRepository, TokenUse } from '#shared/tokens/token.ts';
import { tokenForUse } from '#shared/tokens/use.ts';
import { accountParamsFromToken, personParamsFromToken } from './token-data.ts';
import type { AccountUpdateLimiter } from './update-limit.ts';

export interface AccountServicePorts {
  accounts: AccountRepository;
  persons: PersonRepository;
  events: EventEmitter;
  gate: AccountsV2Gate;
  limiter: AccountUpdateLimiter;
  /** Where `account_token` and `person_token` are read; the writes that use them up mark them used. */
  tokens: Pick<TokenRepository, 'get'>;
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

/** What a token brings to a write (the parameters it stands for) and the use of it that goes into the write. */
interface FromToken {
  params: Record<string, unknown>;
  use: TokenUse;
}

const exclusive = (token: string, given: string) =>
  new InvalidRequestError(
    `You may only specify one of these parameters: ${token}, ${given}. The token carries the ${given === 'identity' ? 'identity' : `person's details`}; send them in the token or in the request, not both.`,
    'parameters_exclusive',
    given,
  );

/** The identity comes in the token or in the request, never both (as the reference refuses it). */
function refuseTokenWithIdentity(params: { account_token?: string; identity?: unknown }) {
  if (params.account_token !== undefined && params.identity !== undefined) throw exclusive('account_token', 'identity');
}

/** A person's details come in the token or in the request; only `metadata` may be added to a person token's. */
function refuseTokenWithPersonFields(params: Record<string, unknown>) {
  if (params.person_token === undefined) return;
  const given = Object.keys(params).find((name) => name !== 'person_token' && name !== 'metadata' && params[name] !== undefined);
  if (given) throw exclusive('person_token', given);
}

/** The request's own parameters with a token's: a member both give is refused, naming it. */
function withTokenParams<P extends Record<string, unknown>>(params: P, fromToken: FromToken | undefined): P {
  if (!fromToken) return params;
  for (const [name, value] of Object.entries(fromToken.params)) {
    if (name !== 'metadata' && value !== undefined && params[name] !== undefined) {
      throw new InvalidRequestError(
        `${name} is in both the request and ${fromToken.use.param} '${fromToken.use.id}'; send it in one of them.`,
        'parameters_exclusive',
        name,
      );
    }
  }
  const metadata = fromToken.params.metadata || params.metadata ? { ...(fromToken.params.metadata as object), ...(params.metadata as object) } : undefined;
  return { ...params, ...fromToken.params, ...(metadata ? { metadata } : {}) };
}

/** v2 accounts and their persons, behind the accounts v2 gate and the per-account update limit. */
export function accountService({ accounts, persons, events, gate, limiter, tokens, clock = systemClock }: AccountServicePorts) {
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

  /**
   * An account token of the caller's platform and mode, unused and unexpired: a v2 account token, or a v1
   * `account` token (`POST /v1/tokens`, accepted too). The write that applies it uses it up.
   */
  async function accountToken(scope: Scope, tokenId: string | undefined): Promise<FromToken | undefined> {
    if (tokenId === undefined) return undefined;
    const { token, use } = await tokenForUse(tokens, scope, tokenId, ['v2_account', 'account'], 'account_token', clock());
    return { params: accountParamsFromToken(token), use };
  }

  /** A person token as `accountToken`, which must also have been made for this account (v1 `person` tokens belong to no account). */
  async function personToken(account: V2Account, tokenId: string | undefined): Promise<FromToken | undefined> {
    if (tokenId === undefined) return undefined;
    const { token, use } = await tokenForUse(tokens, account.scope, tokenId, ['v2_person', 'person'], 'person_token', clock());
    if (token.type === 'v2_person' && token.accountId !== account.id) {
      throw new InvalidRequestError(
        `Invalid person_token: '${tokenId}' was created for account ${token.accountId}, not ${account.id}; create a person token for ${account.id}.`,
        'parameter_invalid',
        'person_token',
      );
    }
    return { params: personParamsFromToken(token), use };
  }

  function applyPersonParams(current: AccountPerson, params: Record<string, unknown>, now: number): AccountPerson {
    return { ...current, fields: mergeUpdate(current.fields, withoutIdNumberValues(params)), updated: now };
  }

  return {
    async create(origin: EventOrigin, params: CreateAccountParams): Promise<V2Account> {
      await gate(origin.platformId);
      refuseTokenWithIdentity(params);
      const { account_token: tokenId, include: _include, ...rest } = params;
      const fromToken = await accountToken(origin.scope, tokenId);
      const now = clock();
      const account = applyAccountParams(blankAccount(newId('acct', now), origin.scope, now), withTokenParams(rest, fromToken), now);
      const outbox = events.prepare(origin, accountCreatedEvents(account));
      await accounts.create(account, origin.platformId, outbox, fromToken?.use);
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
      const { account_token: tokenId, include: _include, ...rest } = params;
      const account = await open(origin.scope, id);
      return limiter(origin.scope, id, async () => {
        const fromToken = await accountToken(origin.scope, tokenId);
        const given = withTokenParams(rest, fromToken);
        return changeAndEmit(
          { repository: accounts, events },
          origin,
          thenFresh(account, () => open(origin.scope, id)),
          (current) => applyAccountParams(current, given, clock()),
          (next, current) => accountUpdatedEvents(next, current),
          fromToken?.use,
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
      refuseTokenWithPersonFields(params);
      const account = await open(origin.scope, accountId);
      return limiter(origin.scope, accountId, async () => {
        const { person_token: tokenId, ...fields } = params;
        const fromToken = await personToken(account, tokenId);
        const now = clock();
        const blank: AccountPerson = { id: newId('person', now), scope: personScope(account), version: 1, created: now, updated: now, fields: {} };
        const person = applyPersonParams(blank, withTokenParams(fields, fromToken), now);
        const outbox = events.prepare(origin, personEvents('created', person));
        await persons.create(person, { outbox, using: fromToken?.use });
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
      refuseTokenWithPersonFields(params);
      const account = await open(origin.scope, accountId);
      const person = await existingPerson(account, id);
      return limiter(origin.scope, accountId, async () => {
        const { person_token: tokenId, ...fields } = params;
        const fromToken = await personToken(account, tokenId);
        const given = withTokenParams(fields, fromToken);
        return changeAndEmit(
          { repository: persons, events },
          origin,
          thenFresh(person, () => existingPerson(account, id)),
          (current) => applyPersonParams(current, given, clock()),
          (next, current) => personEvents('updated', next, current),
          fromToken?.use,
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
