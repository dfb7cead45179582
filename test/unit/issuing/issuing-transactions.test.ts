import { describe, expect, it } from 'vitest';
import type { Authorization } from '#shared/issuing/authorization.ts';
import { authorizationService, maxRequestHistory } from '#shared/issuing/authorization-service.ts';
import {
  captureAuthorizationParams,
  createAuthorizationParams,
  createForceCaptureParams,
  createUnlinkedRefundParams,
  listTransactionsParams,
} from '#shared/issuing/schemas.ts';
import { serializeAuthorization, serializeTransaction } from '#shared/issuing/serializers.ts';
import { refundBytesPerAuthorization, renderedBytes, transactionBytesPerAuthorization } from '#shared/issuing/transaction.ts';
import { transactionService } from '#shared/issuing/transaction-service.ts';
import { maxItemBytes } from '#shared/data/item-size.ts';
import { snapshotEventItem } from '#shared/data/outbox-items.ts';
import type { Scope } from '#shared/platform/types.ts';
import { originOf, recordingEmitter } from '../../support/fakes.ts';
import { june2026, memoryIssuingRepository, memoryTransactionRepository, storedCard, storedCardholder } from '../../support/issuing-fakes.ts';

const scope: Scope = { accountId: 'acct_tx', livemode: false };
const origin = originOf(scope);
const holder = storedCardholder(scope);
const card = storedCard(scope);

/** Both services on the shared fakes, one clock moving a second per call. */
function setup() {
  const authorizationRepository = memoryIssuingRepository<Authorization>();
  const transactionRepository = memoryTransactionRepository(authorizationRepository);
  const cards = memoryIssuingRepository(card);
  const cardholders = memoryIssuingRepository(holder);
  const recorded = recordingEmitter();
  let now = june2026;
  const clock = () => (now += 1000);
  const ports = { cards, cardholders, events: recorded.events, clock };
  return {
    authorizations: authorizationService({ ...ports, repository: authorizationRepository, transactions: transactionRepository }),
    transactions: transactionService({ ...ports, repository: transactionRepository, authorizations: authorizationRepository }),
    authorizationRepository,
    transactionRepository,
  };
}

const authorize = (raw: Record<string, unknown>) => createAuthorizationParams.parse({ card: card.id, ...raw });
const capture = (raw: Record<string, unknown> = {}) => captureAuthorizationParams.parse(raw);

/** The SDK's generated example of a capture's `purchase_details`, as the SDK sends it (form values are strings). */
const examplePurchaseDetails = {
  flight: {
    departure_at: '1633651200',
    passenger_name: 'John Doe',
    refundable: 'true',
    segments: [
      {
        arrival_airport_code: 'SFO',
        carrier: 'Delta',
        departure_airport_code: 'LAX',
        flight_number: 'DL100',
        service_class: 'Economy',
        stopover_allowed: 'true',
      },
    ],
    travel_agency: 'Orbitz',
  },
  fuel: { type: 'diesel', unit: 'liter', unit_cost_decimal: '3.5', quantity_decimal: '10' },
  lodging: { check_in_at: '1633651200', nights: '2' },
  receipt: [{ description: 'Room charge', quantity: '1', total: '200', unit_cost: '200' }],
  reference: 'foo',
};

/** How the reference shows that example on the transaction. */
const examplePurchaseDetailsShown = {
  fleet: null,
  flight: {
    departure_at: 1633651200,
    passenger_name: 'John Doe',
    refundable: true,
    segments: [
      {
        arrival_airport_code: 'SFO',
        carrier: 'Delta',
        departure_airport_code: 'LAX',
        flight_number: 'DL100',
        service_class: 'Economy',
        stopover_allowed: true,
      },
    ],
    travel_agency: 'Orbitz',
  },
  fuel: { industry_product_code: null, quantity_decimal: '10', type: 'diesel', unit: 'liter', unit_cost_decimal: '3.5' },
  lodging: { check_in_at: 1633651200, nights: 2 },
  receipt: [{ description: 'Room charge', quantity: 1, total: 200, unit_cost: 200 }],
  reference: 'foo',
};

describe('issuing transactions (services with the shared fakes)', () => {
  it('writes each capture’s transaction with the authorization in one change, with both events showing what GET shows', async () => {
    const { authorizations, authorizationRepository, transactionRepository } = setup();
    const { authorization } = await authorizations.create(
      origin,
      authorize({ amount: 1000, merchant_currency: 'eur', merchant_amount: 900, amount_details: { atm_fee: 100 } }),
    );

    const first = await authorizations.capture(origin, authorization.id, capture({ capture_amount: 400, close_authorization: 'false' }));
    const second = await authorizations.capture(origin, authorization.id, capture({ purchase_details: { reference: 'R-1', lodging: { nights: 2 } } }));

    // Debits, negative, at the authorization's rate; the ATM fee goes with the first capture only
    expect(second.transactions.map((t) => [t.type, t.amount, t.merchantAmount, t.amountDetails])).toEqual([
      ['capture', -400, -360, { atm_fee: 100, cashback_amount: null }],
      ['capture', -600, -540, null],
    ]);
    expect(second.authorization).toMatchObject({ status: 'closed', transactionIds: second.transactions.map((t) => t.id) });
    expect(second.transactions[1]!.purchaseDetails).toEqual({
      fleet: null,
      flight: null,
      fuel: null,
      lodging: { check_in_at: null, nights: 2 },
      receipt: null,
      reference: 'R-1',
    });
    expect(first.transactions[0]!.purchaseDetails).toBeNull();
    expect(await authorizations.retrieve(scope, authorization.id)).toEqual(second);

    // Each capture was one write of the authorization and its transaction, with both events in its outbox
    expect(transactionRepository.outboxes).toHaveLength(2);
    expect(authorizationRepository.outboxes).toHaveLength(1); // the creation's
    const [updated, created] = transactionRepository.outboxes[1]!.snapshotEvents;
    expect(updated).toMatchObject({ type: 'issuing_authorization.updated', object: serializeAuthorization(second.authorization, second.transactions) });
    expect(updated!.previousAttributes).toMatchObject({ status: 'pending', transactions: first.transactions.map((t) => serializeTransaction(t)) });
    expect(created).toMatchObject({ type: 'issuing_transaction.created', object: serializeTransaction(second.transactions[1]!) });
    expect(transactionRepository.outboxes[1]!.thinEvents.map((event) => event.type)).toEqual([
      'v1.issuing_authorization.updated',
      'v1.issuing_transaction.created',
    ]);
  });

  it('carries the fleet and fuel data of finalize_amount into the capture’s purchase details, under what the capture reports', async () => {
    const { authorizations } = setup();
    const { authorization } = await authorizations.create(origin, authorize({ amount: 5000, merchant_data: { category: 'automated_fuel_dispensers' } }));
    await authorizations.finalizeAmount(origin, authorization.id, {
      final_amount: 4000,
      fleet: { purchase_type: 'fuel_purchase', cardholder_prompt_data: { odometer: 1200 } },
      fuel: { quantity_decimal: '20.5', unit_cost_decimal: '195.12' },
    });
    const { transactions } = await authorizations.capture(origin, authorization.id, capture({ purchase_details: { fuel: { type: 'diesel' } } }));
    expect(transactions[0]!.purchaseDetails).toMatchObject({
      fleet: {
        cardholder_prompt_data: { driver_id: null, odometer: 1200, unspecified_id: null, user_id: null, vehicle_number: null },
        purchase_type: 'fuel_purchase',
        reported_breakdown: null,
        service_type: null,
      },
      // The reference types a reported fuel's unit as always present: an unknown one reads `other`
      fuel: { industry_product_code: null, quantity_decimal: '20.5', type: 'diesel', unit: 'other', unit_cost_decimal: '195.12' },
    });
    expect(transactions[0]!.purchaseDetails!.fleet!.cardholder_prompt_data).not.toHaveProperty('alphanumeric_id');
  });

  it('starts a capture over on a fresh read when the authorization changed under it, writing nothing of the stale one', async () => {
    const { authorizations, authorizationRepository, transactionRepository } = setup();
    const { authorization } = await authorizations.create(origin, authorize({ amount: 1000 }));
    // A concurrent increment lands between the capture's read and its write, once
    const record = transactionRepository.record;
    let raced = false;
    transactionRepository.record = async (change, outbox) => {
      if (!raced) {
        raced = true;
        const stored = (await authorizationRepository.get(scope, authorization.id))!;
        await authorizationRepository.replace({ ...stored, amount: 1500, version: stored.version + 1 });
      }
      return record(change, outbox);
    };

    const { authorization: captured, transactions } = await authorizations.capture(origin, authorization.id, capture());
    expect(transactions).toHaveLength(1);
    expect(transactions[0]!.amount).toBe(-1500);
    expect(captured.version).toBe(3);
    expect(transactionRepository.items.size).toBe(1);
    expect(transactionRepository.outboxes).toHaveLength(1);
  });

  it('refuses what would overfill an authorization’s transactions (captures, metadata), never what releases its hold, and keeps every event under the item limit', async () => {
    const { authorizations, transactions, transactionRepository } = setup();
    // Given an authorization as large as its parameters allow: merchant data, metadata and request history
    const long = (n: number) => 'x'.repeat(n);
    const { authorization } = await authorizations.create(
      origin,
      authorize({
        amount: 1_000_000,
        merchant_data: {
          city: long(200),
          name: long(200),
          network_id: long(100),
          postal_code: long(20),
          state: long(200),
          terminal_id: long(100),
          url: long(2048),
        },
      }),
    );
    const maxMetadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${String(i).padStart(39, '0')}`, long(500)]));
    await authorizations.update(origin, authorization.id, { metadata: maxMetadata });
    for (let i = 1; i < maxRequestHistory - 8; i++) await authorizations.increment(origin, authorization.id, { increment_amount: 1 });
    const receipt = Array.from({ length: 100 }, (_, i) => ({ description: long(200), quantity: '1', total: String(i), unit_cost: String(i) }));

    // When it is captured in part with the largest purchase details until it is full
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      outcomes.push(
        await authorizations
          .capture(origin, authorization.id, capture({ capture_amount: 10, close_authorization: 'false', purchase_details: { receipt } }))
          .then(
            () => 'captured',
            (error: { code: string }) => error.code,
          ),
      );
    }

    // Then the capture that would take it over its room is refused for that, clearly, and nothing more is written
    expect(outcomes).toEqual([
      'captured',
      'captured',
      'captured',
      'authorization_transactions_full',
      'authorization_transactions_full',
      'authorization_transactions_full',
    ]);
    await expect(
      authorizations.capture(origin, authorization.id, capture({ capture_amount: 10, close_authorization: 'false', purchase_details: { receipt } })),
    ).rejects.toThrow(/transactions of the authorization .* are full/);
    const { transactions: captures } = await authorizations.retrieve(scope, authorization.id);
    expect(captures).toHaveLength(3);
    expect(renderedBytes(captures)).toBeLessThanOrEqual(transactionBytesPerAuthorization);

    // And metadata that grows a transaction past the room is refused, while metadata that shrinks one is not
    await expect(transactions.update(origin, captures[0]!.id, { metadata: maxMetadata })).rejects.toMatchObject({ code: 'authorization_transactions_full' });
    const small = await authorizations.capture(origin, authorization.id, capture({ capture_amount: 10, close_authorization: 'false' }));
    const smallCapture = small.transactions.at(-1)!;
    const firstKey = Object.keys(maxMetadata)[0]!;
    await transactions.update(origin, smallCapture.id, { metadata: { [firstKey]: long(400) } });
    await expect(transactions.update(origin, smallCapture.id, { metadata: maxMetadata })).rejects.toMatchObject({ code: 'authorization_transactions_full' });
    await transactions.update(origin, smallCapture.id, { metadata: { [firstKey]: '' } });

    // And refunds, in their own room, still give back what was captured
    await transactions.refund(origin, captures[0]!.id, { refund_amount: 1 });
    await transactions.refund(origin, smallCapture.id, {});

    // And the hold is still released: metadata, a partial reversal, then expiry
    await authorizations.update(origin, authorization.id, { metadata: { k0: '' } });
    await authorizations.reverse(origin, authorization.id, { reverse_amount: 5 });
    const expired = await authorizations.expire(origin, authorization.id);
    expect(expired.authorization.status).toBe('expired');

    // And every event written on the way fits in a DynamoDB item: objects and previous attributes of over 200 KB,
    // kept deflated (the item's other attributes as JSON text, and the deflated bytes)
    const events = transactionRepository.outboxes.flatMap((outbox) => outbox.snapshotEvents);
    expect(Math.max(...events.map((event) => JSON.stringify([event.object, event.previousAttributes]).length))).toBeGreaterThan(200 * 1024);
    const itemBytes = events.map((event) => {
      const { object, previousAttributes, ...rest } = snapshotEventItem(event);
      return JSON.stringify(rest).length + object.length + (previousAttributes?.length ?? 0);
    });
    expect(Math.max(...itemBytes)).toBeLessThan(maxItemBytes);
  });

  it('refunds captures whatever their number, in a room of their own, and says when that is full', async () => {
    const { authorizations, transactions } = setup();
    // Given an authorization with as many small captures as its request history takes (50: once the most transactions it could have)
    const { authorization } = await authorizations.create(origin, authorize({ amount: 100_000 }));
    let last = await authorizations.capture(origin, authorization.id, capture({ capture_amount: 1, close_authorization: 'false' }));
    for (let i = 1; i < maxRequestHistory; i++) {
      last = await authorizations.capture(
        origin,
        authorization.id,
        capture({ capture_amount: 1, close_authorization: i === maxRequestHistory - 1 ? 'true' : 'false' }),
      );
    }
    expect(last.transactions).toHaveLength(maxRequestHistory);

    // When its captures are refunded one by one
    const outcomes: string[] = [];
    for (const captured of last.transactions) {
      outcomes.push(
        await transactions.refund(origin, captured.id, {}).then(
          () => 'refunded',
          (error: { code: string }) => error.code,
        ),
      );
    }

    // Then every refund goes through until the refunds' own room is used up
    const refunded = outcomes.filter((outcome) => outcome === 'refunded').length;
    expect(refunded).toBeGreaterThan(20);
    expect(outcomes).toEqual([...Array(refunded).fill('refunded'), ...Array(maxRequestHistory - refunded).fill('authorization_transactions_full')]);
    const { transactions: shown } = await authorizations.retrieve(scope, authorization.id);
    expect(renderedBytes(shown.filter((t) => t.type === 'refund'))).toBeLessThanOrEqual(refundBytesPerAuthorization);
  });

  it('bounds the request history of a pending authorization, but never refuses what ends it', async () => {
    const { authorizations } = setup();
    const { authorization } = await authorizations.create(origin, authorize({ amount: 1000 }));
    for (let i = 1; i < maxRequestHistory; i++) await authorizations.increment(origin, authorization.id, { increment_amount: 1 });

    await expect(authorizations.increment(origin, authorization.id, { increment_amount: 1 })).rejects.toMatchObject({
      code: 'authorization_request_history_full',
    });
    await expect(authorizations.reverse(origin, authorization.id, { reverse_amount: 1 })).rejects.toMatchObject({ code: 'authorization_request_history_full' });
    await expect(authorizations.capture(origin, authorization.id, capture({ capture_amount: 1, close_authorization: 'false' }))).rejects.toMatchObject({
      code: 'authorization_request_history_full',
    });
    const reversed = await authorizations.reverse(origin, authorization.id, {});
    expect(reversed.authorization).toMatchObject({ status: 'reversed', amount: 0 });
    expect(reversed.authorization.requestHistory).toHaveLength(maxRequestHistory + 1);
  });

  it('refunds what remains of a capture by default, in parts, and never more than was captured', async () => {
    const { authorizations, transactions, transactionRepository, authorizationRepository } = setup();
    const { authorization } = await authorizations.create(origin, authorize({ amount: 1000, merchant_currency: 'eur', merchant_amount: 900 }));
    const [captured] = (await authorizations.capture(origin, authorization.id, capture())).transactions;

    const partial = await transactions.refund(origin, captured!.id, { refund_amount: 300 });
    expect(partial).toMatchObject({
      type: 'refund',
      amount: 300,
      merchantAmount: 270,
      authorizationId: authorization.id,
      cardId: card.id,
      refundOf: captured!.id,
      purchaseDetails: null,
    });
    await expect(transactions.refund(origin, captured!.id, { refund_amount: 701 })).rejects.toMatchObject({
      code: 'amount_too_large',
      param: 'refund_amount',
    });
    const rest = await transactions.refund(origin, captured!.id, {});
    expect(rest).toMatchObject({ amount: 700, merchantAmount: 630 });
    await expect(transactions.refund(origin, captured!.id, {})).rejects.toMatchObject({ code: 'charge_already_refunded' });
    await expect(transactions.refund(origin, rest.id, {})).rejects.toMatchObject({ code: 'parameter_invalid' });
    await expect(transactions.refund(originOf({ ...scope, livemode: true }), captured!.id, {})).rejects.toMatchObject({ code: 'livemode_mismatch' });
    await expect(transactions.refund(origin, 'ipi_missing', {})).rejects.toMatchObject({ code: 'resource_missing' });

    // The capture counts what it gave back; its authorization shows all three; each refund emitted its own creation only
    expect((await transactionRepository.get(scope, captured!.id))!.refundedAmount).toBe(1000);
    expect((await authorizationRepository.get(scope, authorization.id))!.transactionIds).toEqual([captured!.id, partial.id, rest.id]);
    const refundOutboxes = transactionRepository.outboxes.slice(-2);
    expect(refundOutboxes.map((outbox) => outbox.snapshotEvents.map((event) => [event.type, event.object.id]))).toEqual([
      [['issuing_transaction.created', partial.id]],
      [['issuing_transaction.created', rest.id]],
    ]);
    expect(serializeTransaction(await transactions.retrieve(scope, captured!.id))).toEqual(serializeTransaction(captured!));
  });

  it('gives refunds merchant amounts that add up to the capture’s, the last one taking the remainder', async () => {
    const { authorizations, transactions, transactionRepository } = setup();
    // Given a capture of 1000 usd at 333 eur
    const { authorization } = await authorizations.create(origin, authorize({ amount: 1000, merchant_currency: 'eur', merchant_amount: 333 }));
    const [captured] = (await authorizations.capture(origin, authorization.id, capture())).transactions;
    expect(captured!.merchantAmount).toBe(-333);

    // When it is refunded in parts of 300, 300, 300, 1, 1, 1 and the rest
    const refunds = [];
    for (const refund_amount of [300, 300, 300, 1, 1, 1]) refunds.push(await transactions.refund(origin, captured!.id, { refund_amount }));
    refunds.push(await transactions.refund(origin, captured!.id, {}));

    // Then each gives back its share so far, never more, and together exactly the capture's merchant amount
    expect(refunds.map((refund) => [refund.amount, refund.merchantAmount])).toEqual([
      [300, 100],
      [300, 100],
      [300, 100],
      [1, 0],
      [1, 0],
      [1, 1],
      [97, 32],
    ]);
    const all = [...transactionRepository.items.values()].filter((t) => t.authorizationId === authorization.id);
    expect(all.reduce((sum, t) => sum + t.amount, 0)).toBe(0);
    expect(all.reduce((sum, t) => sum + t.merchantAmount, 0)).toBe(0);
    expect((await transactions.retrieve(scope, captured!.id)).refundedMerchantAmount).toBe(333);
  });

  it('refuses a rate it cannot know: merchant_amount with a zero amount, or more than 0 on a zero authorization in another currency', async () => {
    const { authorizations } = setup();
    await expect(authorizations.create(origin, authorize({ amount: 0, merchant_currency: 'eur', merchant_amount: 500 }))).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'merchant_amount',
    });
    await expect(authorizations.create(origin, authorize({ amount: 100, merchant_currency: 'eur', merchant_amount: 0 }))).rejects.toMatchObject({
      param: 'merchant_amount',
    });
    const { authorization } = await authorizations.create(origin, authorize({ amount: 0, merchant_currency: 'eur', merchant_amount: 0 }));
    await expect(authorizations.capture(origin, authorization.id, capture({ capture_amount: 700 }))).rejects.toThrow(/no exchange rate/);
    await expect(authorizations.increment(origin, authorization.id, { increment_amount: 5 })).rejects.toMatchObject({ code: 'parameter_invalid' });
    expect((await authorizations.expire(origin, authorization.id)).authorization).toMatchObject({ status: 'expired', merchantAmount: 0 });
  });

  it('lets only one of two concurrent full refunds through', async () => {
    const { authorizations, transactions, transactionRepository } = setup();
    const { authorization } = await authorizations.create(origin, authorize({ amount: 800 }));
    const [captured] = (await authorizations.capture(origin, authorization.id, capture())).transactions;

    const outcomes = await Promise.allSettled([transactions.refund(origin, captured!.id, {}), transactions.refund(origin, captured!.id, {})]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect([...transactionRepository.items.values()].filter((t) => t.type === 'refund').map((t) => t.amount)).toEqual([800]);
  });

  it('shows the purchase details of the SDK’s generated capture example as the reference does', async () => {
    const { authorizations } = setup();
    const { authorization } = await authorizations.create(origin, authorize({ amount: 200 }));
    const { transactions } = await authorizations.capture(
      origin,
      authorization.id,
      capture({ capture_amount: '100', purchase_details: examplePurchaseDetails }),
    );
    expect(serializeTransaction(transactions[0]!).purchase_details).toEqual(examplePurchaseDetailsShown);
  });

  it('makes force captures and unlinked refunds on a card without an authorization, each with its issuing_transaction.created', async () => {
    const { transactions, transactionRepository } = setup();
    const raw = {
      card: card.id,
      amount: '1000',
      merchant_data: { category: 'hotels_motels_and_resorts', name: 'Inn' },
      purchase_details: examplePurchaseDetails,
    };

    const forced = await transactions.createForceCapture(origin, createForceCaptureParams.parse(raw));
    const refund = await transactions.createUnlinkedRefund(origin, createUnlinkedRefundParams.parse({ ...raw, currency: 'USD', purchase_details: undefined }));

    expect(forced).toMatchObject({
      type: 'capture',
      authorizationId: null,
      cardId: card.id,
      cardholderId: holder.id,
      amount: -1000,
      merchantAmount: -1000,
      currency: 'usd',
      merchantCurrency: 'usd',
      amountDetails: null,
      wallet: null,
      networkData: { authorization_code: null, processing_date: '2026-06-15', transaction_id: null },
    });
    expect(forced.merchantData).toMatchObject({ category: 'hotels_motels_and_resorts', category_code: '7011', name: 'Inn', city: null });
    expect(serializeTransaction(forced)).toMatchObject({ authorization: null, purchase_details: examplePurchaseDetailsShown });
    expect(refund).toMatchObject({ type: 'refund', authorizationId: null, amount: 1000, merchantAmount: 1000, purchaseDetails: null });

    // Each is one write with its own creation event, and reads back as written
    expect(transactionRepository.outboxes.map((outbox) => outbox.snapshotEvents.map((event) => [event.type, event.object]))).toEqual([
      [['issuing_transaction.created', serializeTransaction(forced)]],
      [['issuing_transaction.created', serializeTransaction(refund)]],
    ]);
    expect(await transactions.retrieve(scope, forced.id)).toEqual(forced);

    // A force capture can be refunded like any capture; an unlinked refund cannot
    expect(await transactions.refund(origin, forced.id, { refund_amount: 400 })).toMatchObject({
      type: 'refund',
      amount: 400,
      authorizationId: null,
      refundOf: forced.id,
    });
    await expect(transactions.refund(origin, refund.id, {})).rejects.toMatchObject({ code: 'parameter_invalid' });
  });

  it('refuses a force capture or unlinked refund in live mode, on an unknown card or in another currency', async () => {
    const { transactions } = setup();
    const raw = { card: card.id, amount: '100' };
    await expect(transactions.createForceCapture(originOf({ ...scope, livemode: true }), createForceCaptureParams.parse(raw))).rejects.toMatchObject({
      code: 'livemode_mismatch',
    });
    await expect(
      transactions.createUnlinkedRefund(originOf({ ...scope, accountId: 'acct_other' }), createUnlinkedRefundParams.parse(raw)),
    ).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'card',
    });
    await expect(transactions.createForceCapture(origin, createForceCaptureParams.parse({ ...raw, currency: 'eur' }))).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'currency',
    });
    expect(createForceCaptureParams.safeParse({ card: card.id }).success).toBe(false);
    expect(createForceCaptureParams.safeParse({ ...raw, amount: '0' }).success).toBe(false);
    expect(createUnlinkedRefundParams.safeParse({ ...raw, capture_amount: '1' }).success).toBe(false);
  });

  it('updates metadata with issuing_transaction.updated and lists by card, cardholder and type, newest first', async () => {
    const { authorizations, transactions, transactionRepository } = setup();
    const ids: string[] = [];
    for (const amount of [100, 200]) {
      const { authorization } = await authorizations.create(origin, authorize({ amount }));
      ids.push((await authorizations.capture(origin, authorization.id, capture())).transactions[0]!.id);
    }
    const refund = await transactions.refund(origin, ids[0]!, { refund_amount: 10 });

    const updated = await transactions.update(origin, ids[1]!, { metadata: { order: '7' } });
    expect(updated.metadata).toEqual({ order: '7' });
    const [event] = transactionRepository.outboxes.at(-1)!.snapshotEvents;
    expect(event).toMatchObject({ type: 'issuing_transaction.updated', previousAttributes: { metadata: {} }, object: serializeTransaction(updated) });

    const list = async (raw: Record<string, unknown>) =>
      (await transactions.list(scope, { limit: 10 }, listTransactionsParams.parse(raw))).items.map((transaction) => transaction.id);
    expect(await list({})).toEqual([refund.id, ids[1], ids[0]]);
    expect(await list({ type: 'capture' })).toEqual([ids[1], ids[0]]);
    expect(await list({ type: 'refund', card: card.id, cardholder: holder.id })).toEqual([refund.id]);
    expect(await list({ card: 'ic_other' })).toEqual([]);
  });
});
