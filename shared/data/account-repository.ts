import type { AccountPerson, AccountRepository, PersonRepository, V2Account } from '#shared/accounts/account.ts';
import type { UpdateSlots } from '#shared/accounts/update-limit.ts';
import type { Table } from './table.ts';
import { epochSeconds, isConditionFailure } from './conditions.ts';
import { account, accountPerson, accountUpdateSlot, v2Account } from './keys.ts';
import { envelopeOf } from './item-schemas.ts';
import { ownedResourceStore } from './owned-resources.ts';
import { transactGuarded } from './transactions.ts';

/**
 * v2 accounts live in their platform's partition. Creating one also writes its account record
 * (`ACCOUNT#<acct>`, `platformId` = the platform) in the same transaction: that record is what lets the
 * platform act inside it with `Service-Context`.
 */
export function dynamoAccountRepository(table: Table): AccountRepository {
  const store = ownedResourceStore<V2Account>(table, { entity: 'v2_account', keys: v2Account, parse: envelopeOf<V2Account>() });
  return {
    ...store,
    async create(created, platformId, outbox) {
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
        ],
        outbox,
      );
      if (!written) throw new Error(`Account id collision: ${created.id}`);
    },
  };
}

/** Persons live in their account's partition, uncapped. */
export const dynamoPersonRepository = (table: Table): PersonRepository =>
  ownedResourceStore<AccountPerson>(table, { entity: 'account_person', keys: accountPerson, parse: envelopeOf<AccountPerson>() });

/**
 * Update slots: `limit` lease items per account. A request takes a free (absent or expired) slot with a
 * conditional put, trying each slot once from a random start, and gives it back by ending its lease (an update
 * conditional on still owning it: a write as cheap as a delete, and no DeleteItem grant). A crashed request's slot frees itself when its lease runs out.
 */
export function dynamoUpdateSlots(table: Table, leaseMillis = 10_000): UpdateSlots {
  const { name } = table;
  return {
    async acquire(scope, accountId, owner, limit, now = table.clock()) {
      const start = Math.floor(Math.random() * limit);
      for (let i = 0; i < limit; i++) {
        const slot = (start + i) % limit;
        try {
          await table.put({
            TableName: name,
            Item: {
              PK: accountUpdateSlot.pk(scope, accountId),
              SK: accountUpdateSlot.sk(slot),
              owner,
              leasedUntil: now + leaseMillis,
              expiresAt: epochSeconds(now + leaseMillis) + 3600,
            },
            ConditionExpression: 'attribute_not_exists(PK) OR leasedUntil < :now',
            ExpressionAttributeValues: { ':now': now },
          });
          return slot;
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
        }
      }
      return undefined;
    },
    async release(scope, accountId, slot, owner) {
      try {
        await table.update({
          TableName: name,
          Key: { PK: accountUpdateSlot.pk(scope, accountId), SK: accountUpdateSlot.sk(slot) },
          UpdateExpression: 'SET leasedUntil = :released',
          ConditionExpression: '#owner = :owner',
          ExpressionAttributeNames: { '#owner': 'owner' },
          ExpressionAttributeValues: { ':owner': owner, ':released': 0 },
        });
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },
  };
}
