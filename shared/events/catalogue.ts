/**
 * The snapshot (v1) event types this service emits or will emit for its resources. v1 webhook endpoints
 * and snapshot event destinations may subscribe to these (or `*` on v1 endpoints); anything else is a 400.
 */
export const snapshotEventTypes = [
  'account.updated',
  'billing.meter.created',
  'billing.meter.deactivated',
  'billing.meter.reactivated',
  'billing.meter.updated',
  'customer.created',
  'customer.deleted',
  'customer.updated',
  'customer.subscription.created',
  'customer.subscription.deleted',
  'customer.subscription.updated',
  'issuing_authorization.created',
  'issuing_authorization.request',
  'issuing_authorization.updated',
  'issuing_card.created',
  'issuing_card.updated',
  'issuing_cardholder.created',
  'issuing_cardholder.updated',
  'person.created',
  'person.deleted',
  'person.updated',
  'price.created',
  'price.deleted',
  'price.updated',
  'product.created',
  'product.deleted',
  'product.updated',
] as const;

const snapshotTypeSet: ReadonlySet<string> = new Set(snapshotEventTypes);

export const isSnapshotEventType = (type: string): boolean => snapshotTypeSet.has(type);
