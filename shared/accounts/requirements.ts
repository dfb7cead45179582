import type { V2Account } from './account.ts';
import { capabilitiesOf, configurationNames, type CapabilityState, type ConfigurationName } from './capabilities.ts';

/**
 * What an account still has to provide, computed from what it holds. The rules are this service's own
 * (the reference does not publish its requirement rules), kept small and written down here:
 *
 * - Every requested capability of an applied configuration needs `identity.country` and
 *   `identity.entity_type`, then the names of who the account is: given name, surname, date of birth and
 *   address for an individual; registered name and address for a company, non-profit or government entity.
 * - merchant capabilities also need the terms-of-service attestation, `configuration.merchant.mcc`,
 *   `defaults.profile.business_url`, and (individuals) an email; an id number is eventually due.
 * - recipient capabilities also need the terms-of-service attestation; an id number is eventually due.
 * - customer `automatic_indirect_tax` needs the country and an address.
 * - Future requirements (a rule that starts applying later): nationalities for individuals and the
 *   estimated worker count for businesses, for merchant capabilities, from 180 days after creation.
 *
 * A capability with a currently due requirement is `restricted` (`requirements_past_due`,
 * `provide_info`); one with nothing currently due is `active`.
 */

export type DeadlineStatus = 'currently_due' | 'eventually_due' | 'past_due';

/** A field the hosted flow can collect, by its path in the account (also the entry's `description`). */
export const requirementFields = [
  'identity.country',
  'identity.entity_type',
  'identity.individual.given_name',
  'identity.individual.surname',
  'identity.individual.date_of_birth',
  'identity.individual.address',
  'identity.individual.email',
  'identity.individual.id_numbers',
  'identity.individual.nationalities',
  'identity.business_details.registered_name',
  'identity.business_details.address',
  'identity.business_details.id_numbers',
  'identity.business_details.estimated_worker_count',
  'identity.attestations.terms_of_service.account',
  'configuration.merchant.mcc',
  'defaults.profile.business_url',
] as const;
export type RequirementField = (typeof requirementFields)[number];

interface Need {
  field: RequirementField;
  due: 'currently_due' | 'eventually_due';
}

export interface RestrictedCapability {
  capability: string;
  configuration: ConfigurationName;
  deadline: { status: DeadlineStatus };
}

/** A requirements entry in API shape. */
export interface RequirementEntry {
  awaiting_action_from: 'user';
  description: RequirementField;
  errors: { code: string; description: string }[];
  impact: { restricts_capabilities: RestrictedCapability[] };
  minimum_deadline: { status: DeadlineStatus };
  requested_reasons: { code: 'routine_onboarding' }[];
}

export interface Requirements {
  entries: RequirementEntry[];
  summary?: { minimum_deadline: { status: DeadlineStatus; time?: string } };
}

export interface FutureRequirements extends Requirements {
  minimum_transition_date?: string;
}

const futureAfterMillis = 180 * 24 * 60 * 60 * 1000;
const businessTypes = new Set(['company', 'non_profit', 'government_entity']);

/** Reads a dotted path of the account's identity, defaults or configuration settings. */
export function valueAt(account: V2Account, path: string): unknown {
  const [root, ...rest] = path.split('.');
  let node: unknown =
    root === 'identity' ? account.identity : root === 'defaults' ? account.defaults : root === 'configuration' ? configurationSettings(account) : undefined;
  for (const part of rest) node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  return node;
}

const configurationSettings = (account: V2Account) =>
  Object.fromEntries(Object.entries(account.configuration).map(([name, config]) => [name, config?.settings]));

function provided(account: V2Account, field: RequirementField): boolean {
  const value = valueAt(account, field);
  if (value === undefined || value === null || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (field.endsWith('.address')) return Boolean((value as Record<string, unknown>).line1 && (value as Record<string, unknown>).country);
  if (field === 'identity.attestations.terms_of_service.account') return Boolean((value as Record<string, unknown>).date);
  return true;
}

function identityNeeds(entityType: unknown): RequirementField[] {
  if (entityType === 'individual')
    return ['identity.individual.given_name', 'identity.individual.surname', 'identity.individual.date_of_birth', 'identity.individual.address'];
  if (businessTypes.has(entityType as string)) return ['identity.business_details.registered_name', 'identity.business_details.address'];
  return [];
}

/** What one requested capability needs, before looking at what the account has. */
function needsOf(account: V2Account, configuration: ConfigurationName): { now: Need[]; future: RequirementField[] } {
  const entityType = account.identity?.entity_type;
  const individual = entityType === 'individual';
  const business = businessTypes.has(entityType as string);
  const base: RequirementField[] = ['identity.country', 'identity.entity_type'];
  const need = (fields: RequirementField[], due: Need['due'] = 'currently_due'): Need[] => fields.map((field) => ({ field, due }));
  const idNumber: RequirementField[] = individual ? ['identity.individual.id_numbers'] : business ? ['identity.business_details.id_numbers'] : [];
  switch (configuration) {
    case 'merchant':
      return {
        now: [
          ...need([...base, ...identityNeeds(entityType), ...(individual ? (['identity.individual.email'] as const) : [])]),
          ...need(['identity.attestations.terms_of_service.account', 'configuration.merchant.mcc', 'defaults.profile.business_url']),
          ...need(idNumber, 'eventually_due'),
        ],
        future: individual ? ['identity.individual.nationalities'] : business ? ['identity.business_details.estimated_worker_count'] : [],
      };
    case 'recipient':
      return {
        now: [...need([...base, ...identityNeeds(entityType), 'identity.attestations.terms_of_service.account']), ...need(idNumber, 'eventually_due')],
        future: [],
      };
    case 'customer': {
      const address: RequirementField[] = individual
        ? ['identity.individual.address']
        : business
          ? ['identity.business_details.address']
          : ['identity.entity_type'];
      return { now: need(['identity.country', ...address]), future: [] };
    }
  }
}

/** The capabilities an account asks for: requested ones of applied configurations. */
export function requestedCapabilities(account: V2Account): { configuration: ConfigurationName; capability: string }[] {
  const requested: { configuration: ConfigurationName; capability: string }[] = [];
  for (const configuration of configurationNames) {
    const config = account.configuration[configuration];
    if (!config?.applied) continue;
    for (const capability of capabilitiesOf[configuration]) if (config.requested[capability]) requested.push({ configuration, capability });
  }
  return requested;
}

const entry = (field: RequirementField, restricts: RestrictedCapability[]): RequirementEntry => {
  const urgent = restricts.some((item) => item.deadline.status === 'currently_due');
  return {
    awaiting_action_from: 'user',
    description: field,
    errors: [],
    impact: { restricts_capabilities: restricts },
    minimum_deadline: { status: urgent ? 'currently_due' : 'eventually_due' },
    requested_reasons: [{ code: 'routine_onboarding' }],
  };
};

function collect(needs: Map<RequirementField, RestrictedCapability[]>): Requirements {
  const entries = [...needs].map(([field, restricts]) => entry(field, restricts));
  if (entries.length === 0) return { entries };
  const status = entries.some((item) => item.minimum_deadline.status === 'currently_due') ? 'currently_due' : 'eventually_due';
  return { entries, summary: { minimum_deadline: { status } } };
}

/** The account's requirements and future requirements, in API shape. */
export function requirementsOf(account: V2Account): { requirements: Requirements; futureRequirements: FutureRequirements } {
  const current = new Map<RequirementField, RestrictedCapability[]>();
  const future = new Map<RequirementField, RestrictedCapability[]>();
  const add = (map: typeof current, field: RequirementField, restricted: RestrictedCapability) => {
    if (provided(account, field)) return;
    map.set(field, [...(map.get(field) ?? []), restricted]);
  };
  for (const { configuration, capability } of requestedCapabilities(account)) {
    const { now, future: later } = needsOf(account, configuration);
    for (const need of now) add(current, need.field, { capability, configuration, deadline: { status: need.due } });
    for (const field of later) add(future, field, { capability, configuration, deadline: { status: 'currently_due' } });
  }
  const futureRequirements: FutureRequirements = collect(future);
  if (futureRequirements.entries.length > 0) {
    const transition = new Date(account.created + futureAfterMillis).toISOString();
    futureRequirements.minimum_transition_date = transition;
    futureRequirements.summary = { minimum_deadline: { status: 'currently_due', time: transition } };
  }
  return { requirements: collect(current), futureRequirements };
}

/** Each requested capability's status, by configuration and dotted capability name. */
export function capabilityStates(account: V2Account): Record<ConfigurationName, Record<string, CapabilityState>> {
  const { requirements } = requirementsOf(account);
  const states: Record<ConfigurationName, Record<string, CapabilityState>> = { customer: {}, merchant: {}, recipient: {} };
  for (const { configuration, capability } of requestedCapabilities(account)) {
    const blocked = requirements.entries.some((item) =>
      item.impact.restricts_capabilities.some(
        (restricted) => restricted.configuration === configuration && restricted.capability === capability && restricted.deadline.status === 'currently_due',
      ),
    );
    states[configuration][capability] = blocked
      ? { status: 'restricted', status_details: [{ code: 'requirements_past_due', resolution: 'provide_info' }] }
      : { status: 'active', status_details: [] };
  }
  return states;
}

/** What a hosted flow for these configurations and collection options should ask for. */
export function fieldsToCollect(
  account: V2Account,
  configurations: readonly ConfigurationName[],
  options: { fields: 'currently_due' | 'eventually_due'; futureRequirements: 'include' | 'omit' },
): RequirementField[] {
  const { requirements, futureRequirements } = requirementsOf(account);
  const wanted = (item: RequirementEntry) =>
    item.impact.restricts_capabilities.some(
      (restricted) =>
        configurations.includes(restricted.configuration) && (options.fields === 'eventually_due' || restricted.deadline.status === 'currently_due'),
    );
  const fields = requirements.entries.filter(wanted).map((item) => item.description);
  if (options.futureRequirements === 'include') fields.push(...futureRequirements.entries.filter(wanted).map((item) => item.description));
  return [...new Set(fields)];
}
