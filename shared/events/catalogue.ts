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

/**
 * The snapshot types whose thin mirror (`v1.<type>`) the reference does not define; every other one is
 * emitted with its mirror. Listed here rather than derived from reference-event-types.ts so that every
 * function that emits does not bundle the reference's whole list (test/unit/events/catalogue.test.ts checks
 * it against that list).
 */
export const unmirroredSnapshotTypes: ReadonlySet<string> = new Set([
  'customer.source.created',
  'customer.source.deleted',
  'customer.source.updated',
  'invoiceitem.updated',
]);

/** Snapshot types whose thin mirror (`v1.<type>`) is emitted alongside the snapshot event. */
const mirroredSnapshotTypes = snapshotEventTypes.filter((type) => !unmirroredSnapshotTypes.has(type));

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

/** The thin type emitted with a snapshot event, if it has one. */
export const thinMirrorOf = (snapshotType: string): string | undefined => (thinTypeSet.has(`v1.${snapshotType}`) ? `v1.${snapshotType}` : undefined);
