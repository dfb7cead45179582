import type { CloudtwoAuthorizationStore, EventDestination, EventDestinationRepository } from '#shared/event-destinations/event-destination.ts';
import type { Table } from './table.ts';
import { cloudtwoAuthorization, eventDestination } from './keys.ts';
import { ownedResourceStore } from './owned-resources.ts';

/** DynamoDB adapter: destinations live in their owner's partition, capped per owner by `COUNTER#event_destinations`. */
export const dynamoEventDestinationRepository = (table: Table): EventDestinationRepository =>
  ownedResourceStore<EventDestination>(table, { entity: 'event_destination', keys: eventDestination, counterName: 'event_destinations' });

/** cloudtwo partner authorizations, kept in the platform account's partition. */
export function dynamoCloudtwoAuthorizationStore(table: Table): CloudtwoAuthorizationStore {
  const { name } = table;
  return {
    async list(accountId) {
      const { items } = await table.query({
        TableName: name,
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
        ExpressionAttributeValues: { ':pk': cloudtwoAuthorization.pk(accountId), ':prefix': cloudtwoAuthorization.skPrefix() },
      });
      return items.map((item) => ({
        subscriptionId: item.subscriptionId as string,
        resourceGroupName: item.resourceGroupName as string,
        expiresAt: item.authorizationExpiresAt as number,
      }));
    },
    async put(accountId, authorization) {
      await table.put({
        TableName: name,
        Item: {
          PK: cloudtwoAuthorization.pk(accountId),
          SK: cloudtwoAuthorization.sk(authorization.subscriptionId, authorization.resourceGroupName),
          entity: 'cloudtwo_authorization',
          subscriptionId: authorization.subscriptionId,
          resourceGroupName: authorization.resourceGroupName,
          // Not the TTL attribute: an expired authorization must still answer "expired", not "none".
          authorizationExpiresAt: authorization.expiresAt,
        },
      });
    },
  };
}
