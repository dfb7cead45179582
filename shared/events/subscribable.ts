import { snapshotEventTypes, thinEventTypes } from './catalogue.ts';
import { referenceSnapshotEventTypes, referenceThinEventTypes } from './reference-event-types.ts';

/**
 * What an endpoint or destination may enable: the types emitted here, every type the reference defines,
 * and those of the spec's table nothing here emits yet.
 */
const subscribableSnapshotTypes: ReadonlySet<string> = new Set([...snapshotEventTypes, ...referenceSnapshotEventTypes]);
const subscribableThinTypes: ReadonlySet<string> = new Set([
  ...thinEventTypes,
  ...referenceThinEventTypes,
  'v2.commerce.product_catalog.imports.failed',
  'v2.reporting.report_run.created',
]);

/** A snapshot (v1) event type a webhook endpoint or snapshot destination may enable. */
export const isSnapshotEventType = (type: string): boolean => subscribableSnapshotTypes.has(type);
/** A thin event type a thin destination may enable. */
export const isThinEventType = (type: string): boolean => subscribableThinTypes.has(type);
