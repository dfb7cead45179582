import type { PutCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AccountPerson, AccountRepository, PersonRepository, V2Account } from '#shared/accounts/account.ts';
import type { UpdateSlots } from '#shared/accounts/update-limit.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Table } from './table.ts';
import { epochSeconds, whenConditionHolds } from './conditions.ts';
import { account, accountPerson, accountUpdateSlot, v2Account } from './keys.ts';
import { envelopeOf } from './item-schemas.ts';
import { ownedResourceStore } from './owned-resources.ts';
import { transactGuarded } from './transactions.ts';
import { accountSecretEntity } from './account-secret-store.ts';

/**
 * v2 accounts live in their platform's partition. Creating one also writes its account record
 * (`ACCOUNT#<acct>`, `platformId` = the platform) in the same transaction: that record is what lets the
 * platform act inside it with `Service-Context`.
 */
export function dynamoAccountRepository(table: Table): AccountRepository {
  const store = ownedResourceStore<V2Account>(table, { entity: 'v2_account', keys: v2Account, parse: envelopeOf<V2Account>() });
  return {
    ...store,
    async create(created, platformId, outbox, using) {
      const record = { id: created.id, platformId, livemode: created.scope.livemode, features: { accountsV2: false }, created: created.created };
      const written = await transactGuarded(
        table,
        [
          {
            Put: {
              TableName: table.name,
              Item: { PK: v2Account.pk(created.scope), SK: v2Account.sk(created.id), entity: 'v2_account', ...created },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Put: {
              TableName: table.name,
              Item: { PK: account.pk(created.id), SK: account.sk(), entity: 'account', ...record },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          // Its secret now, so that the read-only routes (which may not create one) always find it.
          accountSecretEntity.createWithAccount(table.name, created.id),
        ],
        outbox,
        { using },
      );
      if (!written) throw new Error(`Account id collision: ${created.id}`);
    },
  };
}

/** Persons live in their account's partition, uncapped. */
export const dynamoPersonRepository = (table: Table): PersonRepository =>
  ownedResourceStore<AccountPerson>(table, { entity: 'account_person', keys: accountPerson, parse: envelopeOf<AccountPerson>() });

/** Account update slots (TABLE_DESIGN.md 31): the take and the give-back of one slot. */
export const updateSlotEntity = {
  key: (scope: Scope, accountId: string, slot: number) => ({ PK: accountUpdateSlot.pk(scope, accountId), SK: accountUpdateSlot.sk(slot) }),
  /** Taken if free: absent, or its lease run out (the TTL removes it an hour after). */
  take: (tableName: string, scope: Scope, accountId: string, slot: number, owner: string, now: number, leaseMillis: number): PutCommandInput => ({
    TableName: tableName,
    Item: { ...updateSlotEntity.key(scope, accountId, slot), owner, leasedUntil: now + leaseMillis, expiresAt: epochSeconds(now + leaseMillis) + 3600 },
    ConditionExpression: 'attribute_not_exists(PK) OR leasedUntil < :now',
    ExpressionAttributeValues: { ':now': now },
  }),
  /** Given back by its owner only: its lease ended (an update as cheap as a delete, and no DeleteItem grant). */
  giveBack: (tableName: string, scope: Scope, accountId: string, slot: number, owner: string): UpdateCommandInput => ({
    TableName: tableName,
    Key: updateSlotEntity.key(scope, accountId, slot),
    UpdateExpression: 'SET leasedUntil = :released',
    ConditionExpression: '#owner = :owner',
    ExpressionAttributeNames: { '#owner': 'owner' },
    ExpressionAttributeValues: { ':owner': owner, ':released': 0 },
  }),
};

/**
 * Update slots: `limit` lease items per account. A request takes a free (absent or expired) slot,
 * trying each slot once from a random start, and gives it back by ending its lease. A crashed request's
 * slot frees itself when its lease runs out.
 */
export function dynamoUpdateSlots(table: Table, leaseMillis = 10_000): UpdateSlots {
  const { name } = table;
  return {
    async acquire(scope, accountId, owner, limit, now = table.clock()) {
      const start = Math.floor(Math.random() * limit);
      for (let i = 0; i < limit; i++) {
        const slot = (start + i) % limit;
        if (await whenConditionHolds(() => table.put(updateSlotEntity.take(name, scope, accountId, slot, owner, now, leaseMillis)))) return slot;
      }
      return undefined;
    },
    async release(scope, accountId, slot, owner) {
      await whenConditionHolds(() => table.update(updateSlotEntity.giveBack(name, scope, accountId, slot, owner)));
    },
  };
}
