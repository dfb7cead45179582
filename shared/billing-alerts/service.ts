import { systemClock } from '#shared/core/clock.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { newId } from '#shared/core/ids.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import type { MeterRepository } from '#shared/meters/meter.ts';
import { withOptimisticRetries } from '#shared/platform/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';
import { type AlertStatus, type BillingAlert, type BillingAlertRepository, maxAlertsPerMeterAndCustomer } from './alert.ts';
import type { CreateAlertParams } from './schemas.ts';

export interface BillingAlertServicePorts {
  repository: BillingAlertRepository;
  meters: Pick<MeterRepository, 'get'>;
  /** Whether a live (not deleted) customer with this id exists in the scope. */
  customerExists: (scope: Scope, id: string) => Promise<boolean>;
  clock?: () => number;
}

type Transition = 'activate' | 'deactivate' | 'archive';

/**
 * The status moves the reference allows: activate an inactive alert, deactivate an active one, archive
 * either (for good). Anything else is refused, naming the alert's status.
 */
export function transition(alert: Pick<BillingAlert, 'id' | 'status'>, move: Transition): AlertStatus {
  const refuse = (message: string, code: string) => new InvalidRequestError(message, code, 'id');
  if (alert.status === 'archived') throw refuse(`The alert ${alert.id} is archived; an archived alert cannot be changed.`, 'alert_archived');
  if (move === 'archive') return 'archived';
  if (move === 'activate') {
    if (alert.status === 'active') throw refuse(`The alert ${alert.id} is already active.`, 'alert_already_active');
    return 'active';
  }
  if (alert.status === 'inactive') throw refuse(`The alert ${alert.id} is already inactive.`, 'alert_already_inactive');
  return 'inactive';
}

/** v1 billing alerts: usage thresholds on a meter for one customer. Their evaluation is `alertEvaluator`'s. */
export function billingAlertService({ repository, meters, customerExists, clock = systemClock }: BillingAlertServicePorts) {
  async function existing(scope: Scope, id: string): Promise<BillingAlert> {
    const alert = await repository.get(scope, id);
    if (!alert) throw new NotFoundError('billing alert', id);
    return alert;
  }

  const move = (scope: Scope, id: string, to: Transition) =>
    withOptimisticRetries(async () => {
      const current = await existing(scope, id);
      const next: BillingAlert = { ...current, status: transition(current, to), version: current.version + 1 };
      return (await repository.replace(next, current)) ? next : undefined;
    });

  return {
    async create(origin: EventOrigin, params: CreateAlertParams): Promise<BillingAlert> {
      const threshold = params.usage_threshold;
      const customerId = threshold.filters?.[0]?.customer;
      if (customerId === undefined) {
        // The usage items are kept per meter and customer; no index lists a meter's customers, so an alert
        // for every customer could only be evaluated by scanning the table.
        throw new InvalidRequestError(
          'An alert needs a customer filter (usage_threshold[filters][0][type]=customer with usage_threshold[filters][0][customer]); alerts over all customers are not supported.',
          'parameter_missing',
          threshold.filters?.length ? 'usage_threshold[filters][0][customer]' : 'usage_threshold[filters]',
        );
      }
      const meter = await meters.get(origin.scope, threshold.meter);
      if (!meter) throw new InvalidRequestError(`No such billing meter: '${threshold.meter}'`, 'resource_missing', 'usage_threshold[meter]');
      if (meter.status !== 'active') {
        throw new InvalidRequestError(`The meter ${meter.id} is inactive; alerts can only watch an active meter.`, 'archived_meter', 'usage_threshold[meter]');
      }
      if (!(await customerExists(origin.scope, customerId))) {
        throw new InvalidRequestError(`No such customer: '${customerId}'`, 'resource_missing', 'usage_threshold[filters][0][customer]');
      }
      const now = clock();
      const alert: BillingAlert = {
        id: newId('alrt', now),
        scope: origin.scope,
        platformId: origin.platformId,
        version: 1,
        created: now,
        title: params.title,
        status: 'active',
        usageThreshold: { meterId: meter.id, formula: meter.formula, gte: threshold.gte, customerId, recurrence: threshold.recurrence },
        triggeredAt: null,
      };
      if (!(await repository.create(alert, maxAlertsPerMeterAndCustomer))) {
        throw new InvalidRequestError(
          `The meter ${meter.id} already has ${maxAlertsPerMeterAndCustomer} alerts for customer ${customerId}; archive one first.`,
          'alert_limit_reached',
          'usage_threshold[meter]',
        );
      }
      return alert;
    },

    retrieve: existing,

    list(scope: Scope, page: PageRequest, meterId?: string): Promise<Page<BillingAlert>> {
      return repository.list(scope, page, meterId);
    },

    activate: (scope: Scope, id: string) => move(scope, id, 'activate'),
    deactivate: (scope: Scope, id: string) => move(scope, id, 'deactivate'),
    archive: (scope: Scope, id: string) => move(scope, id, 'archive'),
  };
}
