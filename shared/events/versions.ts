import { renderAtVersion } from '#shared/versions/render.ts';
import { previousAttributes } from './changes.ts';

type WireObject = Record<string, unknown>;

/**
 * An object as events stored before the version chain existed may hold it, in the newest shape: a
 * subscription's `billing_mode` as a string beside `billing_mode_details`, `aggregate_usage: null` on a
 * price's `recurring` and on a plan. Objects stored since are in the newest shape already.
 */
function newestShape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(newestShape);
  if (value === null || typeof value !== 'object') return value;
  let object = value as WireObject;
  if (object.object === 'subscription' && typeof object.billing_mode === 'string') {
    const details = object.billing_mode_details as { updated_at?: number; flexible?: unknown } | null | undefined;
    const flexible = object.billing_mode === 'flexible' ? (details?.flexible ?? { proration_discounts: 'included' }) : null;
    const mode = { type: object.billing_mode, flexible, ...(details?.updated_at === undefined ? {} : { updated_at: details.updated_at }) };
    object = Object.fromEntries(
      Object.entries(object)
        .filter(([key]) => key !== 'billing_mode_details')
        .map(([key, field]) => [key, key === 'billing_mode' ? mode : field]),
    );
  }
  if (object.object === 'plan' && object.aggregate_usage === null)
    object = Object.fromEntries(Object.entries(object).filter(([key]) => key !== 'aggregate_usage'));
  if (object.object === 'price' && object.recurring && typeof object.recurring === 'object' && 'aggregate_usage' in object.recurring) {
    const { aggregate_usage: _dropped, ...recurring } = object.recurring as WireObject;
    object = { ...object, recurring };
  }
  return Object.fromEntries(Object.entries(object).map(([key, field]) => [key, newestShape(field)]));
}

/**
 * A snapshot event's `data.object` and `previous_attributes` rendered at `version`, down the chain of
 * version changes (`shared/versions/changes.ts`): the object is stored in the newest shape and rendered for
 * a destination or endpoint pinned to a version, or a caller that names one. The attributes before the
 * change are rebuilt from the object and its previous attributes, rendered alike, and compared again.
 */
export function snapshotDataAt(object: WireObject, previous: WireObject | null, version: string): { object: WireObject; previous: WireObject | null } {
  const rendered = renderAtVersion(newestShape(object) as WireObject, version);
  if (!previous) return { object: rendered, previous: null };
  const before = renderAtVersion(newestShape({ ...object, ...previous }) as WireObject, version);
  return { object: rendered, previous: previousAttributes(before, rendered) };
}
