import { describe, expect, it } from 'vitest';
import { accountSecretEntity } from '#shared/data/account-secret-store.ts';
import { cloudtwoAuthorizationEntity } from '#shared/data/event-destination-repository.ts';
import { idempotencyEntity } from '#shared/data/idempotency-store.ts';
import { accountEntity, apiKeyEntity } from '#shared/data/platform-store.ts';
import type { ApiKeyRecord } from '#shared/platform/types.ts';

const key: ApiKeyRecord = { hash: 'h1', accountId: 'acct_1', livemode: false, kind: 'secret', hint: 'sk_test_…abcd', created: 5 };

describe('entity access patterns (offline: the commands each pattern sends, and the items they parse)', () => {
  it('creates an API key once, findable by hash and listed by account through GSI1 in creation order', () => {
    const put = apiKeyEntity.create('t', key);
    expect(put).toMatchObject({ TableName: 't', ConditionExpression: 'attribute_not_exists(PK)', Item: { PK: 'APIKEY#h1', SK: 'APIKEY', entity: 'api_key' } });
    expect(put.Item!.GSI1PK).toBe(apiKeyEntity.listByAccount('t', 'acct_1').ExpressionAttributeValues![':pk']);
    expect(apiKeyEntity.listByAccount('t', 'acct_1')).toMatchObject({ IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk' });
  });

  it("expires a key without touching the table's TTL attribute (the record must stay to answer 'expired')", () => {
    const update = apiKeyEntity.expire('t', 'h1', 99);
    expect(update.UpdateExpression).toBe('SET keyExpiresAt = :at');
    expect(JSON.stringify(update)).not.toContain('expiresAt =');
    expect(update.ConditionExpression).toBe('attribute_exists(PK)');
  });

  it('parses what the table answers: keys and bookkeeping dropped, the stored expiry read back, a malformed item refused', () => {
    const item = { ...apiKeyEntity.create('t', key).Item, keyExpiresAt: 99 };
    expect(apiKeyEntity.parse(item)).toEqual({ ...key, expiresAt: 99 });
    expect(() => apiKeyEntity.parse({ ...item, kind: 'other' })).toThrow();
    const account = accountEntity.create('t', { id: 'acct_2', platformId: null, features: { accountsV2: true }, created: 1 }).Item!;
    expect(accountEntity.parse(account)).toEqual({ id: 'acct_2', platformId: null, features: { accountsV2: true }, created: 1 });
    // An account stored before features existed reads as having none
    expect(accountEntity.parse({ PK: 'ACCOUNT#acct_3', id: 'acct_3', created: 1 })).toEqual({
      id: 'acct_3',
      platformId: null,
      features: { accountsV2: false },
      created: 1,
    });
  });

  it("keeps a cloudtwo authorization's expiry out of the TTL attribute, and reads it back", () => {
    const authorization = { subscriptionId: 'sub', resourceGroupName: 'rg', expiresAt: 123 };
    const put = cloudtwoAuthorizationEntity.put('t', 'acct_1', authorization);
    expect(put.Item).not.toHaveProperty('expiresAt');
    expect(cloudtwoAuthorizationEntity.parse(put.Item!)).toEqual(authorization);
    expect(cloudtwoAuthorizationEntity.listByAccount('t', 'acct_1').ExpressionAttributeValues).toMatchObject({ ':pk': put.Item!.PK });
  });

  it('writes an account secret once and reads the bytes back', () => {
    const secret = Buffer.alloc(32, 7).toString('base64');
    const put = accountSecretEntity.create('t', 'acct_1', secret);
    expect(put).toMatchObject({ ConditionExpression: 'attribute_not_exists(PK)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
    expect(accountSecretEntity.parse(put.Item!)).toEqual(Buffer.alloc(32, 7));
    expect(() => accountSecretEntity.parse({ PK: 'x' })).toThrow();
  });

  it('claims an idempotency key when free, expired or abandoned, and gets the holder back with a refusal (no second read)', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const claim = { scope, key: 'k', fingerprint: 'f', requestId: 'req', lockedUntil: 2_000, expiresAt: 86_400_000 };
    const put = idempotencyEntity.claim('t', claim, 1_000);
    expect(put.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(put.ConditionExpression).toContain('lockedUntil < :now');
    const open = () => ({ status: 200, body: '{}', headers: {} }) as never;
    expect(idempotencyEntity.parse(put.Item, 1_000, open)).toEqual({ state: 'in_progress', fingerprint: 'f' });
    // Past its TTL (deleted lazily) it is absent; a completed one opens its sealed response
    expect(idempotencyEntity.parse(put.Item, 86_400_000, open)).toEqual({ state: 'absent' });
    expect(idempotencyEntity.parse({ ...put.Item, state: 'complete', sealedResponse: 'x' }, 1_000, open)).toMatchObject({
      state: 'complete',
      response: { status: 200 },
    });
    expect(() => idempotencyEntity.parse({ ...put.Item, state: 'complete' }, 1_000, open)).toThrow();
  });
});
