import * as z from 'zod';
import { deletedObject, isoTime, metadataObject, openObject } from '#shared/http/objects.ts';
import { isoTimestamp } from '#shared/http/timestamps.ts';
import type { AccountPerson, V2Account } from './account.ts';
import { configurationNames, nestDotted, type ConfigurationName } from './capabilities.ts';
import { capabilityStates, requirementsOf } from './requirements.ts';
import { includeValues, type AccountInclude } from './schemas.ts';
import type { AccountToken, PersonToken } from './token-service.ts';

const deadlineStatus = z.enum(['currently_due', 'eventually_due', 'past_due']);

const requirementsObject = z
  .object({
    entries: z.array(
      z.object({
        awaiting_action_from: z.literal('user'),
        description: z.string(),
        errors: z.array(z.object({ code: z.string(), description: z.string() })),
        impact: z.object({
          restricts_capabilities: z.array(
            z.object({ capability: z.string(), configuration: z.enum(configurationNames), deadline: z.object({ status: deadlineStatus }) }),
          ),
        }),
        minimum_deadline: z.object({ status: deadlineStatus }),
        requested_reasons: z.array(z.object({ code: z.literal('routine_onboarding') })),
      }),
    ),
    summary: z.object({ minimum_deadline: z.object({ status: deadlineStatus, time: z.string().optional() }) }).optional(),
    /** `future_requirements` only. */
    minimum_transition_date: z.string().optional(),
  })
  .meta({ id: 'V2CoreAccountRequirements' });

const configurationObject = z.looseObject({ applied: z.boolean(), capabilities: openObject });

export const accountObject = z
  .object({
    id: z.string(),
    object: z.literal('v2.core.account'),
    applied_configurations: z.array(z.enum(configurationNames)),
    closed: z.boolean(),
    /** Null unless a `configuration.*` section is named in `include`; then each included configuration, null when not set up. */
    configuration: z.partialRecord(z.enum(configurationNames), configurationObject.nullable()).nullable(),
    contact_email: z.string().nullable(),
    contact_phone: z.string().nullable(),
    created: isoTime,
    dashboard: z.enum(['express', 'full', 'none']).nullable(),
    /** Null unless `defaults` is included. */
    defaults: openObject.nullable(),
    display_name: z.string().nullable(),
    future_requirements: requirementsObject.nullable(),
    /** Null unless `identity` is included. */
    identity: openObject.nullable(),
    livemode: z.boolean(),
    metadata: metadataObject,
    requirements: requirementsObject.nullable(),
  })
  .meta({ id: 'V2CoreAccount' });

/** The person's own fields are the ones it was given (names, address, relationship, …) beside these. */
export const personObject = z
  .looseObject({
    id: z.string(),
    object: z.literal('v2.core.account_person'),
    account: z.string(),
    created: isoTime,
    livemode: z.boolean(),
    metadata: metadataObject,
    updated: isoTime,
  })
  .meta({ id: 'V2CoreAccountPerson' });

export const deletedPersonObject = deletedObject('v2.core.account_person').meta({ id: 'V2CoreDeletedAccountPerson' });

const v2TokenObject = <O extends string>(object: O) =>
  z.object({ id: z.string(), object: z.literal(object), created: isoTime, expires_at: isoTime, livemode: z.boolean(), used: z.boolean() });

export const accountTokenObject = v2TokenObject('v2.core.account_token').meta({ id: 'V2CoreAccountToken' });
export const personTokenObject = v2TokenObject('v2.core.account_person_token').meta({ id: 'V2CoreAccountPersonToken' });

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
