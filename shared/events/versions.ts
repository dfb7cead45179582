import { billingModeRendering, renderBillingMode } from '#shared/subscriptions/rendering.ts';
import { previousAttributes } from './changes.ts';

type WireObject = Record<string, unknown>;

/** How an object whose wire shape depends on the version is rendered at one, by its `object` value. */
const versionedObjects: Record<string, (object: WireObject, version: string) => WireObject> = {
  subscription: (object, version) => renderBillingMode(object, billingModeRendering(version)),
};

/**
 * A snapshot event's `data.object` and `previous_attributes` rendered at `version`: an object is stored as
 * the request that caused the event saw it, and re-rendered for a destination pinned to another version
 * or a caller that names one. The attributes before the change are rebuilt from the object and its
 * previous attributes, rendered alike, and compared again.
 */
export function snapshotDataAt(object: WireObject, previous: WireObject | null, version: string): { object: WireObject; previous: WireObject | null } {
  const render = versionedObjects[String(object.object)];
  if (!render) return { object, previous };
  const rendered = render(object, version);
  return { object: rendered, previous: previous ? previousAttributes(render({ ...object, ...previous }, version), rendered) : null };
}
