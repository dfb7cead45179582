import { InvalidRequestError, NotFoundError, RateLimitError } from '#shared/errors.ts';
import { newId, randomBase62 } from '#shared/ids.ts';
import { mergeMetadata } from '#shared/http/params.ts';
import type { Page, PageRequest } from '#shared/http/pagination.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { CreateWebhookEndpointParams, UpdateWebhookEndpointParams } from './schemas.ts';
import type { WebhookEndpoint, WebhookEndpointRepository } from './webhook-endpoint.ts';

export interface WebhookEndpointServicePorts {
  repository: WebhookEndpointRepository;
  /** Most endpoints one owner may have per mode. */
  maxEndpoints: number;
  clock?: () => number;
}

const resource = 'webhook endpoint';
const maxWriteAttempts = 8;
/** Jittered pause between optimistic-lock retries, so that colliding writers fall out of step. */
const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));

/** http is fine for test mode (local receivers); live mode delivers only over https. */
function checkUrl(url: string, livemode: boolean): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidRequestError(`Invalid URL: ${url}. It must be an absolute http or https URL.`, 'url_invalid', 'url');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new InvalidRequestError(`Invalid URL: ${url}. It must use http or https.`, 'url_invalid', 'url');
  }
  if (livemode && parsed.protocol !== 'https:') {
    throw new InvalidRequestError(`Invalid URL: ${url}. Live-mode webhook endpoints must use https.`, 'url_invalid', 'url');
  }
}

const uniqueEvents = (events: string[]) => [...new Set(events)];

export function webhookEndpointService({ repository, maxEndpoints, clock = Date.now }: WebhookEndpointServicePorts) {
  async function existing(scope: Scope, id: string): Promise<WebhookEndpoint> {
    const endpoint = await repository.get(scope, id);
    if (!endpoint) throw new NotFoundError(resource, id);
    return endpoint;
  }

  return {
    async create(scope: Scope, params: CreateWebhookEndpointParams): Promise<WebhookEndpoint> {
      checkUrl(params.url, scope.livemode);
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
      if (!(await repository.create(endpoint, maxEndpoints))) {
        throw new InvalidRequestError(
          `You have reached the maximum of ${maxEndpoints} webhook endpoints in ${scope.livemode ? 'live' : 'test'} mode. Delete one before adding another.`,
          'webhook_endpoint_limit_reached',
          'url',
        );
      }
      return endpoint;
    },

    retrieve: existing,

    async update(scope: Scope, id: string, params: UpdateWebhookEndpointParams): Promise<WebhookEndpoint> {
      if (params.url !== undefined) checkUrl(params.url, scope.livemode);
      // Read, apply, write conditionally on the version; a concurrent writer makes us re-read and re-apply.
      for (let attempt = 0; attempt < maxWriteAttempts; attempt++) {
        const current = await existing(scope, id);
        const next: WebhookEndpoint = {
          ...current,
          url: params.url ?? current.url,
          enabledEvents: params.enabled_events ? uniqueEvents(params.enabled_events) : current.enabledEvents,
          description: params.description === undefined ? current.description : params.description,
          metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
          status: params.disabled === undefined ? current.status : params.disabled ? 'disabled' : 'enabled',
          version: current.version + 1,
        };
        if (await repository.replace(next)) return next;
        await backoff(attempt);
      }
      throw new RateLimitError('The webhook endpoint is being changed by other requests at the same time; retry shortly.', 'lock_timeout');
    },

    async delete(scope: Scope, id: string): Promise<void> {
      if (!(await repository.delete(scope, id))) throw new NotFoundError(resource, id);
    },

    list(scope: Scope, page: PageRequest): Promise<Page<WebhookEndpoint>> {
      return repository.list(scope, page);
    },
  };
}

export type WebhookEndpointService = ReturnType<typeof webhookEndpointService>;
