import { describe, expect, it } from 'vitest';
import { createCustomerParams, createSourceParams, retrieveCustomerParams, updateCustomerParams, updateSourceParams } from '#shared/customers/schemas.ts';
import { serializeCustomer } from '#shared/customers/serializer.ts';
import { customerService } from '#shared/customers/service.ts';
import { CardError, NotFoundError } from '#shared/core/errors.ts';
import { expansionLoaders } from '#shared/expansion/loaders.ts';
import { expander } from '#shared/expansion/resolver.ts';
import type { Scope } from '#shared/platform/types.ts';
import { createTokenParams } from '#shared/tokens/schemas.ts';
import { tokenService } from '#shared/tokens/service.ts';
import { noExpansionPorts } from '../../support/expansion-fakes.ts';
import { fakeAccountSecretStore, memoryTokenRepository, memoryCustomerRepository, originOf, recordingEmitter } from '../../support/fakes.ts';

const scope: Scope = { accountId: 'acct_customers', livemode: false };
const other: Scope = { accountId: 'acct_other', livemode: false };

function setup() {
  const tokens = memoryTokenRepository();
  const repository = memoryCustomerRepository(tokens);
  const recorded = recordingEmitter();
  let now = 1_700_000_000_000;
  const clock = () => now++;
  const canceledFor: string[] = [];
  const subscriptions = { cancelAllOf: async (_origin: unknown, customerId: string) => void canceledFor.push(customerId) };
  const service = customerService({ repository, subscriptions, tokens, events: recorded.events, clock });
  const tokenMaker = tokenService({ repository: tokens, fingerprintKeys: fakeAccountSecretStore(), ttlMillis: 600_000, clock });
  const card = async (owner = scope, name = 'Ada') =>
    (
      await tokenMaker.create(
        owner,
        createTokenParams.parse({ card: { number: '4242424242424242', exp_month: '8', exp_year: '2030', cvc: '123', name } }),
        null,
      )
    ).id;
  const bankAccount = async (owner = scope) =>
    (
      await tokenMaker.create(
        owner,
        createTokenParams.parse({ bank_account: { country: 'US', account_number: '000123456789', routing_number: '110000000' } }),
        null,
      )
    ).id;
  const person = async () => (await tokenMaker.create(scope, createTokenParams.parse({ person: { first_name: 'Ada' } }), null)).id;
  return { service, repository, tokens, written: recorded.written, card, bankAccount, person, canceledFor };
}

describe('customers (service with the shared fakes)', () => {
  it('creates a customer from its parameters and emits customer.created with the object', async () => {
    const { service, repository, written } = setup();
    const customer = await service.create(originOf(scope), createCustomerParams.parse({ name: 'Ada', metadata: { plan: 'pro' } }));
    expect(customer).toMatchObject({ name: 'Ada', balance: 0, metadata: { plan: 'pro' }, version: 1, nextInvoiceSequence: 1 });
    expect(repository.items.size).toBe(1);
    expect(written[0]!.snapshotEvents[0]).toMatchObject({ type: 'customer.created', object: { id: customer.id, name: 'Ada' } });
  });

  it('updates only what is given, merges metadata (an empty value removes a key) and tells what changed', async () => {
    const { service, written } = setup();
    const created = await service.create(originOf(scope), createCustomerParams.parse({ name: 'Ada', email: 'ada@example.com', metadata: { a: '1', b: '2' } }));
    const updated = await service.update(originOf(scope), created.id, updateCustomerParams.parse({ name: 'Ada L.', metadata: { a: '', c: '3' } }));
    expect(updated).toMatchObject({ name: 'Ada L.', email: 'ada@example.com', metadata: { b: '2', c: '3' }, version: 2 });
    const event = written.at(-1)!.snapshotEvents[0]!;
    expect(event.type).toBe('customer.updated');
    expect(event.previousAttributes).toMatchObject({ name: 'Ada' });
  });

  it("answers not found for another owner's customer, and for a second delete", async () => {
    const { service } = setup();
    const created = await service.create(originOf(scope), createCustomerParams.parse({}));
    await expect(service.retrieve(other, created.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.update(originOf(other), created.id, updateCustomerParams.parse({ name: 'x' }))).rejects.toBeInstanceOf(NotFoundError);
    await service.delete(originOf(scope), created.id);
    await expect(service.delete(originOf(scope), created.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  const typesOf = (outbox: { snapshotEvents: Array<{ type: string }> }) => outbox.snapshotEvents.map((event) => event.type);

  it('attaches a card from a token on create: the token is used up, the card is the default, customer.created and customer.source.created', async () => {
    const { service, repository, tokens, written, card } = setup();
    const token = await card();
    const customer = await service.create(originOf(scope), createCustomerParams.parse({ source: token }));
    const cardId = [...tokens.items.values()][0]!.type === 'card' ? ([...tokens.items.values()][0] as { card: { id: string } }).card.id : '';
    expect(customer).toMatchObject({ defaultSource: cardId, sourceCount: 1 });
    expect([...tokens.items.values()][0]!.used).toBe(true);
    const source = await service.retrieveSource(scope, customer.id, cardId);
    expect(source).toMatchObject({ object: 'card', customer: customer.id, card: { last4: '4242', name: 'Ada' } });
    expect(JSON.stringify([...repository.sources.values()])).not.toContain('4242424242424242');
    expect(typesOf(written.at(-1)!)).toEqual(['customer.created', 'customer.source.created']);
    expect(written.at(-1)!.snapshotEvents[1]!.object).toMatchObject({ id: cardId, object: 'card', customer: customer.id });

    // A second use is refused as the reference does, and nothing is written.
    const before = repository.items.size;
    await expect(service.create(originOf(scope), createCustomerParams.parse({ source: token }))).rejects.toMatchObject({
      code: 'token_already_used',
      param: 'source',
      message: `You cannot use a Service token more than once: ${token}.`,
    });
    expect(repository.items.size).toBe(before);
  });

  it('refuses a token of another account or mode as missing, and a token that makes no source as invalid, using none of them', async () => {
    const { service, tokens, card, person } = setup();
    const foreign = await card(other);
    // A card token of the live mode (test cards are refused there: the stored token is copied across).
    const copy = [...tokens.items.values()].find((token) => token.id === (foreign as string)) ?? [...tokens.items.values()][0]!;
    const live = 'tok_live_copy';
    tokens.items.set(`${scope.accountId}/true/${live}`, { ...structuredClone(copy), id: live, scope: { ...scope, livemode: true } });
    for (const token of [foreign, live, 'tok_missing']) {
      await expect(service.create(originOf(scope), createCustomerParams.parse({ source: token }))).rejects.toMatchObject({
        code: 'resource_missing',
        param: 'source',
        message: `No such token: '${token}'`,
      });
    }
    await expect(service.create(originOf(scope), createCustomerParams.parse({ source: await person() }))).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'source',
    });
    expect([...tokens.items.values()].every((token) => !token.used)).toBe(true);
  });

  it('adds sources (the first becomes the default), lists them newest first by kind, updates and deletes them', async () => {
    const { service, written, card, bankAccount } = setup();
    const customer = await service.create(originOf(scope), createCustomerParams.parse({}));
    const first = await service.createSource(originOf(scope), customer.id, createSourceParams.parse({ source: await card(), metadata: { n: '1' } }));
    expect(typesOf(written.at(-1)!)).toEqual(['customer.source.created', 'customer.updated']);
    expect(written.at(-1)!.snapshotEvents[1]!.previousAttributes).toEqual({ default_source: null });
    const second = await service.createSource(originOf(scope), customer.id, createSourceParams.parse({ source: await bankAccount() }));
    expect(typesOf(written.at(-1)!)).toEqual(['customer.source.created']);
    expect(second).toMatchObject({ object: 'bank_account', bankAccount: { last4: '6789', routingNumber: '110000000' } });
    expect(await service.retrieve(scope, customer.id)).toMatchObject({ defaultSource: first.id, sourceCount: 2 });

    expect((await service.listSources(scope, customer.id, { limit: 10 })).items.map((source) => source.id)).toEqual([second.id, first.id]);
    expect((await service.listSources(scope, customer.id, { limit: 10 }, 'card')).items.map((source) => source.id)).toEqual([first.id]);
    await expect(service.listSources(scope, 'cus_missing', { limit: 10 })).rejects.toBeInstanceOf(NotFoundError);

    const renamed = await service.updateSource(
      originOf(scope),
      customer.id,
      first.id,
      updateSourceParams.parse({ name: 'Ada L.', exp_year: '2031', address_line1: '1 Main St', metadata: { n: '', m: '2' } }),
    );
    expect(renamed).toMatchObject({ metadata: { m: '2' }, card: { name: 'Ada L.', expYear: 2031, address: { line1: '1 Main St' } } });
    expect(written.at(-1)!.snapshotEvents[0]).toMatchObject({
      type: 'customer.source.updated',
      previousAttributes: { name: 'Ada', exp_year: 2030, address_line1: null, address_line1_check: null, metadata: { n: '1' } },
    });
    await expect(service.updateSource(originOf(scope), customer.id, first.id, updateSourceParams.parse({ account_holder_name: 'x' }))).rejects.toMatchObject({
      param: 'account_holder_name',
    });
    await expect(service.updateSource(originOf(scope), customer.id, first.id, updateSourceParams.parse({ exp_year: '2020' }))).rejects.toBeInstanceOf(
      CardError,
    );
    expect(
      await service.updateSource(
        originOf(scope),
        customer.id,
        second.id,
        updateSourceParams.parse({ account_holder_name: 'Ada', account_holder_type: 'individual' }),
      ),
    ).toMatchObject({ bankAccount: { accountHolderName: 'Ada', accountHolderType: 'individual' } });

    // Deleting the default makes the newest other source the default; deleting the last leaves none.
    await service.deleteSource(originOf(scope), customer.id, first.id);
    expect(typesOf(written.at(-1)!)).toEqual(['customer.source.deleted', 'customer.updated']);
    expect(await service.retrieve(scope, customer.id)).toMatchObject({ defaultSource: second.id, sourceCount: 1 });
    await service.deleteSource(originOf(scope), customer.id, second.id);
    expect(await service.retrieve(scope, customer.id)).toMatchObject({ defaultSource: null, sourceCount: 0 });
    await expect(service.retrieveSource(scope, customer.id, second.id)).rejects.toMatchObject({ message: `No such source: '${second.id}'` });
  });

  it('replaces the default source when an update passes source, and picks one with default_source', async () => {
    const { service, repository, written, card } = setup();
    const customer = await service.create(originOf(scope), createCustomerParams.parse({ source: await card() }));
    const kept = await service.createSource(originOf(scope), customer.id, createSourceParams.parse({ source: await card(scope, 'Kept') }));
    const updated = await service.update(originOf(scope), customer.id, updateCustomerParams.parse({ source: await card(scope, 'New'), name: 'Ada' }));
    expect(updated.defaultSource).not.toBe(customer.defaultSource);
    expect(updated.sourceCount).toBe(2);
    expect(await repository.getSource(scope, customer.id, customer.defaultSource!)).toBeUndefined();
    expect(typesOf(written.at(-1)!)).toEqual(['customer.source.created', 'customer.source.deleted', 'customer.updated']);
    expect(written.at(-1)!.snapshotEvents[2]!.previousAttributes).toEqual({ default_source: customer.defaultSource, name: null });

    expect(await service.update(originOf(scope), customer.id, updateCustomerParams.parse({ default_source: kept.id }))).toMatchObject({
      defaultSource: kept.id,
    });
    await expect(service.update(originOf(scope), customer.id, updateCustomerParams.parse({ default_source: 'card_missing' }))).rejects.toMatchObject({
      param: 'default_source',
      code: 'resource_missing',
    });

    // source with default_source: refused, neither ignored; the token stays usable and no source is deleted
    const token = await card(scope, 'Both');
    await expect(service.update(originOf(scope), customer.id, updateCustomerParams.parse({ source: token, default_source: kept.id }))).rejects.toMatchObject({
      code: 'parameters_exclusive',
      param: 'default_source',
    });
    expect(await repository.getSource(scope, customer.id, kept.id)).toBeDefined();
    expect(await service.update(originOf(scope), customer.id, updateCustomerParams.parse({ source: token }))).toMatchObject({ sourceCount: 2 });
  });

  it('shows sources and the default source only when expanded', async () => {
    const setupResult = setup();
    const { service, card } = setupResult;
    const customer = await service.create(originOf(scope), createCustomerParams.parse({ source: await card() }));
    expect(serializeCustomer(customer)).not.toHaveProperty('sources');
    expect(serializeCustomer(customer).default_source).toBe(customer.defaultSource);
    const { repository } = setupResult;
    const expand = expander(expansionLoaders({ ...noExpansionPorts, customers: repository }));
    const expanded = (await expand(scope, serializeCustomer(customer), retrieveCustomerParams.parse({ expand: ['sources', 'default_source'] }).expand!)) as any;
    expect(expanded.default_source).toMatchObject({ id: customer.defaultSource, object: 'card', customer: customer.id });
    expect(expanded.sources).toMatchObject({
      object: 'list',
      has_more: false,
      url: `/v1/customers/${customer.id}/sources`,
      data: [{ id: customer.defaultSource }],
    });
  });

  it('deletes a customer with its sources, and refuses a delete made on a version a new source moved', async () => {
    const { service, repository, card } = setup();
    const customer = await service.create(originOf(scope), createCustomerParams.parse({ source: await card() }));
    await service.createSource(originOf(scope), customer.id, createSourceParams.parse({ source: await card() }));
    const stale = (await repository.get(scope, customer.id))!;
    await service.createSource(originOf(scope), customer.id, createSourceParams.parse({ source: await card() }));
    expect(await repository.deleteWithSources(stale, [], { thinEvents: [], snapshotEvents: [], deliveries: [], fanOut: null } as never, 1)).toBe(false);
    await service.delete(originOf(scope), customer.id);
    expect(repository.sources.size).toBe(0);
  });

  it('keeps a deleted customer retrievable in its deleted form, cancels its subscriptions first, and answers 404 to everything else', async () => {
    // Given a customer
    const { service, canceledFor, written } = setup();
    const customer = await service.create(originOf(scope), createCustomerParams.parse({ email: 'ada@example.com' }));
    // When it is deleted
    await service.delete(originOf(scope), customer.id);
    // Then its subscriptions were canceled, customer.deleted emitted, and retrieve finds the tombstone
    expect(canceledFor).toEqual([customer.id]);
    expect(written.at(-1)!.snapshotEvents[0]).toMatchObject({ type: 'customer.deleted', object: { id: customer.id, email: 'ada@example.com' } });
    expect(await service.retrieve(scope, customer.id)).toMatchObject({ id: customer.id, deleted: true, created: customer.created });
    expect((await service.list(scope, { limit: 10 })).items).toEqual([]);
    await expect(service.update(originOf(scope), customer.id, updateCustomerParams.parse({ name: 'x' }))).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.delete(originOf(scope), customer.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.listSources(scope, customer.id, { limit: 10 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.retrieve(other, customer.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});
