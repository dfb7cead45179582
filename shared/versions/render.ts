import { versionChanges, type VersionChange, type WireObject } from './changes.ts';
import { versionPosition } from './known-versions.ts';

type Transforms = Map<string, VersionChange['transform'][]>;

const byVersion = new Map<string, Transforms>();

/** The transforms that bring each resource from the newest shape to `version`'s, newest change first. */
function transformsAt(version: string): Transforms {
  let transforms = byVersion.get(version);
  if (!transforms) {
    const position = versionPosition(version);
    transforms = new Map();
    for (const change of versionChanges) {
      if (versionPosition(change.version) <= position) continue;
      transforms.set(change.resource, [...(transforms.get(change.resource) ?? []), change.transform]);
    }
    byVersion.set(version, transforms);
  }
  return transforms;
}

/** True when objects rendered at `version` differ from the newest shape somewhere. */
export const rendersDifferently = (version: string): boolean => transformsAt(version).size > 0;

function walk(value: unknown, transforms: Transforms): unknown {
  if (Array.isArray(value)) return value.map((element) => walk(element, transforms));
  if (value === null || typeof value !== 'object') return value;
  let object = value as WireObject;
  // An event is rendered at its own version (its `api_version`), whatever the request that reads it names.
  if (object.object === 'event') return object;
  for (const transform of typeof object.object === 'string' ? (transforms.get(object.object) ?? []) : []) object = transform(object);
  // Metadata is the client's own map of strings: a key named `object` in it names no resource.
  return Object.fromEntries(Object.entries(object).map(([key, field]) => [key, key === 'metadata' ? field : walk(field, transforms)]));
}

/**
 * A v1 body (an object, a list or search result, nested and expanded objects included) with every object
 * rendered at `version`: each object, found by its `object` field, goes down the chain of changes from the
 * newest shape, then its fields are rendered in turn. The input is not modified.
 */
export function renderAtVersion<T>(body: T, version: string): T {
  const transforms = transformsAt(version);
  return transforms.size === 0 ? body : (walk(body, transforms) as T);
}
