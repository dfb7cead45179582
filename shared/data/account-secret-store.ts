import { randomBytes } from 'node:crypto';
import type { PutCommandInput } from '@aws-sdk/lib-dynamodb';
import type { TransactItem } from './table.ts';
import * as z from 'zod';
import type { AccountSecretStore } from '#shared/platform/account-secrets.ts';
import { isConditionFailure, oldItemOf } from './conditions.ts';
import { accountSecret } from './keys.ts';
import type { Table } from './table.ts';

/** An account secret item (or its legacy copy), parsed: the secret, base64. */
const secretItem = z.object({ secret: z.string() });

/** Account secrets (TABLE_DESIGN.md 27): keys, item schema, and the command of each access pattern. */
export const accountSecretEntity = {
  key: (accountId: string) => ({ PK: accountSecret.pk(accountId), SK: accountSecret.sk() }),
  legacyKey: accountSecret.legacy,
  parse: (item: Record<string, unknown>): Buffer => Buffer.from(secretItem.parse(item).secret, 'base64'),
  /** Written once: when two requests race, the loser's failed condition returns the winner's item. */
  create: (tableName: string, accountId: string, secret: string): PutCommandInput => ({
    TableName: tableName,
    Item: { ...accountSecretEntity.key(accountId), entity: 'account_secret', accountId, secret },
    ConditionExpression: 'attribute_not_exists(PK)',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  }),
  /** A new account's secret, written in the transaction that creates the account (so a read-only route always finds one). */
  createWithAccount: (tableName: string, accountId: string): TransactItem => ({
    Put: {
      TableName: tableName,
      Item: { ...accountSecretEntity.key(accountId), entity: 'account_secret', accountId, secret: randomBytes(32).toString('base64') },
      ConditionExpression: 'attribute_not_exists(PK)',
    },
  }),
};

/**
 * The per-account secrets: 32 random bytes in a partition of their own, created by the first request that
 * needs one (a conditional put: when two race, both end up with the one that was written). They never
 * change, so the wiring caches them for the life of the process (`cachedAccountSecrets`). A secret from before that partition existed (in the
 * account's partition) is read from there in the same BatchGetItem and copied over, so fingerprints,
 * idempotency records and page tokens made with it stay valid.
 */
export function dynamoAccountSecretStore(table: Table): AccountSecretStore {
  /** Read-only: the secret, or the legacy copy (not copied over: that is a write), or nothing. */
  async function existing(accountId: string): Promise<Buffer | undefined> {
    const [found, legacy] = await Promise.all([table.get(accountSecretEntity.key(accountId)), table.get(accountSecretEntity.legacyKey(accountId))]);
    if (found) return accountSecretEntity.parse(found);
    return legacy ? accountSecretEntity.parse(legacy) : undefined;
  }

  async function load(accountId: string): Promise<Buffer> {
    const [existing, legacy] = await Promise.all([table.get(accountSecretEntity.key(accountId)), table.get(accountSecretEntity.legacyKey(accountId))]);
    if (existing) return accountSecretEntity.parse(existing);
    const secret = legacy ? secretItem.parse(legacy).secret : randomBytes(32).toString('base64');
    try {
      await table.put(accountSecretEntity.create(table.name, accountId, secret));
      return Buffer.from(secret, 'base64');
    } catch (error) {
      const winner = isConditionFailure(error) ? oldItemOf(error) : undefined;
      if (!winner) throw error;
      return accountSecretEntity.parse(winner);
    }
  }

  return { keyFor: load, existingKeyFor: existing };
}

/**
 * The one-off upgrade step for accounts made before accounts got their secret at creation
 * (`npm run admin -- ensure-account-secrets`): every account record (one Scan of the table, filtered) gets
 * its secret, created or copied over from its legacy place, as its first write request would. Safe to run
 * again, and while the service runs (each creation is the same conditional put).
 */
export async function ensureAccountSecrets(table: Table): Promise<{ accounts: number; created: number }> {
  const store = dynamoAccountSecretStore(table);
  let accounts = 0;
  let created = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.scan({
      TableName: table.name,
      FilterExpression: 'entity = :account',
      ExpressionAttributeValues: { ':account': 'account' },
      ProjectionExpression: 'id',
      ...(start ? { ExclusiveStartKey: start } : {}),
    });
    for (const item of page.items) {
      const { id } = z.object({ id: z.string() }).parse(item);
      accounts++;
      if (await table.get(accountSecretEntity.key(id))) continue;
      await store.keyFor(id);
      created++;
    }
    start = page.lastKey;
  } while (start);
  return { accounts, created };
}
