import type { LoaderGroup } from './loaders/common.ts';
import { mergeLoaderGroups } from './loaders/common.ts';
import { expandableFields, type IdTarget, type IncludedField, type ObjectType } from './objects.ts';
import { type ExpansionLoaders, type Expander, expander } from './resolver.ts';

/** The id targets and included fields `expand[]` can reach from a response of type `root` (objects.ts). */
export function reachableFrom(root: ObjectType): { targets: Set<IdTarget>; included: Set<IncludedField> } {
  const targets = new Set<IdTarget>();
  const included = new Set<IncludedField>();
  const seen = new Set<ObjectType>([root]);
  const queue: ObjectType[] = [root];
  for (let type = queue.shift(); type !== undefined; type = queue.shift()) {
    for (const [field, declaration] of Object.entries(expandableFields[type])) {
      if (declaration.kind === 'id') targets.add(declaration.to);
      if (declaration.kind === 'included') included.add(`${type}.${field}` as IncludedField);
      const next = declaration.to;
      if (next && !seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return { targets, included };
}

/**
 * The expander of a function whose responses are objects (or lists) of type `root`, on the loader groups
 * (./loaders/) that type's `expand[]` can reach, each group on the real repositories: a function bundles
 * the serializers and repositories of those groups only (docs/architecture.md, *Wiring per operation*).
 * A group left out is an error at cold start naming the type, so a handler cannot be wired short; handlers
 * call this once at module scope and pass it to `httpHandler`.
 */
export function wireExpander(root: ObjectType, ...groups: ReadonlyArray<() => LoaderGroup>): Expander {
  const loaders = mergeLoaderGroups(groups.map((wire) => wire()));
  const { targets, included } = reachableFrom(root);
  const missing = [...[...targets].filter((target) => !loaders.objects[target]), ...[...included].filter((field) => !loaders.included[field])];
  if (missing.length > 0) throw new Error(`The expander of ${root} needs the loader groups of: ${missing.join(', ')}`);
  return expander(loaders as ExpansionLoaders);
}
