import type { PutCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { useCaseTypes, type AccountLink, type AccountLinkRepository } from '#shared/account-links/account-link.ts';
import { configurationNames } from '#shared/accounts/capabilities.ts';
import { orNull, scopeItem } from './item-schemas.ts';
import type { Table, TransactItem } from './table.ts';
import { transactChecked } from './transactions.ts';
import { epochSeconds, whenConditionHolds } from './conditions.ts';
import { accountLink } from './keys.ts';

const day = 24 * 60 * 60 * 1000;
const key = (secretHash: string) => ({ PK: accountLink.pk(secretHash), SK: accountLink.sk() });

/** An account link item, parsed: the link's own expiry is `linkExpiresAt`; `expiresAt` is the TTL. */
const accountLinkItem = z
  .object({
    account: z.string(),
    scope: scopeItem,
    platformId: z.string(),
    useCase: z.object({
      type: z.enum(useCaseTypes),
      configurations: z.array(z.enum(configurationNames)),
      refresh_url: z.string(),
      return_url: orNull(z.string()),
      collection_options: z.object({ fields: z.enum(['currently_due', 'eventually_due']), future_requirements: z.enum(['include', 'omit']) }),
    }),
    created: z.number(),
    linkExpiresAt: z.number(),
    state: z.enum(['fresh', 'opened', 'completed']),
    sessionHash: orNull(z.string()),
    sessionExpiresAt: orNull(z.number()),
    keyHash: z.string().optional(),
  })
  .transform(({ linkExpiresAt, ...link }): AccountLink => ({ ...link, expiresAt: linkExpiresAt }));

/** Account links (TABLE_DESIGN.md 44–46): key, item, the schema every read parses, and the update of each step. */
export const accountLinkEntity = {
  key,
  /** Put if absent; the table's TTL a day after the link expires. */
  create: (tableName: string, link: AccountLink, secretHash: string): PutCommandInput => {
    const { expiresAt, ...rest } = link;
    return {
      TableName: tableName,
      Item: { ...key(secretHash), entity: 'account_link', ...rest, linkExpiresAt: expiresAt, expiresAt: epochSeconds(expiresAt + day) },
      ConditionExpression: 'attribute_not_exists(PK)',
    };
  },
  parse: (item: Record<string, unknown>): AccountLink => accountLinkItem.parse(item),
  /** Opened once, while fresh and unexpired: the session it starts, and the TTL a day after that session ends. */
  open: (tableName: string, secretHash: string, session: { hash: string; expiresAt: number }, now: number): UpdateCommandInput => ({
    TableName: tableName,
    Key: key(secretHash),
    UpdateExpression: 'SET #state = :opened, sessionHash = :session, sessionExpiresAt = :sessionExpiresAt, openedAt = :now, expiresAt = :ttl',
    ConditionExpression: '#state = :fresh AND linkExpiresAt > :now',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: {
      ':opened': 'opened',
      ':fresh': 'fresh',
      ':session': session.hash,
      ':sessionExpiresAt': session.expiresAt,
      ':now': now,
      ':ttl': epochSeconds(session.expiresAt + day),
    },
  }),
  /** Completed once, by the session that opened it. */
  complete: (tableName: string, secretHash: string, sessionHash: string, now: number): NonNullable<TransactItem['Update']> => ({
    TableName: tableName,
    Key: key(secretHash),
    UpdateExpression: 'SET #state = :completed, completedAt = :now',
    ConditionExpression: '#state = :opened AND sessionHash = :session',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':completed': 'completed', ':opened': 'opened', ':session': sessionHash, ':now': now },
  }),
};

/**
 * Account links, one partition per link (`ACCOUNT_LINK#<sha256 of secret>`). The link's own expiry is
 * `linkExpiresAt` (ms); `expiresAt` is the table's TTL (s), a day after the link or its session ends, so
 * an expired link still redirects to its refresh_url for a day before it becomes unknown.
 */
export function dynamoAccountLinkRepository(table: Table): AccountLinkRepository {
  const { name } = table;
  return {
    async create(link, secretHash) {
      await table.put(accountLinkEntity.create(name, link, secretHash));
    },

    async find(secretHash, now) {
      const item = await table.get(key(secretHash));
      if (!item || (typeof item.expiresAt === 'number' && item.expiresAt * 1000 <= now)) return undefined;
      return accountLinkEntity.parse(item);
    },

    open: (secretHash, session, now) => whenConditionHolds(() => table.update(accountLinkEntity.open(name, secretHash, session, now))),

    // With its `v2.core.account_link.returned` event in the same transaction: the event exists if and only if the link completed.
    complete: (secretHash, sessionHash, now, outbox) =>
      transactChecked(table, [{ Update: accountLinkEntity.complete(name, secretHash, sessionHash, now) }], outbox),
  };
}
