import { systemClock } from '#shared/core/clock.ts';
import { createHash, randomUUID } from 'node:crypto';
import { AuthenticationError, ConflictError, IdempotencyKeyReusedError, InvalidRequestError, NotFoundError, SessionExpiredError } from '#shared/core/errors.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import type { Caller, PlatformStore, Scope } from '#shared/platform/types.ts';
import { newId, randomBase62 } from '#shared/core/ids.ts';
import type { MeterRepository } from '#shared/meters/meter.ts';
import { isLiveKey } from '#shared/platform/api-keys.ts';
import type { Meter } from '#shared/meters/meter.ts';
import { memoized, scopedKey } from '#shared/core/cache.ts';
import { planStreamRequest } from './counting-plan.ts';
import type { MeterEventAdjustment, MeterEventInput, MeterEventRecord, MeterEventSession, MeterEventStore, MeterWorkQueue } from './meter-event.ts';
import { minuteOf, problemOf, readingOf, refusalOf, uniquenessWindowMillis, usageValueOf } from './rules.ts';
import { settleDelaySeconds, usageLeases, type CountOutcome } from './usage-lease.ts';
import type { CreateMeterEventAdjustmentParams, CreateMeterEventParams } from './schemas.ts';

export interface MeterEventServicePorts {
  store: MeterEventStore;
  meters: Pick<MeterRepository, 'findByEventName'>;
  /** Whether a customer exists in the scope (deleted customers do not). */
  customerExists(scope: Scope, id: string): Promise<boolean>;
  queue: MeterWorkQueue;
  /** The API keys (cached, `cacheWindows.apiKeys`): a session works only while the key that created it does. */
  apiKeys: Pick<PlatformStore, 'findApiKey'>;
  clock?: () => number;
}

/** Meter event sessions last 15 minutes. */
export const sessionLifetimeMillis = 15 * 60 * 1000;

const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/**
 * The identifier of an event sent without one under an `Idempotency-Key`: the same for every try of that
 * request (UUID-shaped, like a generated one), and unrelated across accounts and modes.
 */
function identifierFor(scope: Scope, keyHash: string): string {
  const hex = createHash('sha256').update(`meter-event-identifier:${scope.accountId}:${scope.livemode}:${keyHash}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The request an answered event replays: the first try's, when `requestId` is a retry of it. */
export const replayedFrom = (event: MeterEventRecord, requestId: string): string | undefined =>
  event.idempotency && event.idempotency.requestId !== requestId ? event.idempotency.requestId : undefined;

const idempotencyKeyReused = (key: string) =>
  new IdempotencyKeyReusedError(
    `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
    'idempotency_key_reused',
  );

type MeterOf = (scope: Scope, eventName: string) => Promise<Meter | undefined>;

type StreamEvent = Omit<CreateMeterEventParams, 'timestamp'> & { timestamp?: number };

/**
 * The synchronous side of metering. `create` checks an event against its meter and customer, and counts
 * it into its minute's usage under that minute's usage lease (see `usageLeases`): an API event is counted
 * before it is acknowledged. The stream stores a whole request and queues it for processing; the meter
 * sweeper re-queues a batch a crash left stored but unqueued.
 */
export function meterEventService({ store, meters, customerExists, queue, apiKeys, clock = systemClock }: MeterEventServicePorts) {
  const leases = usageLeases(store, clock);
  const normalize = (params: StreamEvent, now: number): MeterEventInput => ({
    eventName: params.event_name,
    identifier: params.identifier ?? randomUUID(),
    payload: params.payload,
    timestamp: params.timestamp ?? now,
  });

  /** Counts a checked event into its minute's usage under the minute's lease (see `usageLeases`). */
  function countUnderLease(event: MeterEventRecord, meter: Meter): Promise<CountOutcome> {
    const owner = randomUUID();
    const lease = {
      scope: event.scope,
      meter: { id: meter.id, formula: meter.formula },
      customerId: readingOf(meter, event).customerId!,
      minute: minuteOf(event.timestamp),
      owner,
    };
    const entry = { owner, identifier: event.identifier, created: event.created, value: usageValueOf(meter, event), timestamp: event.timestamp };
    return leases.count(lease, event, entry, () => queue.send([{ kind: 'settle', lease, entry }], settleDelaySeconds));
  }

  const received = (
    input: MeterEventInput,
    scope: Scope,
    platformId: string,
    now: number,
    meter: Meter,
    source: MeterEventRecord['source'],
  ): MeterEventRecord => ({
    ...input,
    scope,
    platformId,
    created: now,
    source,
    batchId: null,
    status: 'processed',
    meterId: meter.id,
    cancelAdjustmentId: null,
  });

  /**
   * Counts stream events as API events are (3 write units each instead of a batch's 8 for one event);
   * answers those left for the batch path: events with a problem (reported by processing, as the stream's
   * are), and events whose lease another request holds.
   */
  async function countAtOnce(caller: Caller, inputs: MeterEventInput[], now: number, meterFor: MeterOf): Promise<MeterEventInput[]> {
    const outcomes = await Promise.all(
      inputs.map(async (input) => {
        const meter = await meterFor(caller.scope, input.eventName);
        if (!meter || problemOf(meter, input, now) || (await refusalOf(meter, input, (id) => customerExists(caller.scope, id)))) return 'left';
        const outcome = await countUnderLease(received(input, caller.scope, caller.platformId, now, meter, 'stream'), meter);
        return outcome === 'busy' || outcome === 'fenced' ? 'left' : outcome;
      }),
    );
    return inputs.filter((_, index) => outcomes[index] === 'left');
  }

  /** Per event, its customer, meter and minute as the counting plan groups them (undefined without a meter). */
  async function groupsOf(caller: Caller, inputs: MeterEventInput[], meterFor: MeterOf): Promise<Array<string | undefined>> {
    return Promise.all(
      inputs.map(async (input) => {
        const meter = await meterFor(caller.scope, input.eventName);
        return meter && `${meter.id}|${readingOf(meter, input).customerId}|${minuteOf(input.timestamp)}`;
      }),
    );
  }

  return {
    /**
     * Checks and counts one API event. With `request` (an `Idempotency-Key`), the event's own record keeps
     * the request: an event without an identifier gets one derived from the key, so a retry claims the same
     * identifier, finds the record its first try wrote, and answers that event (whose `idempotency` names
     * the first try: `replayedFrom`); another request under the key is refused. No idempotency record of
     * its own: 3 write units an event, as without a key.
     */
    async create(
      origin: EventOrigin,
      params: CreateMeterEventParams,
      request?: { key: string; fingerprint: string; requestId: string },
    ): Promise<MeterEventRecord> {
      const now = clock();
      const keyHash = request && createHash('sha256').update(request.key, 'utf8').digest('hex');
      const input = normalize({ ...params, identifier: params.identifier ?? (keyHash && identifierFor(origin.scope, keyHash)) }, now);
      const meter = await meters.findByEventName(origin.scope, input.eventName);
      const problem = problemOf(meter, input, now);
      if (problem) throw new InvalidRequestError(problem.message, problem.sync, problem.param);
      const event: MeterEventRecord = {
        ...received(input, origin.scope, origin.platformId, now, meter!, 'api'),
        ...(request && keyHash ? { idempotency: { keyHash, fingerprint: request.fingerprint, requestId: request.requestId } } : {}),
      };
      /** The identifier is held: by this request's first try (a replay), or by another event. */
      const held = async () => {
        // Strongly consistent: the first try's claim may be a moment old (a concurrent retry).
        const holder = keyHash ? await store.getEvent(origin.scope, input.identifier, true) : undefined;
        if (holder?.idempotency && holder.idempotency.keyHash === keyHash) {
          if (holder.idempotency.fingerprint !== request!.fingerprint) throw idempotencyKeyReused(request!.key);
          return holder;
        }
        // The reference's v1 wording, which integrations match on (its v1 body carries no code; ours does).
        throw new InvalidRequestError(
          `An event already exists with identifier ${input.identifier}. An identifier can be used once in 24 hours.`,
          'duplicate_meter_event',
          'identifier',
        );
      };

      // Accepted, not counted, and reported in the meter's error report, as the reference does.
      const refusal = await refusalOf(meter!, input, (id) => customerExists(origin.scope, id));
      if (refusal) {
        if ((await store.claim({ ...event, status: 'invalid' }, randomUUID())) !== 'claimed') return held();
        const error = { scope: origin.scope, platformId: origin.platformId, meterId: meter!.id, ...refusal, identifier: input.identifier };
        await queue.send([{ kind: 'refused', error }]);
        return { ...event, status: 'invalid' };
      }

      const outcome = await countUnderLease(event, meter!);
      if (outcome === 'duplicate') return held();
      if (outcome === 'busy') {
        throw new ConflictError(
          `Another usage event for customer '${readingOf(meter!, input).customerId}' and meter ${meter!.id} is being recorded right now; retry this one.`,
          'too_many_concurrent_requests',
        );
      }
      if (outcome === 'fenced') {
        throw new ConflictError(`This usage event took too long to record and was not recorded; retry it.`, 'too_many_concurrent_requests');
      }
      return event;
    },

    async adjust(origin: EventOrigin, params: CreateMeterEventAdjustmentParams): Promise<MeterEventAdjustment> {
      const identifier = params.cancel?.identifier;
      if (params.type === 'cancel' && identifier === undefined) {
        throw new InvalidRequestError(
          'An adjustment of type cancel needs cancel.identifier, the identifier of the event to cancel.',
          'invalid_cancel_configuration',
          'cancel',
        );
      }
      const now = clock();
      const meter = await meters.findByEventName(origin.scope, params.event_name);
      if (!meter) throw new InvalidRequestError(`No meter was found with event_name '${params.event_name}'.`, 'no_meter', 'event_name');
      const event = await store.getEvent(origin.scope, identifier!);
      if (!event || event.eventName !== params.event_name) {
        throw new InvalidRequestError(
          `No meter event with identifier '${identifier}' and event_name '${params.event_name}' was found.`,
          'meter_event_not_found',
          'cancel[identifier]',
        );
      }
      if (event.created < now - uniquenessWindowMillis) {
        throw new InvalidRequestError(
          `The meter event '${identifier}' was received more than 24 hours ago and can no longer be cancelled.`,
          'meter_event_cancellation_window_expired',
          'cancel[identifier]',
        );
      }
      if (event.status === 'invalid') {
        throw new InvalidRequestError(
          `The meter event '${identifier}' was refused when processed (see the meter's error reports) and holds no usage to cancel.`,
          'meter_event_not_counted',
          'cancel[identifier]',
        );
      }
      const adjustment: MeterEventAdjustment = {
        id: newId('mtradj', now),
        scope: origin.scope,
        platformId: origin.platformId,
        created: now,
        eventName: params.event_name,
        type: 'cancel',
        cancelIdentifier: identifier!,
        status: 'pending',
      };
      if (!(await store.requestCancel(event, adjustment))) {
        throw new InvalidRequestError(
          `The meter event '${identifier}' is already cancelled or being cancelled.`,
          'meter_event_already_cancelled',
          'cancel[identifier]',
        );
      }
      await queue.send([{ kind: 'cancel', adjustment }]);
      return adjustment;
    },

    async retrieveAdjustment(scope: Scope, id: string): Promise<MeterEventAdjustment> {
      const adjustment = await store.getAdjustment(scope, id);
      if (!adjustment) throw new NotFoundError('meter event adjustment', id);
      return adjustment;
    },

    /** A session of the caller's scope, which works only while `keyHash` (the creating key's SHA-256) does. */
    async createSession(origin: EventOrigin, keyHash: string): Promise<{ session: MeterEventSession; token: string }> {
      const now = clock();
      const token = `mes_tok_${randomBase62(48)}`;
      const session: MeterEventSession = {
        id: newId('mtrses', now),
        scope: origin.scope,
        platformId: origin.platformId,
        created: now,
        expiresAt: now + sessionLifetimeMillis,
        keyHash,
      };
      await store.putSession(session, hashToken(token));
      return { session, token };
    },

    /** The caller a stream request acts as, from the session token it presents ('' when it presents none). */
    async authenticateSession(token: string): Promise<Caller> {
      if (!token) {
        throw new AuthenticationError('Authenticate with the authentication_token of a meter event session, as Bearer credentials.', 'api_key_missing');
      }
      const now = clock();
      const hash = hashToken(token);
      const session = await store.findSession(hash);
      if (!session)
        throw new AuthenticationError('Invalid meter event session token; create a session with POST /v2/billing/meter_event_session.', 'api_key_invalid');
      if (session.expiresAt <= now) {
        throw new SessionExpiredError(
          'The meter event session has expired; create a new one with POST /v2/billing/meter_event_session.',
          'temporary_session_expired',
        );
      }
      // A session dies with its key: revoked or rolled, it stops within the key cache window.
      if (session.keyHash !== undefined && !isLiveKey(await apiKeys.findApiKey(session.keyHash), now)) {
        throw new AuthenticationError(
          'The API key that created this meter event session was revoked or rolled; create a new session with a current key.',
          'api_key_expired',
        );
      }
      return { platformId: session.platformId, livemode: session.scope.livemode, keyKind: 'secret', credentialId: hash, scope: session.scope };
    },

    /**
     * Stores a stream request's events and queues them; they are validated when processed. The counting
     * plan (`planStreamRequest`) picks the events tried at once instead, event by event, as API events
     * are: what is cheapest on AWS.
     */
    async acceptStream(caller: Caller, events: StreamEvent[]): Promise<void> {
      const now = clock();
      // One meter read per event name in a request.
      const meterFor = memoized(meters.findByEventName, scopedKey);
      // An identifier sent twice in one request counts its first event, whichever path each would take.
      const identifiers = new Set<string>();
      const inputs = events
        .map((event) => normalize(event, now))
        .filter((input) => !identifiers.has(input.identifier) && Boolean(identifiers.add(input.identifier)));
      const atOnce = planStreamRequest(await groupsOf(caller, inputs, meterFor));
      const left = [
        ...inputs.filter((_, index) => !atOnce[index]),
        ...(await countAtOnce(
          caller,
          inputs.filter((_, index) => atOnce[index]),
          now,
          meterFor,
        )),
      ];
      if (left.length === 0) return;
      const batch = { id: newId('mtrbatch', now), scope: caller.scope, platformId: caller.platformId, created: now, events: left };
      await store.putBatch(batch);
      await queue.send([{ kind: 'batch', batch }]);
    },
  };
}
