import { systemClock } from '#shared/core/clock.ts';
import { newSigningSecret } from '#shared/delivery/signature.ts';
import type { EgressPolicy } from '#shared/delivery/egress-policy.ts';
import { checkWebhookTarget } from '#shared/delivery/webhook-url.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { checkMetadataSize } from '#shared/wire/metadata.ts';
import { isSnapshotEventType, isThinEventType } from '#shared/events/subscribable.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin, ThinEvent } from '#shared/events/event.ts';
import { changeAndEmit } from '#shared/events/versioned-change.ts';
import { isServiceVersion, unknownVersionMessage } from '#shared/wire/api-version.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';
import { newId } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import { isSealed, type SecretBox } from '#shared/secrets/secret-box.ts';
import type { CloudtwoAuthorizationStore, DestinationType, EventDestination, EventDestinationRepository } from './event-destination.ts';
import type { CreateEventDestinationParams, UpdateEventDestinationParams } from './schemas.ts';

export interface EventDestinationServicePorts {
  repository: EventDestinationRepository;
  authorizations: CloudtwoAuthorizationStore;
  events: EventEmitter;
  /** Most destinations one owner may have per mode. */
  maxDestinations: number;
  /** Partner part of cloudone event source names. */
  eventSourcePrefix: string;
  /** How `ping` finds the destination it acts on (default: `repository.get`). */
  pinged?: (scope: Scope, id: string) => Promise<EventDestination | undefined>;
  /** Which webhook targets may be registered (live mode: public addresses only). */
  egress: EgressPolicy;
  /** Seals each new signing secret (and, on the destination's next write, one stored in the clear before sealing existed). */
  secrets: Pick<SecretBox, 'seal'>;
  clock?: () => number;
}

const resource = 'event destination';
const configurations: Record<DestinationType, 'webhook_endpoint' | 'cloudone_eventbridge' | 'cloudtwo_event_grid'> = {
  webhook_endpoint: 'webhook_endpoint',
  cloudone_eventbridge: 'cloudone_eventbridge',
  cloudtwo_event_grid: 'cloudtwo_event_grid',
};

/** Thin destinations take thin types, snapshot destinations snapshot types. */
function checkEnabledEvents(events: string[], payload: 'thin' | 'snapshot'): string[] {
  events.forEach((type, index) => {
    const known = payload === 'thin' ? isThinEventType(type) : isSnapshotEventType(type);
    if (!known) {
      const other = payload === 'thin' ? isSnapshotEventType(type) : isThinEventType(type);
      throw new InvalidRequestError(
        other
          ? `'${type}' is a ${payload === 'thin' ? 'snapshot' : 'thin'} event type; a ${payload} destination takes ${payload} event types.`
          : `'${type}' is not an event type.`,
        'invalid_enabled_events',
        `enabled_events.${index}`,
      );
    }
  });
  return [...new Set(events)];
}

export function eventDestinationService(ports: EventDestinationServicePorts) {
  const { repository, authorizations, events, maxDestinations, eventSourcePrefix, pinged = repository.get, egress, secrets, clock = systemClock } = ports;

  /** The destination with its signing secret sealed (it may have been stored in the clear before sealing existed). */
  async function sealed(destination: EventDestination): Promise<EventDestination> {
    const webhook = destination.webhookEndpoint;
    if (!webhook || isSealed(webhook.signingSecret)) return destination;
    const context = { accountId: destination.scope.accountId, livemode: destination.scope.livemode, objectId: destination.id };
    return { ...destination, webhookEndpoint: { ...webhook, signingSecret: await secrets.seal(webhook.signingSecret, context) } };
  }

  async function existing(scope: Scope, id: string, find = repository.get): Promise<EventDestination> {
    const destination = await find(scope, id);
    if (!destination) throw new NotFoundError(resource, id);
    return destination;
  }

  async function checkCloudtwoAuthorization(platformId: string, subscriptionId: string, resourceGroupName: string, now: number) {
    const registered = await authorizations.list(platformId);
    if (registered.length === 0) {
      throw new InvalidRequestError(
        'No cloudtwo partner authorization exists for this account. Ask the operator to register one for your subscription and resource group.',
        'invalid_cloudtwo_partner_authorization',
      );
    }
    const match = registered.find((auth) => auth.subscriptionId === subscriptionId && auth.resourceGroupName === resourceGroupName);
    if (!match) {
      throw new InvalidRequestError(
        `No cloudtwo partner configuration matches subscription '${subscriptionId}' and resource group '${resourceGroupName}'.`,
        'invalid_cloudtwo_partner_configuration',
      );
    }
    if (match.expiresAt <= now) {
      throw new InvalidRequestError(
        `The cloudtwo partner authorization for subscription '${subscriptionId}' expired on ${new Date(match.expiresAt).toISOString()}.`,
        'expired_cloudtwo_partner_authorization',
      );
    }
  }

  /** Versioned change of one destination (destination changes emit no events). */
  const change = (origin: EventOrigin, id: string, apply: (current: EventDestination) => EventDestination) =>
    changeAndEmit(
      { repository, events },
      origin,
      async () => sealed(await existing(origin.scope, id)),
      (current) => ({ ...apply(current), updated: clock() }),
      () => [],
    );

  return {
    /** The destination as created, with its signing secret in the clear: the one answer that may show it (the table keeps it sealed). */
    async create(origin: EventOrigin, params: CreateEventDestinationParams): Promise<EventDestination> {
      const { scope } = origin;
      const needed = configurations[params.type];
      if (!params[needed]) {
        throw new InvalidRequestError(`Missing required param: ${needed} (required when type is ${params.type}).`, 'parameter_missing', needed);
      }
      for (const other of Object.values(configurations)) {
        if (other !== needed && params[other]) {
          throw new InvalidRequestError(`${other} cannot be given when type is ${params.type}.`, 'parameter_unknown', other);
        }
      }
      if (params.snapshot_api_version !== undefined) {
        if (params.event_payload !== 'snapshot') {
          throw new InvalidRequestError('snapshot_api_version can only be given when event_payload is snapshot.', 'parameter_unknown', 'snapshot_api_version');
        }
        if (!isServiceVersion(params.snapshot_api_version)) {
          throw new InvalidRequestError(unknownVersionMessage(params.snapshot_api_version), 'parameter_invalid', 'snapshot_api_version');
        }
      }
      if (params.include?.includes('webhook_endpoint.signing_secret') && params.type !== 'webhook_endpoint') {
        throw new InvalidRequestError(
          'webhook_endpoint.signing_secret can only be included for a webhook_endpoint destination.',
          'parameter_invalid',
          'include',
        );
      }
      const enabledEvents = checkEnabledEvents(params.enabled_events, params.event_payload);
      const now = clock();
      const id = newId('ed', now);

      let destination: EventDestination = {
        id,
        scope,
        created: now,
        updated: now,
        name: params.name,
        description: params.description ?? '',
        type: params.type,
        eventPayload: params.event_payload,
        enabledEvents,
        eventsFrom: params.events_from ? [...new Set(params.events_from)] : null,
        snapshotApiVersion: params.event_payload === 'snapshot' ? (params.snapshot_api_version ?? origin.apiVersion) : null,
        metadata: params.metadata ?? null,
        status: 'enabled',
        disabledReason: null,
        webhookEndpoint: null,
        cloudoneEventbridge: null,
        cloudtwoEventGrid: null,
        version: 1,
      };
      if (params.webhook_endpoint) {
        await checkWebhookTarget(params.webhook_endpoint.url, scope.livemode, 'webhook_endpoint.url', egress);
        destination = { ...destination, webhookEndpoint: { url: params.webhook_endpoint.url, signingSecret: newSigningSecret() } };
      }
      if (params.cloudone_eventbridge) {
        const { cloudone_account_id: accountId, cloudone_region: region } = params.cloudone_eventbridge;
        const eventSourceName = `${eventSourcePrefix}/${scope.accountId}/${id}`;
        destination = {
          ...destination,
          cloudoneEventbridge: {
            accountId,
            region,
            eventSourceName,
            eventSourceArn: `arn:cloudone:events:${region}::event-source/${eventSourceName}`,
            eventSourceStatus: 'pending',
          },
        };
      }
      if (params.cloudtwo_event_grid) {
        const grid = params.cloudtwo_event_grid;
        await checkCloudtwoAuthorization(origin.platformId, grid.cloudtwo_subscription_id, grid.cloudtwo_resource_group_name, now);
        destination = {
          ...destination,
          cloudtwoEventGrid: {
            region: grid.cloudtwo_region,
            resourceGroupName: grid.cloudtwo_resource_group_name,
            subscriptionId: grid.cloudtwo_subscription_id,
            partnerTopicName: `service-${id}`,
            partnerTopicStatus: 'never_activated',
          },
        };
      }
      if (!(await repository.create(await sealed(destination), { limit: maxDestinations }))) {
        throw new InvalidRequestError(
          `You have reached the maximum of ${maxDestinations} event destinations in ${scope.livemode ? 'live' : 'test'} mode. Delete one before adding another.`,
          'event_destination_limit_reached',
        );
      }
      return destination;
    },

    retrieve: existing,

    async update(origin: EventOrigin, id: string, params: UpdateEventDestinationParams): Promise<EventDestination> {
      if (params.webhook_endpoint) await checkWebhookTarget(params.webhook_endpoint.url, origin.scope.livemode, 'webhook_endpoint.url', egress);
      return change(origin, id, (current) => {
        if (params.webhook_endpoint && current.type !== 'webhook_endpoint') {
          throw new InvalidRequestError(`webhook_endpoint cannot be given for a ${current.type} destination.`, 'parameter_unknown', 'webhook_endpoint');
        }
        let metadata = current.metadata;
        if (params.metadata) {
          metadata = { ...(current.metadata ?? {}) };
          for (const [key, value] of Object.entries(params.metadata)) {
            if (value === null) delete metadata[key];
            else metadata[key] = value;
          }
          checkMetadataSize(metadata);
        }
        return {
          ...current,
          name: params.name ?? current.name,
          description: params.description ?? current.description,
          enabledEvents: params.enabled_events ? checkEnabledEvents(params.enabled_events, current.eventPayload) : current.enabledEvents,
          metadata,
          webhookEndpoint:
            params.webhook_endpoint && current.webhookEndpoint ? { ...current.webhookEndpoint, url: params.webhook_endpoint.url } : current.webhookEndpoint,
        };
      });
    },

    enable: (origin: EventOrigin, id: string) => change(origin, id, (current) => ({ ...current, status: 'enabled', disabledReason: null })),

    disable: (origin: EventOrigin, id: string) => change(origin, id, (current) => ({ ...current, status: 'disabled', disabledReason: 'user' })),

    async delete(origin: EventOrigin, id: string): Promise<void> {
      if (!(await repository.delete(origin.scope, id))) throw new NotFoundError(resource, id);
    },

    list(scope: Scope, page: PageRequest): Promise<Page<EventDestination>> {
      return repository.list(scope, page);
    },

    /** Sends a `v2.core.event_destination.ping` event to this destination (only), and returns it. */
    async ping(origin: EventOrigin, id: string): Promise<ThinEvent> {
      const destination = await existing(origin.scope, id, pinged);
      const outbox = await events.publish(origin, [
        {
          kind: 'thin',
          type: 'v2.core.event_destination.ping',
          relatedObject: { id, type: 'v2.core.event_destination', url: `/v2/core/event_destinations/${id}` },
          changes: null,
          data: {},
          only: { kind: 'event_destination', scope: destination.scope, id, version: destination.version },
        },
      ]);
      return outbox.thinEvents[0]!;
    },
  };
}
