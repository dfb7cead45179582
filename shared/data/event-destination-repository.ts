import type { PutCommandInput, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type {
  CloudtwoAuthorization,
  CloudtwoAuthorizationStore,
  EventDestination,
  EventDestinationRepository,
} from '#shared/event-destinations/event-destination.ts';
import { metadataItem, orNull, ownedItem } from './item-schemas.ts';
import type { Table } from './table.ts';
import { cloudtwoAuthorization, eventDestination } from './keys.ts';
import { ownedResourceStore } from './owned-resources.ts';

const eventDestinationItem = z.object({
  ...ownedItem,
  created: z.number(),
  updated: z.number(),
  name: z.string(),
  description: z.string(),
  type: z.enum(['webhook_endpoint', 'cloudone_eventbridge', 'cloudtwo_event_grid']),
  eventPayload: z.enum(['thin', 'snapshot']),
  enabledEvents: z.array(z.string()),
  eventsFrom: orNull(z.array(z.string())),
  snapshotApiVersion: orNull(z.string()),
  metadata: orNull(metadataItem),
  status: z.enum(['enabled', 'disabled']),
  disabledReason: orNull(z.enum(['user', 'no_cloudone_event_source_exists', 'no_cloudtwo_partner_topic_exists'])),
  webhookEndpoint: orNull(z.object({ url: z.string(), signingSecret: z.string() })),
  cloudoneEventbridge: orNull(
    z.object({
      accountId: z.string(),
      region: z.string(),
      eventSourceName: z.string(),
      eventSourceArn: z.string(),
      eventSourceStatus: z.enum(['active', 'deleted', 'pending', 'unknown']),
    }),
  ),
  cloudtwoEventGrid: orNull(
    z.object({
      region: z.string(),
      resourceGroupName: z.string(),
      subscriptionId: z.string(),
      partnerTopicName: z.string(),
      partnerTopicStatus: z.enum(['activated', 'deleted', 'never_activated', 'unknown']),
    }),
  ),
});

/** DynamoDB adapter: destinations live in their owner's partition, capped per owner by `COUNTER#event_destinations`. */
export const dynamoEventDestinationRepository = (table: Table): EventDestinationRepository =>
  ownedResourceStore<EventDestination>(table, {
    entity: 'event_destination',
    keys: eventDestination,
    counterName: 'event_destinations',
    parse: (item) => eventDestinationItem.parse(item),
  });

/** A cloudtwo authorization item, parsed: its expiry is `authorizationExpiresAt`, not the table's TTL. */
const cloudtwoAuthorizationItem = z
  .object({ subscriptionId: z.string(), resourceGroupName: z.string(), authorizationExpiresAt: z.number() })
  .transform(({ authorizationExpiresAt, ...authorization }): CloudtwoAuthorization => ({ ...authorization, expiresAt: authorizationExpiresAt }));

/** cloudtwo partner authorizations (TABLE_DESIGN.md 43): keys, item schema, and the command of each access pattern. */
export const cloudtwoAuthorizationEntity = {
  parse: (item: Record<string, unknown>): CloudtwoAuthorization => cloudtwoAuthorizationItem.parse(item),
  listByAccount: (tableName: string, accountId: string): QueryCommandInput => ({
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': cloudtwoAuthorization.pk(accountId), ':prefix': cloudtwoAuthorization.skPrefix() },
  }),
  /** Not the TTL attribute: an expired authorization must still answer "expired", not "none". */
  put: (tableName: string, accountId: string, authorization: CloudtwoAuthorization): PutCommandInput => ({
    TableName: tableName,
    Item: {
      PK: cloudtwoAuthorization.pk(accountId),
      SK: cloudtwoAuthorization.sk(authorization.subscriptionId, authorization.resourceGroupName),
      entity: 'cloudtwo_authorization',
      subscriptionId: authorization.subscriptionId,
      resourceGroupName: authorization.resourceGroupName,
      authorizationExpiresAt: authorization.expiresAt,
    },
  }),
};

/** cloudtwo partner authorizations, kept in the platform account's partition. */
export function dynamoCloudtwoAuthorizationStore(table: Table): CloudtwoAuthorizationStore {
  return {
    async list(accountId) {
      const { items } = await table.query(cloudtwoAuthorizationEntity.listByAccount(table.name, accountId));
      return items.map(cloudtwoAuthorizationEntity.parse);
    },
    async put(accountId, authorization) {
      await table.put(cloudtwoAuthorizationEntity.put(table.name, accountId, authorization));
    },
  };
}
