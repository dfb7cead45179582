import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { CounterThrottledError, type RateCounter } from '#shared/platform/ports.ts';
import type { Table } from './table.ts';
import { whenConditionHolds } from './conditions.ts';
import { rateWindow } from './keys.ts';

/** Counter items outlive their second by this much (TTL), so a late reader never finds a fresh count. */
const keepSeconds = 60;

/** Rate windows (TABLE_DESIGN.md 5): `count` requests taken from a bucket's second if they fit under `limit`. */
export const rateWindowEntity = {
  take: (tableName: string, bucket: string, second: number, limit: number, count: number): UpdateCommandInput => ({
    TableName: tableName,
    Key: { PK: rateWindow.pk(bucket, second), SK: rateWindow.sk() },
    UpdateExpression: 'ADD #count :count SET expiresAt = :expires',
    ConditionExpression: 'attribute_not_exists(#count) OR #count <= :room',
    ExpressionAttributeNames: { '#count': 'count' },
    ExpressionAttributeValues: { ':count': count, ':room': limit - count, ':expires': second + keepSeconds },
  }),
};

/** The errors DynamoDB answers a write it will not take for load (the item's partition, or the table). */
const throttlingErrors = new Set(['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded']);

/** DynamoDB adapter: one item per bucket and second, counted with a conditional `ADD` (one small write). */
export function dynamoRateCounter(table: Table): RateCounter {
  return {
    async take(bucket, second, limit, count) {
      try {
        return await whenConditionHolds(() => table.update(rateWindowEntity.take(table.name, bucket, second, limit, count)));
      } catch (error) {
        if (throttlingErrors.has((error as { name?: string }).name ?? ''))
          throw new CounterThrottledError(`Rate counter ${bucket} throttled`, { cause: error });
        throw error;
      }
    },
  };
}
