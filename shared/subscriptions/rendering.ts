/**
 * How `billing_mode` is rendered. The spec shows the older rendering: `billing_mode` is a string
 * (`classic` / `flexible`) beside `billing_mode_details: {updated_at}`. In the reference API's later
 * versions `billing_mode` is an object `{type, flexible, updated_at}` and `billing_mode_details` is gone.
 *
 * The rule this service follows: the spec's string rendering is the default (requests naming no version);
 * a request whose `Service-Version` (or the official SDK's `Stripe-Version`, which it always sends) names
 * `2025-08-27` or later gets the object rendering. A snapshot event is rendered at the version it names
 * (see `shared/events/serializers.ts` and `versions.ts`).
 */
export type BillingModeRendering = 'string' | 'object';

export const objectRenderingSince = '2025-08-27';

export const billingModeRendering = (requestedVersion: string | null): BillingModeRendering =>
  requestedVersion !== null && requestedVersion.slice(0, 10) >= objectRenderingSince ? 'object' : 'string';

type WireObject = Record<string, unknown>;

/**
 * A serialized subscription, in either rendering, in the one asked for. Both renderings carry the type,
 * the flexible options and `updated_at`, so this loses nothing; it keeps the fields' order.
 */
export function renderBillingMode(subscription: WireObject, rendering: BillingModeRendering): WireObject {
  const mode = subscription.billing_mode;
  if (mode === undefined || mode === null || (typeof mode === 'string') === (rendering === 'string')) return subscription;
  const replacement: WireObject = typeof mode === 'string' ? asObject(mode, subscription.billing_mode_details as Details | null) : asString(mode as ObjectMode);
  const rendered: WireObject = {};
  for (const [key, value] of Object.entries(subscription)) {
    if (key === 'billing_mode') Object.assign(rendered, replacement);
    else if (key !== 'billing_mode_details') rendered[key] = value;
  }
  return rendered;
}

interface Details {
  updated_at?: number;
  flexible?: unknown;
}

interface ObjectMode {
  type: string;
  flexible: unknown;
  updated_at?: number;
}

function asObject(type: string, details: Details | null): WireObject {
  const flexible = type === 'flexible' ? (details?.flexible ?? { proration_discounts: 'included' }) : null;
  return { billing_mode: { type, flexible, ...(details?.updated_at === undefined ? {} : { updated_at: details.updated_at }) } };
}

function asString(mode: ObjectMode): WireObject {
  return {
    billing_mode: mode.type,
    billing_mode_details: mode.updated_at === undefined ? null : { updated_at: mode.updated_at, ...(mode.flexible ? { flexible: mode.flexible } : {}) },
  };
}
