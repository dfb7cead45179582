import { describe, expect, it } from 'vitest';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { createMeterParams } from '#shared/meters/schemas.ts';
import { meterService } from '#shared/meters/service.ts';
import type { Scope } from '#shared/platform/types.ts';
import { memoryMeterRepository, originOf, recordingEmitter } from '../../support/fakes.ts';

const scope: Scope = { accountId: 'acct_meters', livemode: false };
const live: Scope = { ...scope, livemode: true };
const params = (eventName: string) => createMeterParams.parse({ display_name: eventName, event_name: eventName, default_aggregation: { formula: 'sum' } });

function setup() {
  const repository = memoryMeterRepository();
  const recorded = recordingEmitter();
  let now = 1_700_000_000_000;
  return { service: meterService({ repository, events: recorded.events, clock: () => now++ }), repository, written: recorded.written };
}

describe('meters (service with the shared fakes)', () => {
  it('creates a meter with the default payload keys, and refuses a second one with the same event name in the same mode', async () => {
    const { service, repository, written } = setup();
    const meter = await service.create(originOf(scope), params('api_calls'));
    expect(meter).toMatchObject({ status: 'active', customerPayloadKey: 'service_customer_id', valuePayloadKey: 'value', formula: 'sum' });
    expect(written[0]!.snapshotEvents[0]).toMatchObject({ type: 'billing.meter.created' });
    await expect(service.create(originOf(scope), params('api_calls'))).rejects.toMatchObject({ code: 'meter_event_name_taken' });
    // The other mode has names of its own
    await service.create(originOf(live), params('api_calls'));
    expect(await repository.findByEventName(live, 'api_calls')).toBeDefined();
  });

  it('deactivates and reactivates once each way, and lists by status', async () => {
    const { service } = setup();
    const meter = await service.create(originOf(scope), params('storage'));
    await service.create(originOf(scope), params('seats'));
    const inactive = await service.deactivate(originOf(scope), meter.id);
    expect(inactive).toMatchObject({ status: 'inactive', version: 2 });
    expect(inactive.deactivatedAt).not.toBeNull();
    await expect(service.deactivate(originOf(scope), meter.id)).rejects.toBeInstanceOf(InvalidRequestError);
    expect((await service.list(scope, { limit: 10 }, 'inactive')).items.map((each) => each.id)).toEqual([meter.id]);
    expect(await service.reactivate(originOf(scope), meter.id)).toMatchObject({ status: 'active', deactivatedAt: null });
    await expect(service.reactivate(originOf(scope), meter.id)).rejects.toMatchObject({ code: 'meter_already_active' });
  });

  it("answers not found for another mode's meter", async () => {
    const { service } = setup();
    const meter = await service.create(originOf(scope), params('calls'));
    await expect(service.retrieve(live, meter.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.deactivate(originOf(live), meter.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});
