import { describe, expect, it } from 'vitest';
import { hashSecret, type AccountLink } from '#shared/account-links/account-link.ts';
import { createAccountLinkParams, createV1AccountLinkParams } from '#shared/account-links/schemas.ts';
import { serializeV1AccountLink } from '#shared/account-links/serializer.ts';
import { accountLinkService } from '#shared/account-links/service.ts';
import { blankAccount, type V2Account } from '#shared/accounts/account.ts';
import { NotFoundError } from '#shared/core/errors.ts';
import type { Scope } from '#shared/platform/types.ts';
import { originOf } from '../../support/fakes.ts';

const scope: Scope = { accountId: 'acct_platformlinks', livemode: false };
const now = 1_800_000_000_000;
const keyHash = 'a'.repeat(64);

function setup(account: V2Account) {
  const stored = new Map<string, AccountLink>();
  const limited: string[] = [];
  const service = accountLinkService({
    accounts: {
      retrieve: async (_origin, id) => {
        if (id !== account.id) throw new NotFoundError('account', id);
        return account;
      },
    },
    limiter: (_owner, accountId, work) => {
      limited.push(accountId);
      return work();
    },
    links: {
      create: async (link, secretHash) => void stored.set(secretHash, link),
      find: async (secretHash) => stored.get(secretHash),
      open: async () => false,
      complete: async () => false,
    },
    ttlMinutes: 5,
    clock: () => now,
    secret: () => 'the-secret',
  });
  return { service, stored, limited };
}

const withCustomer = (): V2Account => {
  const account = blankAccount('acct_connected1', scope, now);
  return { ...account, configuration: { ...account.configuration, customer: { applied: true } } as V2Account['configuration'] };
};
const onboarding = (account: string, configurations: string[]) =>
  createAccountLinkParams.parse({
    account,
    use_case: { type: 'account_onboarding', account_onboarding: { configurations, refresh_url: 'https://example.com/refresh' } },
  });

describe('account links (service with fakes)', () => {
  it('stores a fresh link under the hash of its secret, expiring after the TTL, inside the account’s update limit', async () => {
    const { service, stored, limited } = setup(withCustomer());
    const { link, secret } = await service.create(originOf(scope), keyHash, onboarding('acct_connected1', ['customer', 'customer']));
    expect(secret).toBe('the-secret');
    expect(stored.get(hashSecret('the-secret'))).toBe(link);
    expect(link).toMatchObject({
      state: 'fresh',
      expiresAt: now + 5 * 60_000,
      keyHash,
      useCase: { type: 'account_onboarding', configurations: ['customer'], return_url: null, collection_options: { fields: 'currently_due' } },
    });
    expect(limited).toEqual(['acct_connected1']);
  });

  it('refuses configurations the account does not have applied, and a closed account', async () => {
    const { service, stored } = setup(withCustomer());
    await expect(service.create(originOf(scope), keyHash, onboarding('acct_connected1', ['merchant']))).rejects.toMatchObject({
      code: 'configs_must_match_to_use_account_links',
      param: 'use_case.account_onboarding.configurations',
    });
    const closed = setup({ ...withCustomer(), closed: true });
    await expect(closed.service.create(originOf(scope), keyHash, onboarding('acct_connected1', ['customer']))).rejects.toMatchObject({
      code: 'account_closed',
    });
    expect(stored.size).toBe(0);
  });
});

describe('v1 account links (service with fakes)', () => {
  const v1 = (fields: Record<string, unknown>) =>
    createV1AccountLinkParams.parse({ account: 'acct_connected1', type: 'account_update', refresh_url: 'https://example.com/refresh', ...fields });
  const withCustomerAndMerchant = (): V2Account => {
    const account = withCustomer();
    return { ...account, configuration: { ...account.configuration, merchant: { applied: true, requested: {}, settings: {} } } };
  };

  it('collects for every configuration applied on the account, with collect as collection_options.fields, and answers the v1 shape', async () => {
    // Given an account with the customer and merchant configurations applied
    const { service, stored, limited } = setup(withCustomerAndMerchant());

    // When a v1 link is made with the deprecated collect
    const { link, secret } = await service.createV1(originOf(scope), keyHash, v1({ collect: 'eventually_due', return_url: 'https://example.com/back' }));

    // Then it is the same stored link a v2 link is, for both configurations
    expect(stored.get(hashSecret(secret))).toBe(link);
    expect(link.useCase).toEqual({
      type: 'account_update',
      configurations: ['customer', 'merchant'],
      refresh_url: 'https://example.com/refresh',
      return_url: 'https://example.com/back',
      collection_options: { fields: 'eventually_due', future_requirements: 'omit' },
    });
    expect(limited).toEqual(['acct_connected1']);
    expect(serializeV1AccountLink(link, 'https://svc.test/hosted/account_links/x')).toEqual({
      object: 'account_link',
      created: now / 1000,
      expires_at: now / 1000 + 300,
      url: 'https://svc.test/hosted/account_links/x',
    });
    const { link: withOptions } = await service.createV1(
      originOf(scope),
      keyHash,
      v1({ type: 'account_onboarding', collection_options: { fields: 'eventually_due', future_requirements: 'include' } }),
    );
    expect(withOptions.useCase).toMatchObject({ type: 'account_onboarding', collection_options: { fields: 'eventually_due', future_requirements: 'include' } });
  });

  it('refuses collect with collection_options, an account without configurations, a missing refresh_url and an unknown type', async () => {
    const { service } = setup(withCustomer());
    await expect(
      service.createV1(originOf(scope), keyHash, v1({ collect: 'currently_due', collection_options: { fields: 'currently_due' } })),
    ).rejects.toMatchObject({
      code: 'parameters_exclusive',
      message: 'You may only specify one of these parameters: collect, collection_options.',
    });
    const bare = setup(blankAccount('acct_connected1', scope, now));
    await expect(bare.service.createV1(originOf(scope), keyHash, v1({}))).rejects.toMatchObject({
      code: 'configs_must_match_to_use_account_links',
      param: 'account',
    });
    expect(bare.stored.size).toBe(0);
    expect(createV1AccountLinkParams.safeParse({ account: 'acct_connected1', type: 'account_update' }).success).toBe(false);
    expect(createV1AccountLinkParams.safeParse({ account: 'acct_connected1', type: 'custom_account_update', refresh_url: 'https://x.test' }).success).toBe(
      false,
    );
  });
});
