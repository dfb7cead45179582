import type { Outbox } from '#shared/events/event.ts';
import type { OwnedResourceStore } from '#shared/platform/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';

/** A v1 billing meter as the service keeps it. */
export interface Meter {
  id: string;
  scope: Scope;
  created: number;
  updated: number;
  displayName: string;
  eventName: string;
  /** Payload key holding the customer id (`customer_mapping`, type `by_id`). */
  customerPayloadKey: string;
  /** Payload key holding the value (`value_settings`). */
  valuePayloadKey: string;
  formula: 'count' | 'last' | 'sum';
  eventTimeWindow: 'day' | 'hour' | null;
  status: 'active' | 'inactive';
  deactivatedAt: number | null;
  version: number;
}

/** Storage port for meters: owned resources, plus the unique event name. */
export interface MeterRepository extends Omit<OwnedResourceStore<Meter>, 'create'> {
  /** Stores a new meter unless another meter of the owner has its event name (then returns false). */
  create(meter: Meter, outbox?: Outbox): Promise<boolean>;
  /** The meter that records events of this name, if any. */
  findByEventName(scope: Scope, eventName: string): Promise<Meter | undefined>;
}
