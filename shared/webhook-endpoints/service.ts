import { systemClock } from '#shared/core/clock.ts';
import type { EgressPolicy } from '#shared/delivery/egress-policy.ts';
import { checkWebhookTarget } from '#shared/delivery/webhook-url.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { newId, randomBase62 } from '#shared/core/ids.ts';
import { mergeMetadata } from '#shared/wire/metadata.ts';
import { withOptimisticRetries } from '#shared/platform/owned-resource.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';
import type { Scope } from '#shared/platform/types.ts';
import { isSealed, type SecretBox } from '#shared/secrets/secret-box.ts';
import type { CreateWebhookEndpointParams, UpdateWebhookEndpointParams } from './schemas.ts';
import type { WebhookEndpoint, WebhookEndpointRepository } from './webhook-endpoint.ts';

export interface WebhookEndpointServicePorts {
  repository: WebhookEndpointRepository;
  /** Most endpoints one owner may have per mode. */
  maxEndpoints: number;
  /** Which webhook targets may be registered (live mode: public addresses only). */
  egress: EgressPolicy;
  /** Seals each new signing secret (and, on its next write, one stored in the clear before sealing existed). */
  secrets: Pick<SecretBox, 'seal'>;
  clock?: () => number;
}

const resource = 'webhook endpoint';

const uniqueEvents = (events: string[]) => [...new Set(events)];

/**
 * v1 webhook endpoints. Their changes emit no events: the reference defines no `webhook_endpoint.*` type, so
 * an endpoint's own create, update and delete reach no subscriber (not even a `*` endpoint).
 */
export function webhookEndpointService({ repository, maxEndpoints, egress, secrets, clock = systemClock }: WebhookEndpointServicePorts) {
  const sealFor = (endpoint: Pick<WebhookEndpoint, 'id' | 'scope'>, secret: string) =>
    isSealed(secret) ? secret : secrets.seal(secret, { accountId: endpoint.scope.accountId, livemode: endpoint.scope.livemode, objectId: endpoint.id });

  async function existing(scope: Scope, id: string): Promise<WebhookEndpoint> {
    const endpoint = await repository.get(scope, id);
    if (!endpoint) throw new NotFoundError(resource, id);
    return endpoint;
  }

  return {
    /** The endpoint as created, with its signing secret in the clear: the one answer that shows it (the table keeps it sealed). */
    async create(scope: Scope, params: CreateWebhookEndpointParams): Promise<WebhookEndpoint> {
      await checkWebhookTarget(params.url, scope.livemode, 'url', egress);
      const now = clock();
      const id = newId('we', now);
      const secret = `whsec_${randomBase62(32)}`;
      const endpoint: WebhookEndpoint = {
        id,
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
        secret: await sealFor({ id, scope }, secret),
        version: 1,
      };
      if (!(await repository.create(endpoint, { limit: maxEndpoints }))) {
        throw new InvalidRequestError(
          `You have reached the maximum of ${maxEndpoints} webhook endpoints in ${scope.livemode ? 'live' : 'test'} mode. Delete one before adding another.`,
          'webhook_endpoint_limit_reached',
          'url',
        );
      }
      return { ...endpoint, secret };
    },

    retrieve: existing,

    async update(scope: Scope, id: string, params: UpdateWebhookEndpointParams): Promise<WebhookEndpoint> {
      if (params.url !== undefined) await checkWebhookTarget(params.url, scope.livemode, 'url', egress);
      return withOptimisticRetries(async () => {
        const current = await existing(scope, id);
        const next: WebhookEndpoint = {
          ...current,
          url: params.url ?? current.url,
          enabledEvents: params.enabled_events ? uniqueEvents(params.enabled_events) : current.enabledEvents,
          description: params.description === undefined ? current.description : params.description,
          metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
          status: params.disabled === undefined ? current.status : params.disabled ? 'disabled' : 'enabled',
          secret: await sealFor(current, current.secret),
          version: current.version + 1,
        };
        return (await repository.replace(next)) ? next : undefined;
      });
    },

    async delete(scope: Scope, id: string): Promise<void> {
      if (!(await repository.delete(scope, id))) throw new NotFoundError(resource, id);
    },

    list(scope: Scope, page: PageRequest): Promise<Page<WebhookEndpoint>> {
      return repository.list(scope, page);
    },
  };
}
