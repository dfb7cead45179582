import type { Subscriber } from '#shared/events/event.ts';
import type { OwnedResourceStore } from '#shared/platform/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';

export type DestinationType = 'webhook_endpoint' | 'cloudone_eventbridge' | 'cloudtwo_event_grid';
export type DisabledReason = 'user' | 'no_cloudone_event_source_exists' | 'no_cloudtwo_partner_topic_exists';

/** A v2 event destination as the service keeps it. */
export interface EventDestination {
  id: string;
  scope: Scope;
  created: number;
  updated: number;
  name: string;
  description: string;
  type: DestinationType;
  eventPayload: 'thin' | 'snapshot';
  enabledEvents: string[];
  /** As requested (`@self`, …); null when not given, which routes like `['@self']`. */
  eventsFrom: string[] | null;
  snapshotApiVersion: string | null;
  metadata: Record<string, string> | null;
  status: 'enabled' | 'disabled';
  disabledReason: DisabledReason | null;
  /**
   * `signingSecret` as stored: sealed (shared/secrets/, opened only by the delivery worker to sign), or in
   * the clear in a destination written before sealing existed (sealed on its next write). Only the create
   * call holds it in the clear, for its answer.
   */
  webhookEndpoint: { url: string; signingSecret: string } | null;
  cloudoneEventbridge: {
    accountId: string;
    region: string;
    eventSourceName: string;
    eventSourceArn: string;
    eventSourceStatus: 'active' | 'deleted' | 'pending' | 'unknown';
  } | null;
  cloudtwoEventGrid: {
    region: string;
    resourceGroupName: string;
    subscriptionId: string;
    partnerTopicName: string;
    partnerTopicStatus: 'activated' | 'deleted' | 'never_activated' | 'unknown';
  } | null;
  version: number;
}

export type EventDestinationRepository = OwnedResourceStore<EventDestination>;

/** A cloudtwo partner authorization an operator registered for a platform. */
export interface CloudtwoAuthorization {
  subscriptionId: string;
  resourceGroupName: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

export interface CloudtwoAuthorizationStore {
  list(accountId: string): Promise<CloudtwoAuthorization[]>;
  put(accountId: string, authorization: CloudtwoAuthorization): Promise<void>;
}

/** What a destination subscribes to: its payload kind and event types, from its own account unless `events_from` widens it. */
export const destinationSubscriber = (destination: EventDestination): Subscriber => ({
  ref: { kind: 'event_destination', scope: destination.scope, id: destination.id, version: destination.version },
  payload: destination.eventPayload,
  enabled: destination.status === 'enabled',
  enabledEvents: destination.enabledEvents,
  eventsFrom: destination.eventsFrom ?? ['@self'],
  created: destination.created,
});
