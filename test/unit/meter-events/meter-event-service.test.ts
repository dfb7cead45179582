import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, ConflictError, InvalidRequestError, NotFoundError, SessionExpiredError } from '#shared/core/errors.ts';
import { logger } from '#shared/core/logger.ts';
import type { MeterEventStore, MeterWork, MeterWorkQueue } from '#shared/meter-events/meter-event.ts';
import { createMeterEventAdjustmentParams, createMeterEventParams, meterEventStreamParams } from '#shared/meter-events/schemas.ts';
import { meterEventService, replayedFrom } from '#shared/meter-events/service.ts';
import { settleDelaySeconds, usageLeases } from '#shared/meter-events/usage-lease.ts';
import type { Meter } from '#shared/meters/meter.ts';
import type { Scope } from '#shared/platform/types.ts';
import { fakePlatformStore, memoryMeterRepository, meterFixture, originOf } from '../../support/fakes.ts';
import { existingCustomers, memoryMeterEventStore, recordingMeterWorkQueue } from '../../support/metering-fakes.ts';

const scope: Scope = { accountId: 'acct_meter_events', livemode: false };
const live: Scope = { ...scope, livemode: true };
const minute = 60 * 1000;
const day = 24 * 60 * minute;
/** The clock's start, half-way through `thisMinute`. */
const start = Date.UTC(2027, 0, 15, 10, 42, 30);
const thisMinute = Date.UTC(2027, 0, 15, 10, 42);
const customers = ['cus_1', 'cus_2', 'cus_3', 'cus_4', 'cus_5', 'cus_6', 'cus_7', 'cus_8', 'cus_9'];

const at = (millis: number) => new Date(millis).toISOString();
/** A POST /v2/billing/meter_events body for the `api_call` meter, as the handler parses it. */
const event = (payload: Record<string, string | number>, extra: { identifier?: string; timestamp?: string; event_name?: string } = {}) =>
  createMeterEventParams.parse({ event_name: 'api_call', payload, ...extra });
const cancel = (identifier: string | undefined, event_name = 'api_call') =>
  createMeterEventAdjustmentParams.parse({ event_name, type: 'cancel', ...(identifier === undefined ? {} : { cancel: { identifier } }) });
const stream = (...events: Array<Record<string, unknown>>) => meterEventStreamParams.parse({ events }).events;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** The SHA-256 of the API key that creates the sessions. */
const keyHash = sha256('sk_test_meterevents');

interface Options {
  /** The meters (of `scope` unless they say otherwise); the `api_call` sum meter by default. */
  meters?: Array<Partial<Meter>>;
  /** Changes the store the service sees (the fake itself stays in `store`). */
  store?: (fake: ReturnType<typeof memoryMeterEventStore>) => MeterEventStore;
  queue?: MeterWorkQueue;
}

async function setup(options: Options = {}) {
  let now = start;
  const clock = () => now;
  const meters = memoryMeterRepository();
  for (const overrides of options.meters ?? [{}]) await meters.create(meterFixture({ scope, created: start, updated: start, ...overrides }));
  const store = memoryMeterEventStore(clock);
  const queue = recordingMeterWorkQueue();
  const apiKeys = fakePlatformStore();
  await apiKeys.createApiKey({ hash: keyHash, accountId: scope.accountId, livemode: false, kind: 'secret', hint: 'sk_test_…ents', created: start });
  const service = meterEventService({
    store: options.store ? options.store(store) : store,
    meters,
    customerExists: existingCustomers(scope, ...customers),
    queue: options.queue ?? queue,
    apiKeys,
    clock,
  });
  const usageOf = (customerId: string, meterId = 'mtr_1') => store.usage(scope, meterId, customerId, thisMinute - day, thisMinute + 3 * day);
  const leaseOf = (customerId: string, minuteStart = thisMinute) =>
    store.readLease({ scope, meter: { id: 'mtr_1', formula: 'sum' }, customerId, minute: minuteStart });
  const advance = (millis: number) => {
    now += millis;
  };
  return { service, store, apiKeys, sent: queue.sent, clock, advance, usageOf, leaseOf };
}

const settleWork = (work: MeterWork) => {
  if (work.kind !== 'settle') throw new Error(`expected a settle message, got ${work.kind}`);
  return work;
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('meter events (service with the shared fakes)', () => {
  describe('an API event', () => {
    it('is counted into its minute before it is answered, stored as processed, with the settle message of its lease queued', async () => {
      const { service, store, sent, usageOf, leaseOf } = await setup();
      const created = await service.create(
        originOf(scope),
        event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_1', timestamp: at(start - 10_000) }),
      );

      expect(created).toEqual({
        eventName: 'api_call',
        identifier: 'evt_1',
        payload: { service_customer_id: 'cus_1', value: '3' },
        timestamp: start - 10_000,
        scope,
        platformId: scope.accountId,
        created: start,
        source: 'api',
        batchId: null,
        status: 'processed',
        meterId: 'mtr_1',
        cancelAdjustmentId: null,
      });
      expect(await store.getEvent(scope, 'evt_1')).toEqual(created);
      expect(await usageOf('cus_1')).toEqual([{ minute: thisMinute, total: 3, events: 1, last: null }]);
      expect(sent).toEqual([
        {
          work: {
            kind: 'settle',
            lease: { scope, meter: { id: 'mtr_1', formula: 'sum' }, customerId: 'cus_1', minute: thisMinute, owner: expect.any(String) },
            entry: { owner: expect.any(String), identifier: 'evt_1', created: start, value: 3, timestamp: start - 10_000 },
          },
          delaySeconds: settleDelaySeconds,
        },
      ]);
      const { lease, entry } = settleWork(sent[0]!.work);
      expect(entry.owner).toBe(lease.owner);
      // Released, its entry removed with the release that counted it.
      expect(await leaseOf('cus_1')).toEqual({ owner: undefined, until: undefined, entries: [] });
    });

    it('gets a fresh identifier when it has none, and the time it was received as its timestamp', async () => {
      const { service } = await setup();
      const first = await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '1' }));
      const second = await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '1' }));
      expect(first.identifier).toMatch(/^[0-9a-f-]{36}$/);
      expect(second.identifier).not.toBe(first.identifier);
      expect(first.timestamp).toBe(start);
    });

    describe('sent with an Idempotency-Key (kept in the event itself, not in an idempotency record)', () => {
      const request = (key: string, fingerprint = 'fp-1', requestId = 'req_first') => ({ key, fingerprint, requestId });

      it('gets an identifier derived from the key, so a retry finds its first try: the same event, counted once, naming the first request', async () => {
        const { service, usageOf } = await setup();
        const first = await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '2' }), request('key-1'));
        const retry = await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '2' }), request('key-1', 'fp-1', 'req_retry'));
        const other = await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '2' }), request('key-2', 'fp-1', 'req_other'));

        expect(first.identifier).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(retry).toEqual(first);
        expect(replayedFrom(retry, 'req_retry')).toBe('req_first');
        expect(replayedFrom(first, 'req_first')).toBeUndefined();
        expect(other.identifier).not.toBe(first.identifier);
        expect(await usageOf('cus_1')).toEqual([{ minute: thisMinute, total: 4, events: 2, last: null }]);
      });

      it('refuses the key with other parameters, and an identifier another request holds whatever the key', async () => {
        const { service, usageOf } = await setup();
        await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '2' }, { identifier: 'evt_k' }), request('key-1'));

        await expect(
          service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '9' }, { identifier: 'evt_k' }), request('key-1', 'fp-other')),
        ).rejects.toMatchObject({ code: 'idempotency_key_reused' });
        await expect(
          service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '2' }, { identifier: 'evt_k' }), request('key-2')),
        ).rejects.toMatchObject({ code: 'duplicate_meter_event' });
        await expect(service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '2' }, { identifier: 'evt_k' }))).rejects.toMatchObject({
          code: 'duplicate_meter_event',
        });
        expect(await usageOf('cus_1')).toEqual([{ minute: thisMinute, total: 2, events: 1, last: null }]);
      });

      it('answers a retry of an event refused for its customer with the same invalid event, reported once', async () => {
        const { service, sent } = await setup();
        const first = await service.create(originOf(scope), event({ service_customer_id: 'cus_unknown', value: '1' }), request('key-u'));
        const retry = await service.create(originOf(scope), event({ service_customer_id: 'cus_unknown', value: '1' }), request('key-u', 'fp-1', 'req_retry'));

        expect(first.status).toBe('invalid');
        expect(retry).toEqual(first);
        expect(sent.filter(({ work }) => work.kind === 'refused')).toHaveLength(1);
      });
    });

    it('counts 1 per event for a count meter, which needs no value and ignores one that is not a number', async () => {
      const { service, usageOf } = await setup({ meters: [{ formula: 'count' }] });
      await service.create(originOf(scope), event({ service_customer_id: 'cus_1' }));
      await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: 'lots' }));
      expect(await usageOf('cus_1')).toEqual([{ minute: thisMinute, total: 2, events: 2, last: null }]);
    });

    it.each([
      {
        case: 'an event name no meter records',
        params: () => event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_bad', event_name: 'unknown_call' }),
        code: 'no_meter',
        param: 'event_name',
        message: "No active meter was found with event_name 'unknown_call'.",
      },
      {
        case: 'an inactive meter',
        params: () => event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_bad', event_name: 'old_call' }),
        code: 'archived_meter',
        param: 'event_name',
        message: "The meter mtr_2 for event_name 'old_call' is inactive; reactivate it to record usage.",
      },
      {
        case: 'no customer in the payload',
        params: () => event({ value: '3' }, { identifier: 'evt_bad' }),
        code: 'payload_no_customer_defined',
        param: 'payload[service_customer_id]',
        message: "The payload must name the customer in 'service_customer_id'.",
      },
      {
        case: 'no value in the payload',
        params: () => event({ service_customer_id: 'cus_1' }, { identifier: 'evt_bad' }),
        code: 'payload_no_value_defined',
        param: 'payload[value]',
        message: "The payload must hold the value in 'value'.",
      },
      {
        case: 'a value that is not a number',
        params: () => event({ service_customer_id: 'cus_1', value: 'three' }, { identifier: 'evt_bad' }),
        code: 'payload_invalid_value',
        param: 'payload[value]',
        message: "The value in 'value' must be a positive integer, got 'three'.",
      },
      {
        case: 'a negative JSON number as value',
        params: () => event({ service_customer_id: 'cus_1', value: -2 }, { identifier: 'evt_bad' }),
        code: 'payload_invalid_value',
        param: 'payload[value]',
        message: "The value in 'value' must be a positive integer, got '-2'.",
      },
      {
        case: 'a timestamp more than 35 days ago',
        params: () => event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_bad', timestamp: at(start - 35 * day - 1_000) }),
        code: 'timestamp_too_far_in_past',
        param: 'timestamp',
        message: 'The timestamp must be within the past 35 days.',
      },
      {
        case: 'a timestamp more than 5 minutes ahead',
        params: () => event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_bad', timestamp: at(start + 5 * minute + 1_000) }),
        code: 'timestamp_in_future',
        param: 'timestamp',
        message: 'The timestamp must be no more than 5 minutes in the future.',
      },
    ])('is refused with $code for $case, nothing stored, queued or counted', async ({ params, code, param, message }) => {
      const { service, store, sent, usageOf } = await setup({
        meters: [{}, { id: 'mtr_2', eventName: 'old_call', status: 'inactive', deactivatedAt: start - day }],
      });
      const refused = service.create(originOf(scope), params());
      await expect(refused).rejects.toBeInstanceOf(InvalidRequestError);
      await expect(refused).rejects.toMatchObject({ code, param, message });
      expect(await store.getEvent(scope, 'evt_bad')).toBeUndefined();
      expect(sent).toEqual([]);
      expect(await usageOf('cus_1')).toEqual([]);
    });

    it("finds its meter in the request's own mode only", async () => {
      const { service } = await setup();
      await expect(service.create(originOf(live), event({ service_customer_id: 'cus_1', value: '3' }))).rejects.toMatchObject({ code: 'no_meter' });
    });

    it('is refused as a duplicate when an event of the account and mode took its identifier in the last 24 hours, and the first one alone counts', async () => {
      const { service, store, advance, usageOf, leaseOf } = await setup({
        meters: [{}, { id: 'mtr_2', eventName: 'other_call', formula: 'count' }, { scope: live }],
      });
      const first = await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_1' }));
      const duplicate = {
        code: 'duplicate_meter_event',
        param: 'identifier',
        message: 'An event already exists with identifier evt_1. An identifier can be used once in 24 hours.',
      };

      await expect(service.create(originOf(scope), event({ service_customer_id: 'cus_2', value: '5' }, { identifier: 'evt_1' }))).rejects.toMatchObject(
        duplicate,
      );
      // Another meter's event too: identifiers are the account's, not the meter's.
      await expect(
        service.create(originOf(scope), event({ service_customer_id: 'cus_1' }, { identifier: 'evt_1', event_name: 'other_call' })),
      ).rejects.toMatchObject(duplicate);
      expect(await store.getEvent(scope, 'evt_1')).toEqual(first);
      expect(await usageOf('cus_1')).toEqual([{ minute: thisMinute, total: 3, events: 1, last: null }]);
      expect(await usageOf('cus_2')).toEqual([]);
      expect(await usageOf('cus_1', 'mtr_2')).toEqual([]);
      // The refused request released its lease and left no entry in it to settle.
      expect(await leaseOf('cus_2')).toEqual({ owner: undefined, until: undefined, entries: [] });

      // The other mode has identifiers of its own (the event is invalid there: cus_1 is a test-mode customer).
      await expect(service.create(originOf(live), event({ service_customer_id: 'cus_1', value: '4' }, { identifier: 'evt_1' }))).resolves.toMatchObject({
        identifier: 'evt_1',
        scope: live,
        status: 'invalid',
      });

      advance(day + 1);
      const later = await service.create(originOf(scope), event({ service_customer_id: 'cus_2', value: '5' }, { identifier: 'evt_1' }));
      expect(later).toMatchObject({ status: 'processed', created: start + day + 1 });
      expect(await usageOf('cus_2')).toEqual([{ minute: thisMinute + day, total: 5, events: 1, last: null }]);
    });

    it("is accepted as invalid for an unknown customer: counted nowhere, its refusal queued for the meter's error report, its identifier taken", async () => {
      const { service, store, sent, usageOf, leaseOf } = await setup();
      const accepted = await service.create(originOf(scope), event({ service_customer_id: 'cus_unknown', value: '3' }, { identifier: 'evt_x' }));

      expect(accepted).toMatchObject({ identifier: 'evt_x', status: 'invalid', source: 'api', meterId: 'mtr_1', created: start });
      expect(await store.getEvent(scope, 'evt_x')).toEqual(accepted);
      expect(sent).toEqual([
        {
          work: {
            kind: 'refused',
            error: {
              scope,
              platformId: scope.accountId,
              meterId: 'mtr_1',
              code: 'meter_event_customer_not_found',
              message: "No customer with id 'cus_unknown' was found for meter mtr_1.",
              identifier: 'evt_x',
            },
          },
        },
      ]);
      expect(await usageOf('cus_unknown')).toEqual([]);
      expect(await leaseOf('cus_unknown')).toEqual({ owner: undefined, until: undefined, entries: [] });
      await expect(service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_x' }))).rejects.toMatchObject({
        code: 'duplicate_meter_event',
      });
      await expect(service.create(originOf(scope), event({ service_customer_id: 'cus_unknown', value: '3' }, { identifier: 'evt_x' }))).rejects.toMatchObject({
        code: 'duplicate_meter_event',
      });
    });

    it('is accepted as invalid for a value of more than 15 digits, which is found before the customer is looked up', async () => {
      const { service, sent, usageOf } = await setup();
      const accepted = await service.create(
        originOf(scope),
        event({ service_customer_id: 'cus_unknown', value: `1${'0'.repeat(15)}` }, { identifier: 'evt_big' }),
      );
      expect(accepted.status).toBe('invalid');
      expect(sent.map(({ work }) => work)).toEqual([
        {
          kind: 'refused',
          error: expect.objectContaining({
            code: 'meter_event_value_too_many_digits',
            message: "The value in 'value' has more than 15 digits.",
            identifier: 'evt_big',
          }),
        },
      ]);
      expect(await usageOf('cus_unknown')).toEqual([]);
    });

    it("answers 409 while another request holds its minute's lease, without taking its identifier, and counts the retry once the lease is free", async () => {
      const { service, store, advance, usageOf } = await setup();
      await store.takeLease({ scope, meter: { id: 'mtr_1', formula: 'sum' }, customerId: 'cus_1', minute: thisMinute, owner: 'another_request' }, [], start);
      const params = event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_1', timestamp: at(start) });

      const busy = service.create(originOf(scope), params);
      await expect(busy).rejects.toBeInstanceOf(ConflictError);
      await expect(busy).rejects.toMatchObject({
        code: 'too_many_concurrent_requests',
        message: "Another usage event for customer 'cus_1' and meter mtr_1 is being recorded right now; retry this one.",
      });
      expect(await store.getEvent(scope, 'evt_1')).toBeUndefined();
      // Leases are per customer: another customer's event is counted meanwhile.
      await service.create(originOf(scope), event({ service_customer_id: 'cus_2', value: '1' }));

      advance(5_001);
      await expect(service.create(originOf(scope), params)).resolves.toMatchObject({ status: 'processed' });
      expect(await usageOf('cus_1')).toEqual([{ minute: thisMinute, total: 3, events: 1, last: null }]);
    });

    it('answers 409 when a later holder of the lease settled it as lost before its claim, counting nothing; a retry may take the identifier', async () => {
      const fenced = { once: true };
      const { service, store, sent, usageOf } = await setup({
        store: (fake) => ({
          ...fake,
          // A later holder settles this request's entry (fencing its identifier against it) just before its claim.
          claim: async (record, owner) => {
            if (fenced.once) {
              fenced.once = false;
              expect(await fake.settle(record.scope, settleWork(sent[0]!.work).entry)).toBe('fenced');
            }
            return fake.claim(record, owner);
          },
        }),
      });
      const params = event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_1' });

      await expect(service.create(originOf(scope), params)).rejects.toMatchObject({
        code: 'too_many_concurrent_requests',
        message: 'This usage event took too long to record and was not recorded; retry it.',
      });
      expect(await store.getEvent(scope, 'evt_1')).toBeUndefined();
      expect(await usageOf('cus_1')).toEqual([]);

      await expect(service.create(originOf(scope), params)).resolves.toMatchObject({ status: 'processed' });
      expect(await usageOf('cus_1')).toEqual([{ minute: thisMinute, total: 3, events: 1, last: null }]);
    });

    describe('whose lease release failed after its claim', () => {
      async function setupFailingRelease() {
        const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
        const failing = { once: true };
        const context = await setup({
          store: (fake) => ({
            ...fake,
            releaseLease: async (...args) => {
              if (!failing.once) return fake.releaseLease(...args);
              failing.once = false;
              throw new Error('release timed out');
            },
          }),
        });
        const accepted = await context.service.create(
          originOf(scope),
          event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_1', timestamp: at(start) }),
        );
        return { ...context, warn, accepted };
      }

      it('is acknowledged all the same, its entry left in the lease', async () => {
        const { accepted, warn, usageOf, leaseOf } = await setupFailingRelease();
        expect(accepted).toMatchObject({ identifier: 'evt_1', status: 'processed' });
        expect(warn).toHaveBeenCalledWith(
          'A usage lease could not be released; its settle message counts the event',
          expect.objectContaining({ identifier: 'evt_1' }),
        );
        expect(await usageOf('cus_1')).toEqual([]);
        expect((await leaseOf('cus_1')).entries).toEqual([expect.objectContaining({ identifier: 'evt_1', value: 3 })]);
      });

      it('is counted once, by the next request of its minute, and its settle message then finds nothing to do', async () => {
        const { service, store, sent, clock, advance, usageOf } = await setupFailingRelease();
        advance(5_001);
        await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '4' }, { identifier: 'evt_2', timestamp: at(start) }));
        expect(await usageOf('cus_1')).toEqual([{ minute: thisMinute, total: 7, events: 2, last: null }]);

        advance(settleDelaySeconds * 1000);
        const { lease, entry } = settleWork(sent[0]!.work);
        await usageLeases(store, clock).settle(lease, entry);
        expect(await usageOf('cus_1')).toEqual([{ minute: thisMinute, total: 7, events: 2, last: null }]);
      });

      it('is counted once by its settle message when no other request comes', async () => {
        const { store, sent, clock, advance, usageOf, leaseOf } = await setupFailingRelease();
        advance(settleDelaySeconds * 1000);
        const { lease, entry } = settleWork(sent[0]!.work);
        const leases = usageLeases(store, clock);
        await leases.settle(lease, entry);
        await leases.settle(lease, entry);
        expect(await usageOf('cus_1')).toEqual([{ minute: thisMinute, total: 3, events: 1, last: null }]);
        expect(await leaseOf('cus_1')).toEqual({ owner: undefined, until: undefined, entries: [] });
      });
    });

    it('fails without taking its identifier when its settle message cannot be queued, and frees the lease', async () => {
      const { service, store, usageOf, leaseOf } = await setup({ queue: { send: async () => Promise.reject(new Error('queue unavailable')) } });
      await expect(service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_1' }))).rejects.toThrow(
        'queue unavailable',
      );
      expect(await store.getEvent(scope, 'evt_1')).toBeUndefined();
      expect(await usageOf('cus_1')).toEqual([]);
      expect(await leaseOf('cus_1')).toEqual({ owner: undefined, until: undefined, entries: [] });
    });
  });

  describe('a cancellation', () => {
    it('of a counted event stores a pending adjustment, attaches it to the event, and queues it', async () => {
      const { service, store, sent, advance, usageOf } = await setup();
      await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_1' }));
      advance(1_000);
      const adjustment = await service.adjust(originOf(scope), cancel('evt_1'));

      expect(adjustment).toEqual({
        id: expect.stringMatching(/^mtradj_/),
        scope,
        platformId: scope.accountId,
        created: start + 1_000,
        eventName: 'api_call',
        type: 'cancel',
        cancelIdentifier: 'evt_1',
        status: 'pending',
      });
      expect((await store.getEvent(scope, 'evt_1'))?.cancelAdjustmentId).toBe(adjustment.id);
      expect(sent.at(-1)).toEqual({ work: { kind: 'cancel', adjustment } });
      expect(await service.retrieveAdjustment(scope, adjustment.id)).toEqual(adjustment);
      // Processing takes the value out, not the request.
      expect(await usageOf('cus_1')).toEqual([{ minute: thisMinute, total: 3, events: 1, last: null }]);
    });

    it('is refused for an event already being cancelled', async () => {
      const { service, sent } = await setup();
      await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_1' }));
      await service.adjust(originOf(scope), cancel('evt_1'));
      await expect(service.adjust(originOf(scope), cancel('evt_1'))).rejects.toMatchObject({
        code: 'meter_event_already_cancelled',
        param: 'cancel[identifier]',
        message: "The meter event 'evt_1' is already cancelled or being cancelled.",
      });
      expect(sent.filter(({ work }) => work.kind === 'cancel')).toHaveLength(1);
    });

    it('needs cancel.identifier', async () => {
      const { service } = await setup();
      const configuration = {
        code: 'invalid_cancel_configuration',
        param: 'cancel',
        message: 'An adjustment of type cancel needs cancel.identifier, the identifier of the event to cancel.',
      };
      await expect(service.adjust(originOf(scope), cancel(undefined))).rejects.toMatchObject(configuration);
      await expect(
        service.adjust(originOf(scope), createMeterEventAdjustmentParams.parse({ event_name: 'api_call', type: 'cancel', cancel: {} })),
      ).rejects.toMatchObject(configuration);
    });

    it('is refused when no meter records its event name', async () => {
      const { service } = await setup();
      await expect(service.adjust(originOf(scope), cancel('evt_1', 'unknown_call'))).rejects.toMatchObject({
        code: 'no_meter',
        param: 'event_name',
        message: "No meter was found with event_name 'unknown_call'.",
      });
    });

    it("is refused as not found for an unknown identifier, another meter's event, and another mode's event", async () => {
      const { service } = await setup({ meters: [{}, { id: 'mtr_2', eventName: 'other_call', formula: 'count' }, { scope: live }] });
      await service.create(originOf(scope), event({ service_customer_id: 'cus_1' }, { identifier: 'evt_other', event_name: 'other_call' }));
      await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '1' }, { identifier: 'evt_test' }));

      const notFound = (identifier: string) => ({
        code: 'meter_event_not_found',
        param: 'cancel[identifier]',
        message: `No meter event with identifier '${identifier}' and event_name 'api_call' was found.`,
      });
      await expect(service.adjust(originOf(scope), cancel('evt_unknown'))).rejects.toMatchObject(notFound('evt_unknown'));
      await expect(service.adjust(originOf(scope), cancel('evt_other'))).rejects.toMatchObject(notFound('evt_other'));
      await expect(service.adjust(originOf(live), cancel('evt_test'))).rejects.toMatchObject(notFound('evt_test'));
    });

    it('is accepted up to 24 hours after the event was received, and refused after', async () => {
      const { service, advance } = await setup();
      await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_1' }));
      await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_2' }));

      advance(day);
      await expect(service.adjust(originOf(scope), cancel('evt_1'))).resolves.toMatchObject({ status: 'pending' });
      advance(1);
      await expect(service.adjust(originOf(scope), cancel('evt_2'))).rejects.toMatchObject({
        code: 'meter_event_cancellation_window_expired',
        param: 'cancel[identifier]',
        message: "The meter event 'evt_2' was received more than 24 hours ago and can no longer be cancelled.",
      });
    });

    it('is refused for an event refused at receipt, which holds no usage', async () => {
      const { service, sent } = await setup();
      await service.create(originOf(scope), event({ service_customer_id: 'cus_unknown', value: '3' }, { identifier: 'evt_x' }));
      await expect(service.adjust(originOf(scope), cancel('evt_x'))).rejects.toMatchObject({
        code: 'meter_event_not_counted',
        param: 'cancel[identifier]',
        message: "The meter event 'evt_x' was refused when processed (see the meter's error reports) and holds no usage to cancel.",
      });
      expect(sent.map(({ work }) => work.kind)).toEqual(['refused']);
    });

    it("is not found by id when it does not exist, or is another mode's", async () => {
      const { service } = await setup();
      await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'evt_1' }));
      const adjustment = await service.adjust(originOf(scope), cancel('evt_1'));
      await expect(service.retrieveAdjustment(live, adjustment.id)).rejects.toBeInstanceOf(NotFoundError);
      await expect(service.retrieveAdjustment(scope, 'mtradj_unknown')).rejects.toMatchObject({ code: 'resource_missing' });
    });
  });

  describe('a session', () => {
    it('lasts 15 minutes, and its token is stored only as its hash', async () => {
      const { service, store } = await setup();
      const { session, token } = await service.createSession(originOf(scope), keyHash);
      expect(token).toMatch(/^mes_tok_[0-9A-Za-z]{48}$/);
      expect(session).toEqual({
        id: expect.stringMatching(/^mtrses_/),
        scope,
        platformId: scope.accountId,
        created: start,
        expiresAt: start + 15 * minute,
        keyHash,
      });
      expect([...store.sessions.keys()]).toEqual([sha256(token)]);
      expect(store.sessions.get(sha256(token))).toEqual(session);
    });

    it('authenticates a stream request as the platform and account that created it, until it expires', async () => {
      const { service, advance } = await setup();
      const connected: Scope = { accountId: 'acct_connected', livemode: false };
      const { token } = await service.createSession({ ...originOf(connected), platformId: 'acct_platform' }, keyHash);
      const caller = { platformId: 'acct_platform', livemode: false, keyKind: 'secret', credentialId: sha256(token), scope: connected };

      expect(await service.authenticateSession(token)).toEqual(caller);
      advance(15 * minute - 1);
      expect(await service.authenticateSession(token)).toEqual(caller);
      advance(1);
      const expired = service.authenticateSession(token);
      await expect(expired).rejects.toBeInstanceOf(SessionExpiredError);
      await expect(expired).rejects.toMatchObject({ code: 'temporary_session_expired' });
    });

    it("dies with the key that created it: refused once the key is revoked, and at the end of a roll's grace", async () => {
      // Given a session created with a key, and one created with a key that is rolled with an hour's grace
      const { service, apiKeys, advance } = await setup();
      const rolledHash = sha256('sk_test_rolled');
      await apiKeys.createApiKey({ hash: rolledHash, accountId: scope.accountId, livemode: false, kind: 'secret', hint: 'sk_test_…lled', created: start });
      const revoked = (await service.createSession(originOf(scope), keyHash)).token;
      const rolled = (await service.createSession(originOf(scope), rolledHash)).token;
      await service.authenticateSession(revoked);
      // When the first key is revoked now and the second expires in a minute
      await apiKeys.expireApiKey(keyHash, start);
      await apiKeys.expireApiKey(rolledHash, start + minute);
      // Then the first key's session is refused at once, the second's works until its key's expiry
      await expect(service.authenticateSession(revoked)).rejects.toMatchObject({ code: 'api_key_expired' });
      await expect(service.authenticateSession(rolled)).resolves.toMatchObject({ scope });
      advance(minute);
      const afterGrace = service.authenticateSession(rolled);
      await expect(afterGrace).rejects.toBeInstanceOf(AuthenticationError);
      await expect(afterGrace).rejects.toMatchObject({ code: 'api_key_expired' });
    });

    it('refuses a request with no token, or with a token no session has', async () => {
      const { service } = await setup();
      await service.createSession(originOf(scope), keyHash);
      const missing = service.authenticateSession('');
      await expect(missing).rejects.toBeInstanceOf(AuthenticationError);
      await expect(missing).rejects.toMatchObject({ code: 'api_key_missing' });
      await expect(service.authenticateSession(`mes_tok_${'x'.repeat(48)}`)).rejects.toMatchObject({ code: 'api_key_invalid' });
    });
  });

  describe('a stream request', () => {
    const callerOf = async (service: Awaited<ReturnType<typeof setup>>['service']) =>
      service.authenticateSession((await service.createSession(originOf(scope), keyHash)).token);
    const streamed = (customer: string, identifier: string, extra: Record<string, unknown> = {}) => ({
      event_name: 'api_call',
      payload: { service_customer_id: customer, value: '2' },
      identifier,
      timestamp: at(start),
      ...extra,
    });

    it('of fewer than 4 events is counted at once, event by event, with no batch stored', async () => {
      const { service, store, sent, usageOf } = await setup();
      await service.acceptStream(
        await callerOf(service),
        stream(
          streamed('cus_1', 's1'),
          streamed('cus_2', 's2', { payload: { service_customer_id: 'cus_2', value: 5 } }),
          streamed('cus_1', 's3', { timestamp: at(start - minute) }),
        ),
      );

      expect(store.batches.size).toBe(0);
      expect(sent.map(({ work }) => work.kind)).toEqual(['settle', 'settle', 'settle']);
      expect(await usageOf('cus_1')).toEqual([
        { minute: thisMinute - minute, total: 2, events: 1, last: null },
        { minute: thisMinute, total: 2, events: 1, last: null },
      ]);
      expect(await usageOf('cus_2')).toEqual([{ minute: thisMinute, total: 5, events: 1, last: null }]);
      expect(await store.getEvent(scope, 's2')).toMatchObject({ source: 'stream', status: 'processed', batchId: null, meterId: 'mtr_1', created: start });
      // Counted at once, it can be cancelled at once.
      await expect(service.adjust(originOf(scope), cancel('s2'))).resolves.toMatchObject({ cancelIdentifier: 's2' });
    });

    it('leaves the events of a small request it cannot count at once to processing, in one stored and queued batch', async () => {
      const { service, store, sent, usageOf } = await setup();
      const connected = { platformId: 'acct_platform', livemode: false, keyKind: 'secret' as const, credentialId: 'hash', scope };
      await service.acceptStream(
        connected,
        stream(streamed('cus_1', 's1'), streamed('cus_1', 's2', { event_name: 'unknown_call' }), streamed('cus_unknown', 's3')),
      );

      expect(await usageOf('cus_1')).toEqual([{ minute: thisMinute, total: 2, events: 1, last: null }]);
      const [batch, ...others] = store.batches.values();
      expect(others).toEqual([]);
      expect(batch).toEqual({
        id: expect.stringMatching(/^mtrbatch_/),
        scope,
        platformId: 'acct_platform',
        created: start,
        events: [
          { eventName: 'unknown_call', identifier: 's2', payload: { service_customer_id: 'cus_1', value: '2' }, timestamp: start },
          { eventName: 'api_call', identifier: 's3', payload: { service_customer_id: 'cus_unknown', value: '2' }, timestamp: start },
        ],
      });
      expect(sent.at(-1)).toEqual({ work: { kind: 'batch', batch } });
      // Its events are written when processed.
      expect(await store.getEvent(scope, 's2')).toBeUndefined();
      expect(await store.getEvent(scope, 's3')).toBeUndefined();
    });

    it('leaves an event whose lease another request holds to processing rather than answering 409', async () => {
      const { service, store } = await setup();
      await store.takeLease({ scope, meter: { id: 'mtr_1', formula: 'sum' }, customerId: 'cus_2', minute: thisMinute, owner: 'another_request' }, [], start);
      await service.acceptStream(await callerOf(service), stream(streamed('cus_1', 's1'), streamed('cus_2', 's2')));
      expect([...store.batches.values()].map((batch) => batch.events.map((each) => each.identifier))).toEqual([['s2']]);
    });

    it('drops an event whose identifier was taken in the last 24 hours, counting it nowhere, and counts one event of two with one identifier', async () => {
      const { service, store, usageOf } = await setup();
      const api = await service.create(originOf(scope), event({ service_customer_id: 'cus_1', value: '3' }, { identifier: 'taken' }));
      await service.acceptStream(await callerOf(service), stream(streamed('cus_2', 'taken'), streamed('cus_3', 'twice'), streamed('cus_4', 'twice')));

      expect(store.batches.size).toBe(0);
      expect(await store.getEvent(scope, 'taken')).toEqual(api);
      expect(await usageOf('cus_2')).toEqual([]);
      const counted = [...(await usageOf('cus_3')), ...(await usageOf('cus_4'))];
      expect(counted).toEqual([{ minute: thisMinute, total: 2, events: 1, last: null }]);
    });

    it('of 4 events or more whose events share their minutes is sent to processing whole, none counted at once', async () => {
      const { service, store, sent, usageOf } = await setup();
      await service.acceptStream(
        await callerOf(service),
        stream(streamed('cus_1', 's1'), streamed('cus_1', 's2'), streamed('cus_2', 's3'), {
          event_name: 'api_call',
          payload: { service_customer_id: 'cus_2', value: '1' },
        }),
      );

      const [batch] = store.batches.values();
      expect(batch!.events.map((each) => each.identifier).slice(0, 3)).toEqual(['s1', 's2', 's3']);
      expect(batch!.events[3]).toEqual({
        eventName: 'api_call',
        identifier: expect.stringMatching(/^[0-9a-f-]{36}$/),
        payload: { service_customer_id: 'cus_2', value: '1' },
        timestamp: start,
      });
      expect(sent.map(({ work }) => work.kind)).toEqual(['batch']);
      expect(await usageOf('cus_1')).toEqual([]);
      expect(await usageOf('cus_2')).toEqual([]);
    });

    it('counts at once the events of a larger request alone in their customer and minute when they are 80% of it, and batches the rest', async () => {
      const { service, store, usageOf } = await setup();
      const caller = await callerOf(service);
      const lone = customers.slice(0, 8).map((customer, index) => streamed(customer, `lone_${index}`));
      await service.acceptStream(caller, stream(...lone, streamed('cus_9', 'shared_1'), streamed('cus_9', 'shared_2')));

      expect([...store.batches.values()].map((batch) => batch.events.map((each) => each.identifier))).toEqual([['shared_1', 'shared_2']]);
      for (const customer of customers.slice(0, 8)) expect(await usageOf(customer)).toEqual([{ minute: thisMinute, total: 2, events: 1, last: null }]);
      expect(await usageOf('cus_9')).toEqual([]);
    });

    it('counts the first of two events with one identifier even when the later one is alone and counted at once', async () => {
      const { service, store, usageOf } = await setup();
      const lone = customers.slice(0, 8).map((customer, index) => streamed(customer, index === 0 ? 'X' : `lone_${index}`));
      await service.acceptStream(
        await callerOf(service),
        stream(streamed('cus_9', 'X', { payload: { service_customer_id: 'cus_9', value: '100' } }), streamed('cus_9', 'Y'), ...lone),
      );

      const events = [...store.batches.values()].flatMap((batch) => batch.events);
      expect(events.filter((each) => each.identifier === 'X')).toEqual([expect.objectContaining({ payload: { service_customer_id: 'cus_9', value: '100' } })]);
      expect(events.some((each) => each.payload.service_customer_id === customers[0])).toBe(false);
      expect(await usageOf(customers[0]!)).toEqual([]);
    });

    it('sends a larger request with fewer than 80% lone events to processing whole', async () => {
      const { service, store, usageOf } = await setup();
      await service.acceptStream(
        await callerOf(service),
        stream(streamed('cus_1', 'a'), streamed('cus_2', 'b'), streamed('cus_3', 'c'), streamed('cus_9', 'd'), streamed('cus_9', 'e')),
      );
      expect([...store.batches.values()].map((batch) => batch.events.map((each) => each.identifier))).toEqual([['a', 'b', 'c', 'd', 'e']]);
      expect(await usageOf('cus_1')).toEqual([]);
    });
  });
});
