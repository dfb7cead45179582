import type { EventInput, RelatedObject } from './event.ts';

/** The top-level fields whose rendered value changed, with their values before (v1 `previous_attributes`). */
export function previousAttributes(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, unknown> {
  const changed: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changed[key] = before[key] ?? null;
  }
  return changed;
}

/** A snapshot event input for a v1 object rendered as its GET returns it. */
export function snapshotInput(
  type: string,
  object: Record<string, unknown> & { id: string; object: string },
  url: string,
  before?: Record<string, unknown>,
): EventInput {
  const relatedObject: RelatedObject = { id: object.id, type: object.object, url };
  return { kind: 'snapshot', type, object, relatedObject, ...(before ? { previousAttributes: previousAttributes(before, object) } : {}) };
}
