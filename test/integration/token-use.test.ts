import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { blankAccount, type AccountPerson } from '#shared/accounts/account.ts';
import { dynamoAccountRepository, dynamoPersonRepository } from '#shared/data/account-repository.ts';
import { token as tokenKeys } from '#shared/data/keys.ts';
import { dynamoTokenRepository } from '#shared/data/token-repository.ts';
import { newId } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { TokenUse } from '#shared/tokens/token.ts';
import { newPlatform, sdk, stackTable } from '../support/stack.ts';

/** Tokens are used up by the write that applies them, in its own transaction (TABLE_DESIGN.md 26). */
describe('using account and person tokens in the transaction of the write', () => {
  let publishable: Stripe;
  let platformId: string;
  let scope: Scope;
  beforeAll(async () => {
    const platform = await newPlatform();
    publishable = sdk(platform.publishable_key);
    platformId = platform.account;
    scope = { accountId: platform.account, livemode: false };
  });

  const useOf = (id: string, type: TokenUse['type'], now = Date.now()): TokenUse => ({ scope, id, type, now, param: 'account_token' });

  it('lets exactly one of 20 concurrent account creations use one token; the others write nothing', async () => {
    // Given a fresh account token
    const token = await publishable.v2.core.accountTokens.create({ display_name: 'Once' });
    const accounts = dynamoAccountRepository(stackTable());
    const made = Array.from({ length: 20 }, () => blankAccount(newId('acct'), scope, Date.now()));

    // When 20 writes use it at once
    const outcomes = await Promise.allSettled(made.map((account) => accounts.create(account, platformId, undefined as never, useOf(token.id, 'v2_account'))));

    // Then one account is written and 19 writes are refused as reuse, leaving no account behind
    const lost = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    expect(lost).toHaveLength(19);
    for (const { reason } of lost) {
      expect(reason).toMatchObject({
        code: 'token_already_used',
        param: 'account_token',
        message: `You cannot use a Service token more than once: ${token.id}.`,
      });
    }
    const stored = await Promise.all(made.map((account) => accounts.get(scope, account.id)));
    expect(stored.filter(Boolean)).toHaveLength(1);
    expect(await dynamoTokenRepository(stackTable()).get(scope, token.id, Date.now())).toMatchObject({ used: true });
  });

  it('leaves the token unused when the write itself does not happen, and refuses it once expired', async () => {
    // Given a person and a person token for its account
    const persons = dynamoPersonRepository(stackTable());
    const personScope: Scope = { accountId: newId('acct'), livemode: false };
    const person: AccountPerson = { id: newId('person'), scope: personScope, version: 1, created: Date.now(), updated: Date.now(), fields: {} };
    await persons.create(person);
    const tokens = dynamoTokenRepository(stackTable());
    const now = Date.now();
    const tokenId = newId('perstok');
    await tokens.create({
      id: tokenId,
      scope,
      created: now,
      expiresAt: now + 600_000,
      clientIp: null,
      used: false,
      type: 'v2_person',
      accountId: personScope.accountId,
      v2: { params: { given_name: 'Ada' }, userAgent: null },
    });
    const use = { ...useOf(tokenId, 'v2_person'), param: 'person_token' };

    // When a write with a stale version comes with it, then one past the token's expiry
    expect(await persons.replace({ ...person, version: 3, fields: { given_name: 'Ada' } }, undefined, use)).toBe(false);
    expect((await tokens.get(scope, tokenId, Date.now()))?.used).toBe(false);
    await expect(persons.replace({ ...person, version: 2 }, undefined, { ...use, now: now + 600_000 })).rejects.toMatchObject({
      code: 'token_already_used',
      param: 'person_token',
    });

    // Then a good write uses it, and it is kept 10 minutes (the TTL attribute)
    expect(await persons.replace({ ...person, version: 2, fields: { given_name: 'Ada' } }, undefined, use)).toBe(true);
    expect((await tokens.get(scope, tokenId, Date.now()))?.used).toBe(true);
    const item = await stackTable().get({ PK: tokenKeys.pk(scope, tokenId), SK: tokenKeys.sk() });
    expect(item).toMatchObject({ entity: 'token', type: 'v2_person', used: true, expiresAt: Math.floor((now + 600_000) / 1000) });
  });
});
