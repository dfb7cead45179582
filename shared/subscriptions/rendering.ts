/**
 * How `billing_mode` is rendered. The spec shows the older rendering: `billing_mode` is a string
 * (`classic` / `flexible`) beside `billing_mode_details: {updated_at}`. In the reference API's later
 * versions `billing_mode` is an object `{type, flexible, updated_at}` and `billing_mode_details` is gone.
 *
 * The rule this service follows: the spec's string rendering is the default (requests without
 * `Service-Version`, which is how the official SDK calls by default); a request whose `Service-Version`
 * names `2025-08-27` or later gets the object rendering. Snapshot events render the object as the request
 * that caused them saw it.
 */
export type BillingModeRendering = 'string' | 'object';

export const objectRenderingSince = '2025-08-27';

export const billingModeRendering = (requestedVersion: string | null): BillingModeRendering =>
  requestedVersion !== null && requestedVersion.slice(0, 10) >= objectRenderingSince ? 'object' : 'string';
