import { describe, expect, it } from 'vitest';
import type { AccountPerson, V2Account } from '#shared/accounts/account.ts';
import { createAccountParams, updateAccountParams } from '#shared/accounts/schemas.ts';
import { accountService } from '#shared/accounts/service.ts';
import { InvalidRequestError, NotFoundError } from '#shared/errors.ts';
import type { Scope } from '#shared/platform/types.ts';
import { memoryOwnedStore, originOf, recordingEmitter } from '../support/fakes.ts';

const scope: Scope = { accountId: 'acct_platformv2', livemode: false };
const other: Scope = { accountId: 'acct_otherplatform', livemode: false };

function setup({ accountsV2 = true } = {}) {
  const store = memoryOwnedStore<V2Account>();
  const recorded = recordingEmitter();
  const limited: string[] = [];
  let now = 1_700_000_000_000;
  const service = accountService({
    accounts: {
      ...store,
      create: async (account) => {
        await store.create(account);
      },
    },
    persons: memoryOwnedStore<AccountPerson>(),
    events: recorded.events,
    gate: async () => {
      if (!accountsV2) throw new InvalidRequestError('Accounts v2 is not enabled for your platform.', 'accounts_v2_access_blocked');
    },
    limiter: (_owner, accountId, work) => {
      limited.push(accountId);
      return work();
    },
    tokens: {
      consume: async () => {
        throw new Error('no tokens in these tests');
      },
    },
    clock: () => now++,
  });
  return { service, written: recorded.written, limited };
}

describe('v2 accounts (service with the shared fakes)', () => {
  it('creates an account with the configurations it names applied, and emits its created events', async () => {
    const { service, written } = setup();
    const account = await service.create(
      originOf(scope),
      createAccountParams.parse({ display_name: 'Shop', contact_email: 'shop@example.com', configuration: { customer: {} } }),
    );
    expect(account).toMatchObject({ displayName: 'Shop', contactEmail: 'shop@example.com', closed: false, version: 1 });
    expect(account.configuration.customer).toMatchObject({ applied: true });
    expect(written[0]!.thinEvents.map((event) => event.type)).toContain('v2.core.account.created');
    expect(written[0]!.fanOut).not.toBeNull();
  });

  it('refuses everything while the platform has no accounts v2, and an identity given twice', async () => {
    const { service } = setup({ accountsV2: false });
    await expect(service.create(originOf(scope), createAccountParams.parse({ display_name: 'x' }))).rejects.toMatchObject({
      code: 'accounts_v2_access_blocked',
    });
    const open = setup();
    await expect(
      open.service.create(originOf(scope), createAccountParams.parse({ account_token: 'ctkn_1', identity: { country: 'us' } })),
    ).rejects.toMatchObject({ param: 'identity' });
  });

  it('updates through the per-account limit with a new version, and keeps other platforms out', async () => {
    const { service, limited } = setup();
    const account = await service.create(originOf(scope), createAccountParams.parse({ display_name: 'Shop' }));
    const updated = await service.update(originOf(scope), account.id, updateAccountParams.parse({ display_name: 'Shop 2', metadata: { a: '1' } }));
    expect(updated).toMatchObject({ displayName: 'Shop 2', metadata: { a: '1' }, version: 2 });
    expect(limited).toEqual([account.id]);
    await expect(service.retrieve(originOf(other), account.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('closes an account only when every applied configuration is named, and then refuses changes', async () => {
    const { service } = setup();
    const account = await service.create(originOf(scope), createAccountParams.parse({ display_name: 'Shop', configuration: { customer: {} } }));
    await expect(service.close(originOf(scope), account.id, { applied_configurations: [] })).rejects.toMatchObject({ param: 'applied_configurations' });
    expect(await service.close(originOf(scope), account.id, { applied_configurations: ['customer'] })).toMatchObject({ closed: true });
    await expect(service.update(originOf(scope), account.id, updateAccountParams.parse({ display_name: 'x' }))).rejects.toMatchObject({
      code: 'account_closed',
    });
    expect((await service.list(originOf(scope), { limit: 10 }, {})).items).toEqual([]);
    expect((await service.list(originOf(scope), { limit: 10 }, { closed: true })).items.map((item) => item.id)).toEqual([account.id]);
  });
});
