import { referenceSnapshotEventTypes, referenceThinEventTypes } from './reference-event-types.ts';
/**
 * The event types this service emits. Subscriptions (`enabled_events`) are checked against these lists:
 * snapshot types for v1 webhook endpoints (or `*`) and snapshot destinations, thin types for thin ones.
 */
export const snapshotEventTypes = [
  'account.updated',
  'billing.alert.triggered',
  'billing.meter.created',
  'billing.meter.deactivated',
  'billing.meter.reactivated',
  'billing.meter.updated',
  'customer.created',
  'customer.deleted',
  'customer.source.created',
  'customer.source.deleted',
  'customer.source.updated',
  'customer.updated',
  'customer.subscription.created',
  'customer.subscription.deleted',
  'customer.subscription.updated',
  'invoice.created',
  'invoice.deleted',
  'invoice.finalized',
  'invoice.marked_uncollectible',
  'invoice.paid',
  'invoice.payment_failed',
  'invoice.payment_succeeded',
  'invoice.sent',
  'invoice.updated',
  'invoice.voided',
  'invoiceitem.created',
  'invoiceitem.deleted',
  'invoiceitem.updated',
  'issuing_authorization.created',
  'issuing_authorization.request',
  'issuing_authorization.updated',
  'issuing_card.created',
  'issuing_card.updated',
  'issuing_cardholder.created',
  'issuing_cardholder.updated',
  'issuing_transaction.created',
  'issuing_transaction.updated',
  'person.created',
  'person.deleted',
  'person.updated',
  'price.created',
  'price.deleted',
  'price.updated',
  'product.created',
  'product.deleted',
  'product.updated',
  'test_helpers.test_clock.advancing',
  'test_helpers.test_clock.created',
  'test_helpers.test_clock.deleted',
  'test_helpers.test_clock.internal_failure',
  'test_helpers.test_clock.ready',
] as const;

const referenceThinTypes: ReadonlySet<string> = new Set(referenceThinEventTypes);

/**
 * Snapshot types whose thin mirror (`v1.<type>`) is emitted alongside the snapshot event: those whose
 * mirror the reference defines (not `customer.source.*`).
 */
const mirroredSnapshotTypes = snapshotEventTypes.filter((type) => referenceThinTypes.has(`v1.${type}`));

export const thinEventTypes = [
  'v1.billing.meter.error_report_triggered',
  'v1.billing.meter.no_meter_found',
  'v2.core.account.closed',
  'v2.core.account.created',
  'v2.core.account.updated',
  'v2.core.account[configuration.customer].capability_status_updated',
  'v2.core.account[configuration.customer].updated',
  'v2.core.account[configuration.merchant].capability_status_updated',
  'v2.core.account[configuration.merchant].updated',
  'v2.core.account[configuration.recipient].capability_status_updated',
  'v2.core.account[configuration.recipient].updated',
  'v2.core.account[defaults].updated',
  'v2.core.account[identity].updated',
  'v2.core.account[requirements].updated',
  'v2.core.account_link.returned',
  'v2.core.account_person.created',
  'v2.core.account_person.deleted',
  'v2.core.account_person.updated',
  'v2.core.event_destination.ping',
  ...mirroredSnapshotTypes.map((type) => `v1.${type}`),
] as const;

const thinTypeSet: ReadonlySet<string> = new Set(thinEventTypes);

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

/** The thin type emitted with a snapshot event, if it has one. */
export const thinMirrorOf = (snapshotType: string): string | undefined => (thinTypeSet.has(`v1.${snapshotType}`) ? `v1.${snapshotType}` : undefined);
