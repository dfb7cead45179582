import type * as z from 'zod';
import { isoTimestamp } from '#shared/wire/timestamps.ts';
import type { AccountPerson, V2Account } from './account.ts';
import { configurationNames, nestDotted, type ConfigurationName } from './capabilities.ts';
import { capabilityStates, requirementsOf } from './requirements.ts';
import { includeValues, type AccountInclude } from './read-schemas.ts';
import type { AccountToken, PersonToken } from './token-service.ts';
import type { accountObject, personObject, deletedPersonObject, accountTokenObject, personTokenObject } from './objects.ts';

export const accountUrl = (id: string) => `/v2/core/accounts/${id}`;

export const personUrl = (accountId: string, id: string) => `/v2/core/accounts/${accountId}/persons/${id}`;

export const appliedConfigurations = (account: V2Account): ConfigurationName[] => configurationNames.filter((name) => account.configuration[name]?.applied);

/** Who collects requirements follows who bears losses, as in the reference. */
function renderDefaults(account: V2Account) {
  const { responsibilities, ...rest } = (account.defaults ?? {}) as { responsibilities?: { fees_collector: string; losses_collector: string } };
  const fees = responsibilities?.fees_collector ?? 'service';
  const losses = responsibilities?.losses_collector ?? 'service';
  return {
    ...rest,
    responsibilities: { fees_collector: fees, losses_collector: losses, requirements_collector: losses === 'application' ? 'application' : 'service' },
  };
}

function renderIdentity(account: V2Account) {
  if (!account.identity) return null;
  const { individual, ...rest } = account.identity as { individual?: Record<string, unknown> };
  if (!individual) return rest;
  return { ...rest, individual: { ...individual, object: 'v2.core.account_person', account: account.id } };
}

function renderConfiguration(account: V2Account, name: ConfigurationName, states: ReturnType<typeof capabilityStates>) {
  const config = account.configuration[name];
  if (!config) return null;
  return { applied: config.applied, capabilities: nestDotted(states[name]), ...config.settings };
}

/** The v2 account; the optional sections appear only when named in `include` (null otherwise). */
export function serializeAccount(account: V2Account, include: readonly AccountInclude[] = []): z.input<typeof accountObject> {
  const wants = (section: AccountInclude) => include.includes(section);
  const wantsConfiguration = configurationNames.filter((name) => wants(`configuration.${name}`));
  const states = wantsConfiguration.length > 0 ? capabilityStates(account) : undefined;
  const requirements = wants('requirements') || wants('future_requirements') ? requirementsOf(account) : undefined;
  return {
    id: account.id,
    object: 'v2.core.account',
    applied_configurations: appliedConfigurations(account),
    closed: account.closed,
    configuration: states ? Object.fromEntries(wantsConfiguration.map((name) => [name, renderConfiguration(account, name, states)])) : null,
    contact_email: account.contactEmail,
    contact_phone: account.contactPhone,
    created: isoTimestamp(account.created),
    dashboard: account.dashboard,
    defaults: wants('defaults') ? renderDefaults(account) : null,
    display_name: account.displayName,
    future_requirements: requirements && wants('future_requirements') ? requirements.futureRequirements : null,
    identity: wants('identity') ? renderIdentity(account) : null,
    livemode: account.scope.livemode,
    metadata: account.metadata,
    requirements: requirements && wants('requirements') ? requirements.requirements : null,
  };
}

/** Every section, as events record the account. */
export const serializeFullAccount = (account: V2Account) => serializeAccount(account, includeValues);

export function serializePerson(person: AccountPerson): z.input<typeof personObject> {
  return {
    id: person.id,
    object: 'v2.core.account_person',
    account: person.scope.accountId,
    ...person.fields,
    created: isoTimestamp(person.created),
    livemode: person.scope.livemode,
    metadata: (person.fields.metadata as Record<string, string> | undefined) ?? {},
    updated: isoTimestamp(person.updated),
  };
}

/** `v2.core.account_token` / `v2.core.account_person_token`: no data comes back, only the token's state. */
function serializeV2Token<O extends string>(object: O, token: { id: string; created: number; expiresAt: number; scope: { livemode: boolean }; used: boolean }) {
  return {
    id: token.id,
    object,
    created: isoTimestamp(token.created),
    expires_at: isoTimestamp(token.expiresAt),
    livemode: token.scope.livemode,
    used: token.used,
  };
}

export const serializeAccountToken = (token: AccountToken): z.input<typeof accountTokenObject> => serializeV2Token('v2.core.account_token', token);

export const serializePersonToken = (token: PersonToken): z.input<typeof personTokenObject> => serializeV2Token('v2.core.account_person_token', token);

export const serializeDeletedPerson = (person: AccountPerson): z.input<typeof deletedPersonObject> => ({
  id: person.id,
  object: 'v2.core.account_person',
  deleted: true,
});
