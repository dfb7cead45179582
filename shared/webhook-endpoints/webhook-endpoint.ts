import type { Page, PageRequest } from '#shared/http/pagination.ts';
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
  /** The `whsec_…` signing secret. Shown once, in the create response; kept to sign deliveries. */
  secret: string;
  /** Optimistic-lock counter, bumped by every write. */
  version: number;
}

export type WebhookEndpointChanges = Partial<Pick<WebhookEndpoint, 'url' | 'enabledEvents' | 'description' | 'metadata' | 'status'>>;

/** Storage port for v1 webhook endpoints. */
export interface WebhookEndpointRepository {
  /** Stores a new endpoint unless the owner already has `limit` of them (then returns false). */
  create(endpoint: WebhookEndpoint, limit: number): Promise<boolean>;
  get(scope: Scope, id: string): Promise<WebhookEndpoint | undefined>;
  /** Writes `next` if the stored version is still `next.version - 1`; false when someone else wrote first. */
  replace(next: WebhookEndpoint): Promise<boolean>;
  /** Removes the endpoint; false when it did not exist. */
  delete(scope: Scope, id: string): Promise<boolean>;
  /** Newest first. */
  list(scope: Scope, page: PageRequest): Promise<Page<WebhookEndpoint>>;
}
