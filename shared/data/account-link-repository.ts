import type { AccountLink, AccountLinkRepository } from '#shared/account-links/account-link.ts';
import type { Table } from './table.ts';
import { epochSeconds, isConditionFailure } from './conditions.ts';
import { accountLink } from './keys.ts';

const day = 24 * 60 * 60 * 1000;
const key = (secretHash: string) => ({ PK: accountLink.pk(secretHash), SK: accountLink.sk() });

/** Runs a conditional update; false when its condition failed. */
async function conditionally(table: Table, input: Parameters<Table['update']>[0]): Promise<boolean> {
  try {
    await table.update(input);
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Account links, one partition per link (`ACCOUNT_LINK#<sha256 of secret>`). The link's own expiry is
 * `linkExpiresAt` (ms); `expiresAt` is the table's TTL (s), a day after the link or its session ends, so
 * an expired link still redirects to its refresh_url for a day before it becomes unknown.
 */
export function dynamoAccountLinkRepository(table: Table): AccountLinkRepository {
  const { name } = table;
  return {
    async create(link, secretHash) {
      const { expiresAt, ...rest } = link;
      await table.put({
        TableName: name,
        Item: { ...key(secretHash), entity: 'account_link', ...rest, linkExpiresAt: expiresAt, expiresAt: epochSeconds(expiresAt + day) },
        ConditionExpression: 'attribute_not_exists(PK)',
      });
    },

    async find(secretHash, now) {
      const item = await table.get(key(secretHash));
      if (!item || (typeof item.expiresAt === 'number' && item.expiresAt * 1000 <= now)) return undefined;
      return {
        account: item.account as string,
        scope: item.scope as AccountLink['scope'],
        platformId: item.platformId as string,
        useCase: item.useCase as AccountLink['useCase'],
        created: item.created as number,
        expiresAt: item.linkExpiresAt as number,
        state: item.state as AccountLink['state'],
        sessionHash: (item.sessionHash as string | undefined) ?? null,
        sessionExpiresAt: (item.sessionExpiresAt as number | undefined) ?? null,
      };
    },

    open(secretHash, session, now) {
      return conditionally(table, {
        TableName: name,
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
      });
    },

    complete(secretHash, sessionHash, now) {
      return conditionally(table, {
        TableName: name,
        Key: key(secretHash),
        UpdateExpression: 'SET #state = :completed, completedAt = :now',
        ConditionExpression: '#state = :opened AND sessionHash = :session',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':completed': 'completed', ':opened': 'opened', ':session': sessionHash, ':now': now },
      });
    },
  };
}
