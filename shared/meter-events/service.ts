import { createHash, randomUUID } from 'node:crypto';
import { AuthenticationError, ConflictError, InvalidRequestError, NotFoundError, SessionExpiredError } from '#shared/errors.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import type { Caller } from '#shared/http/authenticate.ts';
import { newId, randomBase62 } from '#shared/ids.ts';
import type { MeterRepository } from '#shared/meters/meter.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { MeterEventAdjustment, MeterEventInput, MeterEventRecord, MeterEventSession, MeterEventStore, MeterWork } from './meter-event.ts';
import { problemOf, readingOf, uniquenessWindowMillis } from './rules.ts';
import type { CreateMeterEventAdjustmentParams, CreateMeterEventParams } from './schemas.ts';

/** Where accepted work goes to be processed (the meter-events queue). */
export interface MeterWorkQueue {
  send(work: MeterWork[]): Promise<void>;
}

export interface MeterEventServicePorts {
  store: MeterEventStore;
  meters: Pick<MeterRepository, 'findByEventName'>;
  queue: MeterWorkQueue;
  clock?: () => number;
}

/** Meter event sessions last 15 minutes. */
export const sessionLifetimeMillis = 15 * 60 * 1000;
const sessionCacheMillis = 60_000;

const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

type StreamEvent = Omit<CreateMeterEventParams, 'timestamp'> & { timestamp?: number };

/**
 * The synchronous side of metering. `create` checks an event against its meter, holds the meter and
 * customer's usage lease while it claims the identifier (which stores the event), then queues it; the
 * stream stores a whole request and queues it for the same processing. Nothing is acknowledged before it
 * is stored, and the meter sweeper re-queues what a crash left stored but unqueued.
 */
export function meterEventService({ store, meters, queue, clock = Date.now }: MeterEventServicePorts) {
  const normalize = (params: StreamEvent, now: number): MeterEventInput => ({
    eventName: params.event_name,
    identifier: params.identifier ?? randomUUID(),
    payload: params.payload,
    timestamp: params.timestamp ?? now,
  });

  const sessions = new Map<string, { session: MeterEventSession; until: number }>();

  return {
    async create(origin: EventOrigin, params: CreateMeterEventParams): Promise<MeterEventRecord> {
      const now = clock();
      const input = normalize(params, now);
      const meter = await meters.findByEventName(origin.scope, input.eventName);
      const problem = problemOf(meter, input, now);
      if (problem) throw new InvalidRequestError(problem.message, problem.sync, problem.param);
      const { customerId } = readingOf(meter!, input);
      const owner = origin.request?.id ?? randomUUID();
      if (!(await store.lock(origin.scope, meter!.id, customerId!, owner, now))) {
        throw new ConflictError(
          `Another usage event for customer '${customerId}' and meter ${meter!.id} is being recorded right now; retry this one.`,
          'too_many_concurrent_requests',
        );
      }
      const event: MeterEventRecord = {
        ...input,
        scope: origin.scope,
        platformId: origin.platformId,
        created: now,
        source: 'api',
        batchId: null,
        status: 'accepted',
        meterId: meter!.id,
        cancelAdjustmentId: null,
      };
      const release = () => store.unlock(origin.scope, meter!.id, customerId!, owner);
      let recorded: boolean;
      try {
        recorded = await store.record(event);
      } catch (error) {
        await release();
        throw error;
      }
      if (!recorded) {
        await release();
        throw new InvalidRequestError(
          `A meter event with identifier '${input.identifier}' was already submitted in the last 24 hours.`,
          'duplicate_meter_event',
          'identifier',
        );
      }
      // The lease is released before answering, so a client's next event never finds it held by this one.
      await Promise.all([release(), queue.send([{ kind: 'event', event }])]);
      return event;
    },

    async adjust(origin: EventOrigin, params: CreateMeterEventAdjustmentParams): Promise<MeterEventAdjustment> {
      const identifier = params.cancel?.identifier;
      if (params.type === 'cancel' && identifier === undefined) {
        throw new InvalidRequestError('An adjustment of type cancel needs cancel.identifier, the identifier of the event to cancel.', 'invalid_cancel_configuration', 'cancel');
      }
      const now = clock();
      const meter = await meters.findByEventName(origin.scope, params.event_name);
      if (!meter) throw new InvalidRequestError(`No meter was found with event_name '${params.event_name}'.`, 'no_meter', 'event_name');
      const event = await store.getEvent(origin.scope, identifier!);
      if (!event || event.eventName !== params.event_name) {
        throw new InvalidRequestError(`No meter event with identifier '${identifier}' and event_name '${params.event_name}' was found.`, 'meter_event_not_found', 'cancel.identifier');
      }
      if (event.created < now - uniquenessWindowMillis) {
        throw new InvalidRequestError(`The meter event '${identifier}' was received more than 24 hours ago and can no longer be cancelled.`, 'meter_event_cancellation_window_expired', 'cancel.identifier');
      }
      if (event.status === 'invalid') {
        throw new InvalidRequestError(`The meter event '${identifier}' was refused when processed (see the meter's error reports) and holds no usage to cancel.`, 'meter_event_not_counted', 'cancel.identifier');
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
        throw new InvalidRequestError(`The meter event '${identifier}' is already cancelled or being cancelled.`, 'meter_event_already_cancelled', 'cancel.identifier');
      }
      await queue.send([{ kind: 'cancel', adjustment }]);
      return adjustment;
    },

    async retrieveAdjustment(scope: Scope, id: string): Promise<MeterEventAdjustment> {
      const adjustment = await store.getAdjustment(scope, id);
      if (!adjustment) throw new NotFoundError('meter event adjustment', id);
      return adjustment;
    },

    async createSession(origin: EventOrigin): Promise<{ session: MeterEventSession; token: string }> {
      const now = clock();
      const token = `mes_tok_${randomBase62(48)}`;
      const session: MeterEventSession = {
        id: newId('mtrses', now),
        scope: origin.scope,
        platformId: origin.platformId,
        created: now,
        expiresAt: now + sessionLifetimeMillis,
      };
      await store.putSession(session, hashToken(token));
      return { session, token };
    },

    /** The caller a stream request acts as, from the session token it presents as Bearer credentials. */
    async authenticateSession(headers: Record<string, string | undefined>): Promise<Caller> {
      const [scheme = '', token = ''] = (headers.authorization ?? '').trim().split(/\s+/);
      if (scheme.toLowerCase() !== 'bearer' || !token) {
        throw new AuthenticationError('Authenticate with the authentication_token of a meter event session, as Bearer credentials.', 'api_key_missing');
      }
      const now = clock();
      const hash = hashToken(token);
      const cached = sessions.get(hash);
      const session = cached && cached.until > now ? cached.session : await store.findSession(hash);
      if (!session) throw new AuthenticationError('Invalid meter event session token; create a session with POST /v2/billing/meter_event_session.', 'api_key_invalid');
      sessions.set(hash, { session, until: Math.min(now + sessionCacheMillis, session.expiresAt) });
      if (session.expiresAt <= now) {
        throw new SessionExpiredError('The meter event session has expired; create a new one with POST /v2/billing/meter_event_session.', 'temporary_session_expired');
      }
      return { platformId: session.platformId, livemode: session.scope.livemode, keyKind: 'secret', credentialId: hash, scope: session.scope };
    },

    /** Stores a stream request's events and queues them; they are validated when processed. */
    async acceptStream(caller: Caller, events: StreamEvent[]): Promise<void> {
      const now = clock();
      const batch = {
        id: newId('mtrbatch', now),
        scope: caller.scope,
        platformId: caller.platformId,
        created: now,
        events: events.map((event) => normalize(event, now)),
      };
      await store.putBatch(batch);
      await queue.send([{ kind: 'batch', batch }]);
    },
  };
}

export type MeterEventService = ReturnType<typeof meterEventService>;
