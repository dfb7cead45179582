import { systemClock } from '#shared/core/clock.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { changeAndEmit } from '#shared/events/versioned-change.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';
import { newId } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Meter, MeterRepository } from './meter.ts';
import type { CreateMeterParams } from './schemas.ts';
import { serializeMeter } from './serializer.ts';

export interface MeterServicePorts {
  repository: MeterRepository;
  events: EventEmitter;
  clock?: () => number;
}

/** The payload key that names the customer when a meter does not say (`<provider>_customer_id` in the reference). */
export const defaultCustomerPayloadKey = 'service_customer_id';

const change = (type: string, meter: Meter, before?: Meter) =>
  snapshotInput(type, serializeMeter(meter), `/v1/billing/meters/${meter.id}`, before ? serializeMeter(before) : undefined);

/** v1 billing meters: what meter events are matched against. Each change emits its `billing.meter.*` event. */
export function meterService({ repository, events, clock = systemClock }: MeterServicePorts) {
  async function existing(scope: Scope, id: string): Promise<Meter> {
    const meter = await repository.get(scope, id);
    if (!meter) throw new NotFoundError('billing meter', id);
    return meter;
  }

  /** A change that emits `type`; `apply` may refuse it (by throwing) given the current meter. */
  const changeMeter = (origin: EventOrigin, id: string, type: string, apply: (current: Meter, now: number) => Meter) =>
    changeAndEmit(
      { repository, events },
      origin,
      () => existing(origin.scope, id),
      (current) => {
        const now = clock();
        return { ...apply(current, now), updated: now };
      },
      (next, current) => [change(type, next, current)],
    );

  return {
    async create(origin: EventOrigin, params: CreateMeterParams): Promise<Meter> {
      const now = clock();
      const meter: Meter = {
        id: newId('mtr', now),
        scope: origin.scope,
        created: now,
        updated: now,
        displayName: params.display_name,
        eventName: params.event_name,
        customerPayloadKey: params.customer_mapping?.event_payload_key ?? defaultCustomerPayloadKey,
        valuePayloadKey: params.value_settings?.event_payload_key ?? 'value',
        formula: params.default_aggregation.formula,
        eventTimeWindow: params.event_time_window ?? null,
        status: 'active',
        deactivatedAt: null,
        version: 1,
      };
      const outbox = events.prepare(origin, [change('billing.meter.created', meter)]);
      if (!(await repository.create(meter, outbox))) {
        throw new InvalidRequestError(`A meter with event_name '${params.event_name}' already exists.`, 'meter_event_name_taken', 'event_name');
      }
      await events.dispatch(outbox);
      return meter;
    },

    retrieve: existing,

    update: (origin: EventOrigin, id: string, params: { display_name?: string }) =>
      changeMeter(origin, id, 'billing.meter.updated', (current) => ({ ...current, displayName: params.display_name ?? current.displayName })),

    deactivate: (origin: EventOrigin, id: string) =>
      changeMeter(origin, id, 'billing.meter.deactivated', (current, now) => {
        if (current.status === 'inactive') throw new InvalidRequestError(`The meter ${id} is already inactive.`, 'meter_already_inactive', 'id');
        return { ...current, status: 'inactive', deactivatedAt: now };
      }),

    reactivate: (origin: EventOrigin, id: string) =>
      changeMeter(origin, id, 'billing.meter.reactivated', (current) => {
        if (current.status === 'active') throw new InvalidRequestError(`The meter ${id} is already active.`, 'meter_already_active', 'id');
        return { ...current, status: 'active', deactivatedAt: null };
      }),

    list(scope: Scope, page: PageRequest, status?: Meter['status']): Promise<Page<Meter>> {
      return repository.list(scope, page, status ? { status } : undefined);
    },
  };
}
