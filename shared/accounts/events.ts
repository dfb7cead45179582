import type { EventInput, RelatedObject } from '#shared/events/event.ts';
import type { AccountPerson, V2Account } from './account.ts';
import { configurationNames } from './capabilities.ts';
import { capabilityStates } from './requirements.ts';
import { accountUrl, personUrl, serializeFullAccount, serializePerson } from './serializer.ts';

const related = (account: V2Account): RelatedObject => ({ id: account.id, type: 'v2.core.account', url: accountUrl(account.id) });

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The top-level fields of two renderings that differ, as `{before, after}` with only those fields. */
function changed(before: Record<string, unknown>, after: Record<string, unknown>, fields: readonly string[]) {
  const keys = fields.filter((key) => !same(before[key], after[key]));
  if (keys.length === 0) return undefined;
  return { before: Object.fromEntries(keys.map((key) => [key, before[key] ?? null])), after: Object.fromEntries(keys.map((key) => [key, after[key] ?? null])) };
}

const thin = (
  type: string,
  account: V2Account,
  changes: { before: unknown; after: unknown } | null,
  data: Record<string, unknown> | null = null,
): EventInput => ({
  kind: 'thin',
  type,
  relatedObject: related(account),
  changes,
  data,
});

export function accountCreatedEvents(account: V2Account): EventInput[] {
  return [thin('v2.core.account.created', account, { before: null, after: serializeFullAccount(account) })];
}

export function accountClosedEvents(next: V2Account, current: V2Account): EventInput[] {
  return [thin('v2.core.account.closed', next, { before: { closed: current.closed }, after: { closed: next.closed } })];
}

/**
 * The events of an account update: `.updated` with every top-level field that changed, one
 * `[section].updated` per changed section (identity, defaults, requirements, each configuration), and one
 * `[configuration.x].capability_status_updated` per capability whose status changed.
 */
export function accountUpdatedEvents(next: V2Account, current: V2Account): EventInput[] {
  const before = serializeFullAccount(current) as unknown as Record<string, unknown>;
  const after = serializeFullAccount(next) as unknown as Record<string, unknown>;
  const topLevel = Object.keys(after).filter((key) => key !== 'id' && key !== 'object' && key !== 'created' && key !== 'livemode');
  const events: EventInput[] = [];
  const overall = changed(before, after, topLevel);
  if (!overall) return events;
  events.push(thin('v2.core.account.updated', next, overall));
  for (const section of ['identity', 'defaults', 'requirements'] as const) {
    const diff = changed(before, after, [section]);
    if (diff) events.push(thin(`v2.core.account[${section}].updated`, next, diff));
  }
  const configBefore = (before.configuration ?? {}) as Record<string, unknown>;
  const configAfter = (after.configuration ?? {}) as Record<string, unknown>;
  const statesBefore = capabilityStates(current);
  const statesAfter = capabilityStates(next);
  for (const name of configurationNames) {
    if (!same(configBefore[name], configAfter[name])) {
      events.push(
        thin(`v2.core.account[configuration.${name}].updated`, next, {
          before: { configuration: { [name]: configBefore[name] ?? null } },
          after: { configuration: { [name]: configAfter[name] ?? null } },
        }),
      );
    }
    const capabilities = new Set([...Object.keys(statesBefore[name]), ...Object.keys(statesAfter[name])]);
    for (const capability of capabilities) {
      if (same(statesBefore[name][capability]?.status, statesAfter[name][capability]?.status)) continue;
      events.push(thin(`v2.core.account[configuration.${name}].capability_status_updated`, next, null, { updated_capability: capability }));
    }
  }
  return events;
}

const personRelated = (person: AccountPerson): RelatedObject => ({
  id: person.id,
  type: 'v2.core.account_person',
  url: personUrl(person.scope.accountId, person.id),
});

function personChanges(before: AccountPerson, after: AccountPerson) {
  const rendered = (person: AccountPerson) => serializePerson(person) as unknown as Record<string, unknown>;
  const [from, to] = [rendered(before), rendered(after)];
  return changed(
    from,
    to,
    [...new Set([...Object.keys(from), ...Object.keys(to)])].filter((key) => key !== 'updated'),
  );
}

export function personEvents(type: 'created' | 'updated' | 'deleted', person: AccountPerson, before?: AccountPerson): EventInput[] {
  const changes =
    type === 'created'
      ? { before: null, after: serializePerson(person) }
      : type === 'deleted'
        ? { before: serializePerson(person), after: null }
        : personChanges(before!, person);
  if (!changes) return [];
  return [
    { kind: 'thin', type: `v2.core.account_person.${type}`, relatedObject: personRelated(person), changes, data: { account_id: person.scope.accountId } },
  ];
}
