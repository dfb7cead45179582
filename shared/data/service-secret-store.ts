import { randomBytes } from 'node:crypto';
import type { PutCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { isConditionFailure, oldItemOf } from './conditions.ts';
import { serviceSecret } from './keys.ts';
import type { Table } from './table.ts';

/** The service secret item, parsed: the secret, base64. */
const secretItem = z.object({ secret: z.string() });

/** The service secret (TABLE_DESIGN.md 27a): its key, item schema, and the command that creates it. */
export const serviceSecretEntity = {
  key: () => ({ PK: serviceSecret.pk(), SK: serviceSecret.sk() }),
  parse: (item: Record<string, unknown>): Buffer => Buffer.from(secretItem.parse(item).secret, 'base64'),
  /** Written once: when two processes race, the loser's failed condition returns the winner's item. */
  create: (tableName: string, secret: string): PutCommandInput => ({
    TableName: tableName,
    Item: { ...serviceSecretEntity.key(), entity: 'service_secret', secret },
    ConditionExpression: 'attribute_not_exists(PK)',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  }),
};

/**
 * The stack's secret: 32 random bytes, created by the first process that needs it (a conditional put: when
 * two race, both end up with the one that was written). It never changes; the wiring caches it for the life
 * of the process, so a process reads it once.
 */
export function dynamoServiceSecretStore(table: Table): { secret(): Promise<Buffer> } {
  return {
    async secret() {
      const existing = await table.get(serviceSecretEntity.key());
      if (existing) return serviceSecretEntity.parse(existing);
      try {
        const secret = randomBytes(32).toString('base64');
        await table.put(serviceSecretEntity.create(table.name, secret));
        return Buffer.from(secret, 'base64');
      } catch (error) {
        const winner = isConditionFailure(error) ? oldItemOf(error) : undefined;
        if (!winner) throw error;
        return serviceSecretEntity.parse(winner);
      }
    },
  };
}
