import type { Outbox } from '#shared/events/event.ts';
import type { Meter } from '#shared/meters/meter.ts';
import type { OwnedResource } from '#shared/platform/owned-resource.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';

/** The reference's statuses: `archived` is final and leaves the list. */
export type AlertStatus = 'active' | 'inactive' | 'archived';

/** A v1 billing alert (`usage_threshold`, `one_time`) as the service keeps it. */
export interface BillingAlert extends OwnedResource {
  /** The platform whose endpoints and destinations its `billing.alert.triggered` event fans out to. */
  platformId: string;
  created: number;
  title: string;
  status: AlertStatus;
  usageThreshold: {
    meterId: string;
    /** The meter's formula, copied at creation (a meter's formula never changes): evaluation reads no meter. */
    formula: Meter['formula'];
    gte: number;
    /** The one customer of its filter: an alert for every customer is refused (see the evaluator). */
    customerId: string;
    recurrence: 'one_time';
  };
  /** When it fired for its customer (`one_time`: at most once, ever); null until then. */
  triggeredAt: number | null;
}

/** One firing of an alert for a customer, recorded with its event's outbox. */
export interface AlertTrigger {
  alertId: string;
  customerId: string;
  /** The usage that reached `gte`. */
  value: number;
  at: number;
}

/** Non-archived alerts one meter and customer may have (the reference's limit). */
export const maxAlertsPerMeterAndCustomer = 25;

/** Storage port for billing alerts. */
export interface BillingAlertRepository {
  /** Stores a new alert unless its meter and customer already have `limit` alerts not archived (then false). */
  create(alert: BillingAlert, limit: number): Promise<boolean>;
  get(scope: BillingAlert['scope'], id: string): Promise<BillingAlert | undefined>;
  /**
   * Writes `next` over `before` (as read) if the stored version is still `before.version`; false otherwise.
   * Archiving frees the alert's place under the cap.
   */
  replace(next: BillingAlert, before: BillingAlert): Promise<boolean>;
  /** Newest first, archived alerts left out; `meterId` keeps one meter's. */
  list(scope: BillingAlert['scope'], page: PageRequest, meterId?: string): Promise<Page<BillingAlert>>;
  /** Every alert still waiting for its threshold (active, not fired), a page at a time, for the evaluator. */
  pending(): AsyncIterable<BillingAlert[]>;
  /**
   * In one transaction: the trigger record, put only if this alert never fired for this customer; the alert
   * marked fired (leaving the pending set), only if still active at the version read; and the event's outbox.
   * False when either condition failed (fired already, or changed meanwhile) or another transaction collided
   * with it: nothing was written.
   */
  trigger(alert: BillingAlert, trigger: AlertTrigger, outbox: Outbox): Promise<boolean>;
}
