import { systemClock } from '#shared/clock.ts';
import type { EgressPolicy } from '#shared/delivery/egress-policy.ts';
import { checkWebhookTarget } from '#shared/delivery/webhook-url.ts';
import { InvalidRequestError, NotFoundError } from '#shared/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { changeAndEmit } from '#shared/events/versioned-change.ts';
import { newId, randomBase62 } from '#shared/ids.ts';
import { mergeMetadata } from '#shared/metadata.ts';
import type { Page, PageRequest } from '#shared/paging.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { CreateWebhookEndpointParams, UpdateWebhookEndpointParams } from './schemas.ts';
import { serializeWebhookEndpoint } from './serializer.ts';
import type { WebhookEndpoint, WebhookEndpointRepository } from './webhook-endpoint.ts';

export interface WebhookEndpointServicePorts {
  repository: WebhookEndpointRepository;
  events: EventEmitter;
  /** Most endpoints one owner may have per mode. */
  maxEndpoints: number;
  /** Which webhook targets may be registered (live mode: public addresses only). */
  egress: EgressPolicy;
  clock?: () => number;
}

const resource = 'webhook endpoint';

const uniqueEvents = (events: string[]) => [...new Set(events)];

/** The snapshot event of a change, with the endpoint rendered exactly as its GET renders it. */
const change = (type: string, endpoint: WebhookEndpoint, before?: WebhookEndpoint) =>
  snapshotInput(type, serializeWebhookEndpoint(endpoint), `/v1/webhook_endpoints/${endpoint.id}`, before ? serializeWebhookEndpoint(before) : undefined);

export function webhookEndpointService({ repository, events, maxEndpoints, egress, clock = systemClock }: WebhookEndpointServicePorts) {
  async function existing(scope: Scope, id: string): Promise<WebhookEndpoint> {
    const endpoint = await repository.get(scope, id);
    if (!endpoint) throw new NotFoundError(resource, id);
    return endpoint;
  }

  return {
    async create(origin: EventOrigin, params: CreateWebhookEndpointParams): Promise<WebhookEndpoint> {
      const { scope } = origin;
      await checkWebhookTarget(params.url, scope.livemode, 'url', egress);
      const now = clock();
      const endpoint: WebhookEndpoint = {
        id: newId('we', now),
        scope,
        created: now,
        url: params.url,
        enabledEvents: uniqueEvents(params.enabled_events),
        description: params.description ?? null,
        metadata: mergeMetadata({}, params.metadata ?? null),
        apiVersion: params.api_version ?? null,
        application: null,
        connect: params.connect ?? false,
        status: 'enabled',
        secret: `whsec_${randomBase62(32)}`,
        version: 1,
      };
      const outbox = events.prepare(origin, [change('webhook_endpoint.created', endpoint)]);
      if (!(await repository.create(endpoint, { limit: maxEndpoints, outbox }))) {
        throw new InvalidRequestError(
          `You have reached the maximum of ${maxEndpoints} webhook endpoints in ${scope.livemode ? 'live' : 'test'} mode. Delete one before adding another.`,
          'webhook_endpoint_limit_reached',
          'url',
        );
      }
      await events.dispatch(outbox);
      return endpoint;
    },

    retrieve: existing,

    async update(origin: EventOrigin, id: string, params: UpdateWebhookEndpointParams): Promise<WebhookEndpoint> {
      const { scope } = origin;
      if (params.url !== undefined) await checkWebhookTarget(params.url, scope.livemode, 'url', egress);
      return changeAndEmit(
        { repository, events },
        origin,
        () => existing(scope, id),
        (current) => ({
          ...current,
          url: params.url ?? current.url,
          enabledEvents: params.enabled_events ? uniqueEvents(params.enabled_events) : current.enabledEvents,
          description: params.description === undefined ? current.description : params.description,
          metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
          status: params.disabled === undefined ? current.status : params.disabled ? 'disabled' : 'enabled',
        }),
        (next, current) => [change('webhook_endpoint.updated', next, current)],
      );
    },

    async delete(origin: EventOrigin, id: string): Promise<void> {
      const current = await existing(origin.scope, id);
      const outbox = events.prepare(origin, [change('webhook_endpoint.deleted', current)]);
      if (!(await repository.delete(origin.scope, id, outbox))) throw new NotFoundError(resource, id);
      await events.dispatch(outbox);
    },

    list(scope: Scope, page: PageRequest): Promise<Page<WebhookEndpoint>> {
      return repository.list(scope, page);
    },
  };
}
