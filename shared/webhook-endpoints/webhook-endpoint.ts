import type { Subscriber } from '#shared/events/event.ts';
import type { OwnedResourceStore } from '#shared/platform/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';

/** A v1 webhook endpoint as the service keeps it. */
export interface WebhookEndpoint {
  id: string;
  scope: Scope;
  created: number;
  url: string;
  enabledEvents: string[];
  description: string | null;
  metadata: Record<string, string>;
  apiVersion: string | null;
  application: string | null;
  /** Also receive events from the owner's connected accounts. */
  connect: boolean;
  status: 'enabled' | 'disabled';
  /**
   * The `whsec_…` signing secret as stored: sealed (shared/secrets/, opened only by the delivery worker to
   * sign), or in the clear in an endpoint written before sealing existed (sealed on its next update). Only
   * the create call holds it in the clear, for its answer, the one that shows it.
   */
  secret: string;
  /** Optimistic-lock counter, bumped by every write. */
  version: number;
}

/** Storage port for v1 webhook endpoints. Every write also writes the change's outbox, atomically. */
export type WebhookEndpointRepository = OwnedResourceStore<WebhookEndpoint>;

/** What a v1 endpoint subscribes to: snapshot events of its account, and of its connected accounts when `connect` is set. */
export const endpointSubscriber = (endpoint: WebhookEndpoint): Subscriber => ({
  ref: { kind: 'webhook_endpoint', scope: endpoint.scope, id: endpoint.id, version: endpoint.version },
  payload: 'snapshot',
  enabled: endpoint.status === 'enabled',
  enabledEvents: endpoint.enabledEvents,
  eventsFrom: endpoint.connect ? ['@self', '@accounts'] : ['@self'],
  created: endpoint.created,
});
