import { describe, expect, it } from 'vitest';
import type { AccountPerson, V2Account } from '#shared/accounts/account.ts';
import {
  createAccountParams,
  createAccountTokenParams,
  createPersonParams,
  createPersonTokenParams,
  updateAccountParams,
  updatePersonParams,
} from '#shared/accounts/schemas.ts';
import { serializeAccountToken } from '#shared/accounts/serializer.ts';
import { accountService } from '#shared/accounts/service.ts';
import { accountTokenService, type TokenClient } from '#shared/accounts/token-service.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import type { Scope } from '#shared/platform/types.ts';
import { memoryOwnedStore, memoryTokenRepository, originOf, recordingEmitter, usingTokens } from '../../support/fakes.ts';

const scope: Scope = { accountId: 'acct_platformv2', livemode: false };
const other: Scope = { accountId: 'acct_otherplatform', livemode: false };

function setup({ accountsV2 = true } = {}) {
  const tokens = memoryTokenRepository();
  const store = usingTokens(memoryOwnedStore<V2Account>(), tokens);
  const persons = memoryOwnedStore<AccountPerson>();
  const recorded = recordingEmitter();
  const limited: string[] = [];
  let now = 1_700_000_000_000;
  const clock = () => now++;
  const gate = async () => {
    if (!accountsV2) throw new InvalidRequestError('Accounts v2 is not enabled for your platform.', 'accounts_v2_access_blocked');
  };
  const accounts = {
    ...store,
    create: async (account: V2Account, _platformId: string, _outbox: unknown, using?: Parameters<typeof tokens.check>[0]) => {
      await store.create(account, { using });
    },
  };
  const service = accountService({
    accounts,
    persons: usingTokens(persons, tokens),
    events: recorded.events,
    gate,
    limiter: (_owner, accountId, work) => {
      limited.push(accountId);
      return work();
    },
    tokens,
    clock,
  });
  const tokenService = accountTokenService({ tokens, accounts, gate, ttlMillis: 10 * 60_000, clock });
  return { service, tokenService, tokens, persons, written: recorded.written, limited, later: (millis: number) => (now += millis) };
}

const client: TokenClient = { keyKind: 'publishable', ip: '203.0.113.7', userAgent: 'Browser/1.0' };

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
      open.service.create(originOf(scope), createAccountParams.parse({ account_token: 'accttok_1', identity: { country: 'us' } })),
    ).rejects.toMatchObject({ code: 'parameters_exclusive', param: 'identity', message: expect.stringContaining('account_token, identity') });
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

describe('account and person tokens (v2)', () => {
  const individual = {
    contact_email: 'ada@example.test',
    identity: {
      entity_type: 'individual',
      individual: {
        given_name: 'Ada',
        surname: 'Lovelace',
        address: { line1: '1 Main', city: 'Town', country: 'us' },
        id_numbers: [{ type: 'us_ssn', value: '000-00-0000' }],
      },
      attestations: { terms_of_service: { account: { shown_and_accepted: true } }, ownership_declaration: { attested: false } },
    },
  };

  it('applies an account token as if its data were inline, once: id numbers by type only, attestations from its creation', async () => {
    // Given an account token made from a browser
    const { service, tokenService, tokens } = setup();
    const token = await tokenService.createAccountToken(originOf(scope), createAccountTokenParams.parse(individual), client);
    expect(serializeAccountToken(token)).toEqual({
      id: token.id,
      object: 'v2.core.account_token',
      created: new Date(token.created).toISOString(),
      expires_at: new Date(token.created + 10 * 60_000).toISOString(),
      livemode: false,
      used: false,
    });
    expect(token.id).toMatch(/^accttok_/);
    expect(JSON.stringify([...tokens.items.values()])).not.toContain('000-00-0000');

    // When an account is created with it
    const account = await service.create(originOf(scope), createAccountParams.parse({ account_token: token.id, display_name: 'Ada' }));

    // Then the account holds the token's data, the token is used, and a second use is refused
    expect(account).toMatchObject({ contactEmail: 'ada@example.test', displayName: 'Ada' });
    expect(account.identity).toMatchObject({
      entity_type: 'individual',
      individual: { given_name: 'Ada', address: { country: 'US' }, id_numbers: [{ type: 'us_ssn' }] },
      attestations: { terms_of_service: { account: { date: new Date(token.created).toISOString(), ip: '203.0.113.7', user_agent: 'Browser/1.0' } } },
    });
    expect(account.identity).not.toHaveProperty('attestations.ownership_declaration');
    expect(JSON.stringify(account)).not.toContain('000-00-0000');
    expect((await tokenService.retrieveAccountToken(originOf(scope), token.id)).used).toBe(true);
    await expect(service.create(originOf(scope), createAccountParams.parse({ account_token: token.id }))).rejects.toMatchObject({
      code: 'token_already_used',
      param: 'account_token',
    });
  });

  it("refuses a member both the token and the request give, another platform's or mode's token, an expired one, and a person token", async () => {
    const { service, tokenService, later } = setup();
    const token = await tokenService.createAccountToken(originOf(scope), createAccountTokenParams.parse(individual), client);
    const account = await service.create(originOf(scope), createAccountParams.parse({ display_name: 'Shop' }));
    const personToken = await tokenService.createPersonToken(originOf(scope), account.id, createPersonTokenParams.parse({ given_name: 'Grace' }), client);

    await expect(
      service.create(originOf(scope), createAccountParams.parse({ account_token: token.id, contact_email: 'other@example.test' })),
    ).rejects.toMatchObject({ code: 'parameters_exclusive', param: 'contact_email' });
    await expect(service.create(originOf(other), createAccountParams.parse({ account_token: token.id }))).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'account_token',
    });
    await expect(service.create(originOf({ ...scope, livemode: true }), createAccountParams.parse({ account_token: token.id }))).rejects.toMatchObject({
      code: 'resource_missing',
    });
    await expect(service.update(originOf(scope), account.id, updateAccountParams.parse({ account_token: personToken.id }))).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'account_token',
      message: `Invalid account_token: '${personToken.id}' is a person token, but account_token takes an account token.`,
    });
    later(10 * 60_000);
    await expect(service.update(originOf(scope), account.id, updateAccountParams.parse({ account_token: token.id }))).rejects.toMatchObject({
      code: 'resource_missing',
    });
  });

  it('keeps a token usable when the write it came with is refused', async () => {
    const { service, tokenService } = setup();
    const token = await tokenService.createAccountToken(originOf(scope), createAccountTokenParams.parse({ display_name: 'Later' }), client);
    const account = await service.create(originOf(scope), createAccountParams.parse({ display_name: 'Shop', configuration: { customer: {} } }));
    await service.close(originOf(scope), account.id, {});

    await expect(service.update(originOf(scope), account.id, updateAccountParams.parse({ account_token: token.id }))).rejects.toMatchObject({
      code: 'account_closed',
    });

    expect((await tokenService.retrieveAccountToken(originOf(scope), token.id)).used).toBe(false);
    const fresh = await service.create(originOf(scope), createAccountParams.parse({}));
    expect(await service.update(originOf(scope), fresh.id, { account_token: token.id })).toMatchObject({ displayName: 'Later', version: 2 });
  });

  it('applies a person token only to the account it was made for, with metadata added inline and nothing else', async () => {
    const { service, tokenService } = setup();
    const account = await service.create(originOf(scope), createAccountParams.parse({ display_name: 'Shop' }));
    const otherAccount = await service.create(originOf(scope), createAccountParams.parse({ display_name: 'Other' }));
    const token = await tokenService.createPersonToken(
      originOf(scope),
      account.id,
      createPersonTokenParams.parse({
        given_name: 'Grace',
        relationship: { owner: true, percent_ownership: '40' },
        id_numbers: [{ type: 'us_ssn_last_4', value: '1234' }],
        additional_terms_of_service: { account: { shown_and_accepted: true } },
        metadata: { from: 'token' },
      }),
      client,
    );
    expect(token).toMatchObject({ id: expect.stringMatching(/^perstok_/), accountId: account.id });

    await expect(service.createPerson(originOf(scope), otherAccount.id, createPersonParams.parse({ person_token: token.id }))).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'person_token',
      message: expect.stringContaining(`was created for account ${account.id}`),
    });
    await expect(
      service.createPerson(originOf(scope), account.id, createPersonParams.parse({ person_token: token.id, email: 'grace@example.test' })),
    ).rejects.toMatchObject({ code: 'parameters_exclusive', param: 'email' });
    await expect(tokenService.retrievePersonToken(originOf(scope), otherAccount.id, token.id)).rejects.toBeInstanceOf(NotFoundError);

    const person = await service.createPerson(originOf(scope), account.id, createPersonParams.parse({ person_token: token.id, metadata: { inline: '1' } }));
    expect(person.fields).toMatchObject({
      given_name: 'Grace',
      relationship: { owner: true, percent_ownership: '40' },
      id_numbers: [{ type: 'us_ssn_last_4' }],
      additional_terms_of_service: { account: { ip: '203.0.113.7', user_agent: 'Browser/1.0' } },
      metadata: { from: 'token', inline: '1' },
    });
    expect(JSON.stringify(person)).not.toContain('1234');
    await expect(service.updatePerson(originOf(scope), account.id, person.id, updatePersonParams.parse({ person_token: token.id }))).rejects.toMatchObject({
      code: 'token_already_used',
      param: 'person_token',
    });
  });

  it('takes live tokens from publishable keys only, test tokens from either, and needs the accounts v2 feature', async () => {
    const { tokenService, service } = setup();
    const live = { ...scope, livemode: true };
    await expect(tokenService.createAccountToken(originOf(live), {}, { ...client, keyKind: 'secret' })).rejects.toMatchObject({
      code: 'publishable_key_required',
    });
    await expect(tokenService.createAccountToken(originOf(live), {}, client)).resolves.toMatchObject({ scope: live });
    await expect(tokenService.createAccountToken(originOf(scope), {}, { ...client, keyKind: 'secret' })).resolves.toMatchObject({ scope });
    await expect(tokenService.createPersonToken(originOf(scope), 'acct_missing', {}, client)).rejects.toBeInstanceOf(NotFoundError);
    const account = await service.create(originOf(scope), createAccountParams.parse({}));
    await expect(tokenService.retrieveAccountToken(originOf(scope), account.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(setup({ accountsV2: false }).tokenService.createAccountToken(originOf(scope), {}, client)).rejects.toMatchObject({
      code: 'accounts_v2_access_blocked',
    });
  });
});
