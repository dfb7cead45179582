import { randomBytes } from 'node:crypto';
import type { AccountSecretStore } from '#shared/platform/account-secrets.ts';
import type { Table } from './table.ts';
import { isConditionFailure } from './conditions.ts';
import { accountSecret } from './keys.ts';

/**
 * The per-account secrets: 32 random bytes in a partition of their own, created by the first request that
 * needs one (a conditional put: when two race, both end up with the one that was written). They never
 * change, so the wiring caches them for the life of the process (`cachedAccountSecrets`). A secret from before that partition existed (in the
 * account's partition) is read from there in the same BatchGetItem and copied over, so fingerprints,
 * idempotency records and page tokens made with it stay valid.
 */
export function dynamoAccountSecretStore(table: Table): AccountSecretStore {
  async function load(accountId: string): Promise<Buffer> {
    const key = { PK: accountSecret.pk(accountId), SK: accountSecret.sk() };
    const [existing, legacy] = await Promise.all([table.get(key), table.get(accountSecret.legacy(accountId))]);
    if (existing) return Buffer.from(existing.secret as string, 'base64');
    const secret = (legacy?.secret as string | undefined) ?? randomBytes(32).toString('base64');
    try {
      await table.put({
        TableName: table.name,
        Item: { ...key, entity: 'account_secret', accountId, secret },
        ConditionExpression: 'attribute_not_exists(PK)',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return Buffer.from(secret, 'base64');
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const winner = (error as { Item?: { secret?: string } }).Item?.secret;
      if (!winner) throw error;
      return Buffer.from(winner, 'base64');
    }
  }

  return { keyFor: load };
}
