import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { RateCounter } from '#shared/http/rate-limit.ts';
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

/** DynamoDB adapter: one item per bucket and second, counted with a conditional `ADD` (one small write). */
export function dynamoRateCounter(table: Table): RateCounter {
  return { take: (bucket, second, limit, count) => whenConditionHolds(() => table.update(rateWindowEntity.take(table.name, bucket, second, limit, count))) };
}
