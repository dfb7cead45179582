import type { Scope } from '#shared/platform/types.ts';
import type { IdTarget, IncludedField } from '../objects.ts';
import type { IncludedLoader, ObjectLoader, Ref } from '../resolver.ts';

export type Json = Record<string, unknown>;
export type Getter<T> = { get(scope: Scope, id: string): Promise<T | undefined> };

/**
 * The loaders of some expandable types (one resource area's), each rendering through its resource's one
 * serializer. A function bundles only the groups its responses can reach (shared/expansion/wiring.ts).
 */
export interface LoaderGroup {
  objects: Partial<Record<IdTarget, ObjectLoader>>;
  included: Partial<Record<IncludedField, IncludedLoader>>;
}

/** An id field's id, whether it is still an id or was expanded at this level already. */
export const idOf = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : typeof value === 'object' && value !== null && typeof (value as Json).id === 'string'
      ? ((value as Json).id as string)
      : undefined;

export const getAll = <T>(repository: Getter<T>, scope: Scope, ids: readonly string[]) => Promise.all(ids.map((id) => repository.get(scope, id)));

export const idsOf = (refs: readonly Ref[]) => refs.map(({ id }) => id);

/** The loaders of several groups as one. */
export const mergeLoaderGroups = (groups: readonly LoaderGroup[]): LoaderGroup => ({
  objects: Object.assign({}, ...groups.map((group) => group.objects)),
  included: Object.assign({}, ...groups.map((group) => group.included)),
});
