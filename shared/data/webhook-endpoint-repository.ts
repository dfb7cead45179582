import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Scope } from '#shared/platform/types.ts';
import type { WebhookEndpoint, WebhookEndpointRepository } from '#shared/webhook-endpoints/webhook-endpoint.ts';
import type { Table } from './client.ts';
import { cancellationCodes, isConditionFailure } from './conditions.ts';
import { counter, webhookEndpoint as keys } from './keys.ts';
import { queryOwnerPage } from './owner-page.ts';

const counterName = 'webhook_endpoints';

const toItem = (endpoint: WebhookEndpoint) => ({
  PK: keys.pk(endpoint.scope),
  SK: keys.sk(endpoint.id),
  entity: 'webhook_endpoint',
  ...endpoint,
});

function fromItem(item: Record<string, unknown>): WebhookEndpoint {
  const { PK: _pk, SK: _sk, entity: _entity, ...endpoint } = item;
  return endpoint as unknown as WebhookEndpoint;
}

/** DynamoDB adapter: endpoints live in their owner's partition; a counter item enforces the per-owner cap. */
export function dynamoWebhookEndpointRepository(table: Table): WebhookEndpointRepository {
  const { client, name } = table;
  return {
    async create(endpoint, limit) {
      try {
        await client.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: name,
                  Key: { PK: counter.pk(endpoint.scope), SK: counter.sk(counterName) },
                  UpdateExpression: 'ADD #count :one',
                  ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
                  ExpressionAttributeNames: { '#count': 'count' },
                  ExpressionAttributeValues: { ':one': 1, ':limit': limit },
                },
              },
              { Put: { TableName: name, Item: toItem(endpoint), ConditionExpression: 'attribute_not_exists(PK)' } },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return false;
        throw error;
      }
    },
    async get(scope, id) {
      const { Item } = await client.send(new GetCommand({ TableName: name, Key: { PK: keys.pk(scope), SK: keys.sk(id) } }));
      return Item ? fromItem(Item) : undefined;
    },
    async replace(next) {
      try {
        await client.send(
          new PutCommand({
            TableName: name,
            Item: toItem(next),
            ConditionExpression: 'attribute_exists(PK) AND version = :previous',
            ExpressionAttributeValues: { ':previous': next.version - 1 },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },
    async delete(scope: Scope, id: string) {
      try {
        await client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Delete: { TableName: name, Key: { PK: keys.pk(scope), SK: keys.sk(id) }, ConditionExpression: 'attribute_exists(PK)' } },
              {
                Update: {
                  TableName: name,
                  Key: { PK: counter.pk(scope), SK: counter.sk(counterName) },
                  UpdateExpression: 'ADD #count :minusOne',
                  ExpressionAttributeNames: { '#count': 'count' },
                  ExpressionAttributeValues: { ':minusOne': -1 },
                },
              },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return false;
        throw error;
      }
    },
    async list(scope, page) {
      const result = await queryOwnerPage(table, { pk: keys.pk(scope), skPrefix: keys.skPrefix(), page });
      return { items: result.items.map(fromItem), hasMore: result.hasMore };
    },
  };
}
