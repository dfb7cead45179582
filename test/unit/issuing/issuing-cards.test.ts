import { describe, expect, it } from 'vitest';
import { InvalidRequestError, NotFoundError, ServiceError } from '#shared/core/errors.ts';
import type { IssuingCard } from '#shared/issuing/card.ts';
import { cardService } from '#shared/issuing/card-service.ts';
import type { Cardholder } from '#shared/issuing/cardholder.ts';
import { cardholderService } from '#shared/issuing/cardholder-service.ts';
import {
  createCardholderParams,
  createCardParams,
  listCardholdersParams,
  listCardsParams,
  updateCardholderParams,
  updateCardParams,
} from '#shared/issuing/schemas.ts';
import { serializeCard, serializeCardholder } from '#shared/issuing/serializers.ts';
import type { PageRequest } from '#shared/wire/paging.ts';
import type { Scope } from '#shared/platform/types.ts';
import { originOf, recordingEmitter } from '../../support/fakes.ts';
import { june2026, memoryIssuingRepository, storedCard } from '../../support/issuing-fakes.ts';

const scope: Scope = { accountId: 'acct_issuing', livemode: false };
const otherAccount: Scope = { accountId: 'acct_other', livemode: false };
const otherMode: Scope = { accountId: 'acct_issuing', livemode: true };
const origin = originOf(scope);

/** Both services on one clock that moves a second per object made, so each lands in its own `created` second. */
function setup(start = june2026, ...initialCards: IssuingCard[]) {
  const cardholderRepository = memoryIssuingRepository<Cardholder>();
  const cardRepository = memoryIssuingRepository<IssuingCard>(...initialCards);
  const recorded = recordingEmitter();
  let now = start - 1000;
  const clock = () => (now += 1000);
  const cardholders = cardholderService({ repository: cardholderRepository, events: recorded.events, clock });
  const cards = cardService({ repository: cardRepository, cardholders: cardholderRepository, events: recorded.events, clock });
  return { cardholders, cards, cardholderRepository, cardRepository, written: recorded.written };
}

const address = { city: 'San Francisco', country: 'US', line1: '1 Main St', postal_code: '94111' };
const holderParams = (raw: Record<string, unknown> = {}) => createCardholderParams.parse({ name: 'Jenny Rosen', billing: { address }, ...raw });
const cardParams = (cardholder: string, raw: Record<string, unknown> = {}) => createCardParams.parse({ cardholder, currency: 'usd', type: 'virtual', ...raw });
const seconds = (millis: number) => Math.floor(millis / 1000);
const ids = (items: Array<{ id: string }>) => items.map((item) => item.id);
const cardIds = (items: Array<{ card: IssuingCard }>) => items.map(({ card }) => card.id);
/** What a promise was rejected with (fails the test if it fulfilled). */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('expected a rejection'),
    (thrown: unknown) => thrown,
  );

describe('issuing cards and cardholders (services with the shared fakes)', () => {
  it('creates an individual cardholder from its parameters, stores it with its outbox and emits issuing_cardholder.created', async () => {
    const { cardholders, cardholderRepository, written } = setup();
    const cardholder = await cardholders.create(
      origin,
      holderParams({
        email: 'jenny@example.com',
        phone_number: '+15555550123',
        individual: {
          first_name: 'Jenny',
          last_name: 'Rosen',
          dob: { day: 1, month: 2, year: 1990 },
          card_issuing: { user_terms_acceptance: { date: 1_700_000_000, ip: '10.0.0.1' } },
        },
        preferred_locales: ['en', 'fr'],
        metadata: { tier: 'gold', dropped: '' },
      }),
    );

    expect(cardholder).toEqual({
      id: expect.stringMatching(/^ich_/),
      scope,
      created: june2026,
      name: 'Jenny Rosen',
      type: 'individual',
      status: 'active',
      email: 'jenny@example.com',
      phoneNumber: '+15555550123',
      billingAddress: { ...address, line2: null, state: null },
      company: null,
      individual: {
        card_issuing: { user_terms_acceptance: { date: 1_700_000_000, ip: '10.0.0.1', user_agent: null } },
        dob: { day: 1, month: 2, year: 1990 },
        first_name: 'Jenny',
        last_name: 'Rosen',
        verification: null,
      },
      preferredLocales: ['en', 'fr'],
      metadata: { tier: 'gold' },
      version: 1,
    });
    expect(await cardholderRepository.get(scope, cardholder.id)).toEqual(cardholder);

    expect(written).toHaveLength(1);
    expect(cardholderRepository.outboxes).toEqual([written[0]]);
    const [snapshot] = written[0]!.snapshotEvents;
    expect(snapshot).toMatchObject({ type: 'issuing_cardholder.created', scope, previousAttributes: null, object: serializeCardholder(cardholder) });
    expect(snapshot!.object).toMatchObject({ id: cardholder.id, object: 'issuing.cardholder', created: seconds(june2026), livemode: false });
    expect(written[0]!.thinEvents[0]).toMatchObject({
      type: 'v1.issuing_cardholder.created',
      relatedObject: { id: cardholder.id, type: 'issuing.cardholder', url: `/v1/issuing/cardholders/${cardholder.id}` },
    });
  });

  it('creates a cardholder inactive when asked, and a company one that only tells whether a tax id was provided', async () => {
    const { cardholders } = setup();
    expect(await cardholders.create(origin, holderParams({ status: 'inactive' }))).toMatchObject({ status: 'inactive', individual: null, company: null });
    expect(await cardholders.create(origin, holderParams({ type: 'company', company: { tax_id: '000000000' } }))).toMatchObject({
      type: 'company',
      company: { tax_id_provided: true },
      individual: null,
    });
    expect(await cardholders.create(origin, holderParams({ type: 'company' }))).toMatchObject({ type: 'company', company: { tax_id_provided: false } });
  });

  it('refuses the details of the other type of cardholder, storing nothing and emitting nothing', async () => {
    const { cardholders, cardholderRepository, written } = setup();
    for (const [raw, param] of [
      // The type defaults to individual.
      [{ company: { tax_id: '1' } }, 'company'],
      [{ type: 'individual', company: {} }, 'company'],
      [{ type: 'company', individual: { first_name: 'Jenny' } }, 'individual'],
    ] as const) {
      const error = await failure(cardholders.create(origin, holderParams(raw)));
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error).toMatchObject({ code: 'parameter_invalid', param });
    }
    expect(cardholderRepository.items.size).toBe(0);
    expect(written).toEqual([]);
  });

  it("retrieves a cardholder for its owner only: another account's, the other mode's and an unknown one are not found", async () => {
    const { cardholders } = setup();
    const cardholder = await cardholders.create(origin, holderParams());
    expect(await cardholders.retrieve(scope, cardholder.id)).toEqual(cardholder);
    for (const [caller, id] of [
      [otherAccount, cardholder.id],
      [otherMode, cardholder.id],
      [scope, 'ich_unknown'],
    ] as const) {
      const error = await failure(cardholders.retrieve(caller, id));
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ code: 'resource_missing', resource: 'cardholder', id });
    }
  });

  it("lists the caller's cardholders newest first in pages, filtered by email, phone number, status, type and creation time", async () => {
    const { cardholders } = setup();
    const first = await cardholders.create(origin, holderParams({ email: 'a@example.com' }));
    const second = await cardholders.create(origin, holderParams({ phone_number: '+15555550123', status: 'inactive' }));
    const third = await cardholders.create(origin, holderParams({ type: 'company' }));
    await cardholders.create(originOf(otherAccount), holderParams({ email: 'a@example.com' }));
    await cardholders.create(originOf(otherMode), holderParams({ email: 'a@example.com' }));
    const list = (raw: Record<string, unknown> = {}, page: PageRequest = { limit: 10 }) => cardholders.list(scope, page, listCardholdersParams.parse(raw));

    const firstPage = await list({}, { limit: 2 });
    expect([ids(firstPage.items), firstPage.hasMore]).toEqual([[third.id, second.id], true]);
    const lastPage = await list({}, { limit: 2, startingAfter: second.id });
    expect([ids(lastPage.items), lastPage.hasMore]).toEqual([[first.id], false]);

    expect(ids((await list({ email: 'a@example.com' })).items)).toEqual([first.id]);
    expect(ids((await list({ phone_number: '+15555550123' })).items)).toEqual([second.id]);
    expect(ids((await list({ status: 'inactive' })).items)).toEqual([second.id]);
    expect(ids((await list({ status: 'active', type: 'individual' })).items)).toEqual([first.id]);
    expect(ids((await list({ type: 'company' })).items)).toEqual([third.id]);
    expect(ids((await list({ created: seconds(second.created) })).items)).toEqual([second.id]);
    expect(ids((await list({ created: { gt: seconds(first.created) } })).items)).toEqual([third.id, second.id]);
    expect(ids((await list({ created: { lt: seconds(third.created) } })).items)).toEqual([second.id, first.id]);
    expect((await cardholders.list(otherMode, { limit: 10 }, listCardholdersParams.parse({}))).items).toHaveLength(1);
  });

  it('creates an inactive Visa card valid for three years from the month of the clock, and emits issuing_card.created with the cardholder embedded', async () => {
    const { cardholders, cards, cardRepository, written } = setup();
    const cardholder = await cardholders.create(origin, holderParams());
    const { card, cardholder: embedded } = await cards.create(origin, cardParams(cardholder.id, { currency: 'EUR', metadata: { ref: '7', dropped: '' } }));

    expect(card).toEqual({
      id: expect.stringMatching(/^ic_/),
      scope,
      created: june2026 + 1000,
      cardholderId: cardholder.id,
      currency: 'eur',
      type: 'virtual',
      status: 'inactive',
      brand: 'Visa',
      last4: expect.stringMatching(/^\d{4}$/),
      expMonth: 6,
      expYear: 2029,
      secondLine: null,
      cancellationReason: null,
      metadata: { ref: '7' },
      version: 1,
    });
    expect(embedded).toEqual(cardholder);
    expect(await cardRepository.get(scope, card.id)).toEqual(card);

    expect(written).toHaveLength(2);
    expect(cardRepository.outboxes).toEqual([written[1]]);
    const [snapshot] = written[1]!.snapshotEvents;
    expect(snapshot).toMatchObject({ type: 'issuing_card.created', scope, previousAttributes: null, object: serializeCard(card, cardholder) });
    expect(snapshot!.object).toMatchObject({ id: card.id, object: 'issuing.card', cardholder: { id: cardholder.id, object: 'issuing.cardholder' } });
    expect(written[1]!.thinEvents[0]).toMatchObject({
      type: 'v1.issuing_card.created',
      relatedObject: { id: card.id, type: 'issuing.card', url: `/v1/issuing/cards/${card.id}` },
    });
  });

  it('creates a card active when asked, with the expiry and second line given', async () => {
    const { cardholders, cards } = setup();
    const cardholder = await cardholders.create(origin, holderParams());
    const { card } = await cards.create(
      origin,
      cardParams(cardholder.id, { type: 'physical', status: 'active', exp_month: 1, exp_year: 2027, second_line: 'Acme Inc' }),
    );
    expect(card).toMatchObject({ type: 'physical', status: 'active', expMonth: 1, expYear: 2027, secondLine: 'Acme Inc' });
  });

  it('accepts a card expiring in the month of the clock (in UTC) and refuses an earlier expiry, storing nothing and emitting nothing', async () => {
    // The last half hour of 2026 in UTC: still December, whatever the local time zone.
    const { cardholders, cards, cardRepository, written } = setup(Date.UTC(2026, 11, 31, 23, 30));
    const cardholder = await cardholders.create(origin, holderParams());
    expect((await cards.create(origin, cardParams(cardholder.id))).card).toMatchObject({ expMonth: 12, expYear: 2029 });
    expect((await cards.create(origin, cardParams(cardholder.id, { exp_month: 12, exp_year: 2026 }))).card).toMatchObject({ expMonth: 12, expYear: 2026 });
    const stored = cardRepository.items.size;
    const events = written.length;

    const pastYear = await failure(cards.create(origin, cardParams(cardholder.id, { exp_month: 12, exp_year: 2025 })));
    expect(pastYear).toBeInstanceOf(InvalidRequestError);
    expect(pastYear).toMatchObject({ code: 'invalid_expiry_year', param: 'exp_year' });
    const pastMonth = await failure(cards.create(origin, cardParams(cardholder.id, { exp_month: 11, exp_year: 2026 })));
    expect(pastMonth).toBeInstanceOf(InvalidRequestError);
    expect(pastMonth).toMatchObject({ code: 'invalid_expiry_month', param: 'exp_month' });
    // Without exp_year, the expiry is three years out, so no month makes it past.
    expect((await cards.create(origin, cardParams(cardholder.id, { exp_month: 1 }))).card).toMatchObject({ expMonth: 1, expYear: 2029 });

    expect(cardRepository.items.size).toBe(stored + 1);
    expect(written).toHaveLength(events + 1);
  });

  it("refuses a card for a cardholder the caller does not have (unknown, another account's, the other mode's) as resource_missing on cardholder", async () => {
    const { cardholders, cards, cardRepository, written } = setup();
    const cardholder = await cardholders.create(origin, holderParams());
    for (const [caller, id] of [
      [otherAccount, cardholder.id],
      [otherMode, cardholder.id],
      [scope, 'ich_unknown'],
    ] as const) {
      const error = await failure(cards.create(originOf(caller), cardParams(id)));
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error).toMatchObject({ code: 'resource_missing', param: 'cardholder', message: `No such cardholder: '${id}'` });
    }
    expect(cardRepository.items.size).toBe(0);
    expect(written).toHaveLength(1);
  });

  it("retrieves a card with its cardholder as it is now, for the card's owner only: another account or the other mode is not found", async () => {
    const { cardholders, cards, cardholderRepository } = setup();
    const cardholder = await cardholders.create(origin, holderParams());
    const { card } = await cards.create(origin, cardParams(cardholder.id));
    expect(await cards.retrieve(scope, card.id)).toEqual({ card, cardholder });

    const blocked: Cardholder = { ...cardholder, status: 'blocked', version: 2 };
    expect(await cardholderRepository.replace(blocked)).toBe(true);
    expect((await cards.retrieve(scope, card.id)).cardholder).toEqual(blocked);

    for (const [caller, id] of [
      [otherAccount, card.id],
      [otherMode, card.id],
      [scope, 'ic_unknown'],
    ] as const) {
      const error = await failure(cards.retrieve(caller, id));
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error).toMatchObject({ code: 'resource_missing', resource: 'card', id });
    }
  });

  it("lists the caller's cards newest first in pages with their cardholders, filtered by cardholder, status, type and creation time", async () => {
    const { cardholders, cards } = setup();
    const jenny = await cardholders.create(origin, holderParams());
    const acme = await cardholders.create(origin, holderParams({ name: 'Acme', type: 'company' }));
    const { card: first } = await cards.create(origin, cardParams(jenny.id));
    const { card: second } = await cards.create(origin, cardParams(jenny.id, { type: 'physical', status: 'active' }));
    const { card: third } = await cards.create(origin, cardParams(acme.id, { status: 'active' }));
    const elsewhere = await cardholders.create(originOf(otherMode), holderParams());
    await cards.create(originOf(otherMode), cardParams(elsewhere.id, { status: 'active' }));
    const list = (raw: Record<string, unknown> = {}, page: PageRequest = { limit: 10 }) => cards.list(scope, page, listCardsParams.parse(raw));

    const firstPage = await list({}, { limit: 2 });
    expect(firstPage).toEqual({
      items: [
        { card: third, cardholder: acme },
        { card: second, cardholder: jenny },
      ],
      hasMore: true,
    });
    const lastPage = await list({}, { limit: 2, startingAfter: second.id });
    expect(lastPage).toEqual({ items: [{ card: first, cardholder: jenny }], hasMore: false });

    expect(cardIds((await list({ cardholder: jenny.id })).items)).toEqual([second.id, first.id]);
    expect(cardIds((await list({ status: 'active' })).items)).toEqual([third.id, second.id]);
    expect(cardIds((await list({ status: 'inactive' })).items)).toEqual([first.id]);
    expect(cardIds((await list({ cardholder: jenny.id, status: 'active' })).items)).toEqual([second.id]);
    expect(cardIds((await list({ type: 'physical' })).items)).toEqual([second.id]);
    expect(cardIds((await list({ status: 'canceled' })).items)).toEqual([]);
    expect(cardIds((await list({ cardholder: elsewhere.id })).items)).toEqual([]);
    expect(cardIds((await list({ created: { gte: seconds(second.created), lte: seconds(third.created) } })).items)).toEqual([third.id, second.id]);
    expect(cardIds((await list({ created: { gt: seconds(third.created) } })).items)).toEqual([]);
    expect(cardIds((await cards.list(otherMode, { limit: 10 }, listCardsParams.parse({}))).items)).toHaveLength(1);
  });

  it('fails as a server error, not as not found, on a stored card whose cardholder is missing (a broken invariant)', async () => {
    const orphan = storedCard(scope, { id: 'ic_orphan', cardholderId: 'ich_gone' });
    const { cards } = setup(june2026, orphan);
    const retrieved = await failure(cards.retrieve(scope, orphan.id));
    expect(retrieved).toBeInstanceOf(Error);
    expect(retrieved).not.toBeInstanceOf(ServiceError);
    expect((retrieved as Error).message).toBe('Cardholder ich_gone of card ic_orphan is missing');
    await expect(cards.list(scope, { limit: 10 }, listCardsParams.parse({}))).rejects.toThrow('Cardholder ich_gone of card ic_orphan is missing');
  });

  it('validates the parameters before the services: a printable name, no blocked cardholder or canceled card at creation, a currency code', () => {
    const refused = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } }) =>
      result.error?.issues.map((issue) => issue.path.join('.'));
    expect(refused(createCardholderParams.safeParse({ name: 'J'.repeat(25), billing: { address } }))).toEqual(['name']);
    expect(refused(createCardholderParams.safeParse({ name: 'Jenny 2', billing: { address } }))).toEqual(['name']);
    expect(refused(createCardholderParams.safeParse({ name: 'Jenny', billing: { address }, status: 'blocked' }))).toEqual(['status']);
    expect(refused(createCardholderParams.safeParse({ name: 'Jenny', billing: { address: { ...address, country: 'USA' } } }))).toEqual([
      'billing.address.country',
    ]);
    // A country code in lower case is taken and upper-cased, as every country parameter of the service does.
    expect(createCardholderParams.parse({ name: 'Jenny', billing: { address: { ...address, country: 'us' } } }).billing.address.country).toBe('US');
    expect(refused(createCardParams.safeParse({ cardholder: 'ich_1', currency: 'usd', type: 'virtual', status: 'canceled' }))).toEqual(['status']);
    expect(refused(createCardParams.safeParse({ cardholder: 'ich_1', currency: 'dollars', type: 'virtual' }))).toEqual(['currency']);
    expect(refused(createCardParams.safeParse({ cardholder: 'ich_1', currency: 'usd', type: 'virtual', exp_month: 13 }))).toEqual(['exp_month']);
  });
  it('updates a cardholder as create takes its fields: billing replaced, individual merged, metadata merged, with issuing_cardholder.updated', async () => {
    const { cardholders, cardholderRepository } = setup();
    const jenny = await cardholders.create(
      origin,
      holderParams({ individual: { first_name: 'Jenny', card_issuing: { user_terms_acceptance: { ip: '10.0.0.1' } } }, metadata: { a: '1', b: '2' } }),
    );
    const update = (raw: Record<string, unknown>) => cardholders.update(origin, jenny.id, updateCardholderParams.parse(raw));

    const updated = await update({
      billing: { address: { city: 'Oakland', country: 'US', line1: '2 Broadway', postal_code: '94607', state: 'CA' } },
      individual: { last_name: 'Rosen', card_issuing: { user_terms_acceptance: { date: 1_700_000_000 } } },
      status: 'inactive',
      metadata: { a: '', c: '3' },
    });
    expect(updated).toMatchObject({
      name: 'Jenny Rosen',
      type: 'individual',
      status: 'inactive',
      billingAddress: { city: 'Oakland', country: 'US', line1: '2 Broadway', line2: null, postal_code: '94607', state: 'CA' },
      individual: {
        first_name: 'Jenny',
        last_name: 'Rosen',
        card_issuing: { user_terms_acceptance: { date: 1_700_000_000, ip: '10.0.0.1', user_agent: null } },
      },
      metadata: { b: '2', c: '3' },
      version: 2,
    });
    expect(await cardholderRepository.get(scope, jenny.id)).toEqual(updated);
    const [event] = cardholderRepository.outboxes.at(-1)!.snapshotEvents;
    expect(event).toMatchObject({ type: 'issuing_cardholder.updated', object: serializeCardholder(updated) });
    expect(Object.keys(event!.previousAttributes!).sort()).toEqual(['billing', 'individual', 'metadata', 'status']);

    await expect(update({ company: { tax_id: '12-3456789' } })).rejects.toMatchObject({ code: 'parameter_invalid', param: 'company' });
    await expect(cardholders.update(origin, 'ich_missing', {})).rejects.toBeInstanceOf(NotFoundError);
    await cardholderRepository.replace({ ...updated, status: 'blocked', version: 3 });
    await expect(update({ status: 'active' })).rejects.toMatchObject({ code: 'parameter_invalid', param: 'status' });
    expect(updateCardholderParams.safeParse({ name: 'Other' }).success).toBe(false);
    expect(updateCardholderParams.safeParse({ type: 'company' }).success).toBe(false);

    // A company's tax id is kept as provided, never stored
    const acme = await cardholders.create(origin, holderParams({ name: 'Acme', type: 'company' }));
    expect(acme.company).toEqual({ tax_id_provided: false });
    const taxed = await cardholders.update(origin, acme.id, updateCardholderParams.parse({ company: { tax_id: '12-3456789' } }));
    expect(taxed.company).toEqual({ tax_id_provided: true });
    expect(JSON.stringify(taxed)).not.toContain('12-3456789');
    await expect(cardholders.update(origin, acme.id, updateCardholderParams.parse({ individual: { first_name: 'A' } }))).rejects.toMatchObject({
      param: 'individual',
    });
  });

  it('moves a card between active and inactive, cancels it for good with its reason, and emits issuing_card.updated with its cardholder', async () => {
    const { cardholders, cards, cardRepository } = setup();
    const holder = await cardholders.create(origin, holderParams());
    const { card } = await cards.create(origin, cardParams(holder.id));
    const update = (raw: Record<string, unknown>) => cards.update(origin, card.id, updateCardParams.parse(raw));

    expect((await update({ status: 'active' })).card.status).toBe('active');
    expect((await update({ status: 'inactive' })).card.status).toBe('inactive');
    await expect(update({ cancellation_reason: 'lost' })).rejects.toMatchObject({ code: 'parameter_invalid', param: 'cancellation_reason' });
    const canceled = await update({ status: 'canceled', cancellation_reason: 'lost', metadata: { why: 'wallet' } });
    expect(canceled).toEqual({
      card: { ...card, status: 'canceled', cancellationReason: 'lost', metadata: { why: 'wallet' }, version: 4 },
      cardholder: holder,
    });
    const [event] = cardRepository.outboxes.at(-1)!.snapshotEvents;
    expect(event).toMatchObject({
      type: 'issuing_card.updated',
      object: serializeCard(canceled.card, holder),
      previousAttributes: { status: 'inactive', cancellation_reason: null, metadata: {} },
    });

    for (const status of ['active', 'inactive']) {
      const refused = await failure(update({ status }));
      expect(refused).toBeInstanceOf(InvalidRequestError);
      expect(refused).toMatchObject({ param: 'status', message: expect.stringContaining('canceled') });
    }
    // The reason is final with the cancellation: another is refused, the same one again changes nothing
    for (const params of [{ status: 'canceled', cancellation_reason: 'stolen' }, { cancellation_reason: 'stolen' }] as const) {
      await expect(update(params)).rejects.toMatchObject({
        code: 'parameter_invalid',
        param: 'cancellation_reason',
        message: expect.stringContaining('final'),
      });
    }
    expect((await update({ status: 'canceled', cancellation_reason: 'lost' })).card.cancellationReason).toBe('lost');
    expect(await cardRepository.get(scope, card.id)).toMatchObject({ status: 'canceled', cancellationReason: 'lost' });
    await expect(cards.update(origin, 'ic_missing', {})).rejects.toBeInstanceOf(NotFoundError);
    expect(updateCardParams.safeParse({ cancellation_reason: 'design_rejected' }).success).toBe(false);
  });
});
