import type { RateCounter } from '#shared/http/rate-limit.ts';
import type { Table } from './table.ts';
import { whenConditionHolds } from './conditions.ts';
import { rateWindow } from './keys.ts';

/** Counter items outlive their second by this much (TTL), so a late reader never finds a fresh count. */
const keepSeconds = 60;

/** DynamoDB adapter: one item per bucket and second, counted with a conditional `ADD` (one small write). */
export function dynamoRateCounter(table: Table): RateCounter {
  return {
    take: (bucket, second, limit, count) =>
      whenConditionHolds(() =>
        table.update({
          TableName: table.name,
          Key: { PK: rateWindow.pk(bucket, second), SK: rateWindow.sk() },
          UpdateExpression: 'ADD #count :count SET expiresAt = :expires',
          ConditionExpression: 'attribute_not_exists(#count) OR #count <= :room',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':count': count, ':room': limit - count, ':expires': second + keepSeconds },
        }),
      ),
  };
}
