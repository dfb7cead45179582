import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextPaymentAttempt } from '#shared/billing/retry-schedule.ts';
import { CardError, InvalidRequestError } from '#shared/core/errors.ts';
import { createInvoiceItemParams, createInvoiceParams } from '#shared/invoices/schemas.ts';
import { serializeInvoice } from '#shared/invoices/serializer.ts';
import { autoFinalizeDelay } from '#shared/invoices/service.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { PaymentResult } from '#shared/subscriptions/lifecycle.ts';
import type { Subscription } from '#shared/subscriptions/subscription.ts';
import { originOf } from '../../support/fakes.ts';
import { declined, invoiceSetup, scriptedGateway } from '../../support/invoice-fakes.ts';

const scope: Scope = { accountId: 'acct_invoices', livemode: false };
const origin = originOf(scope);
const item = (params: Record<string, unknown>) => createInvoiceItemParams.parse({ customer: 'cus_1', currency: 'usd', ...params });
const invoice = (params: Record<string, unknown> = {}) =>
  createInvoiceParams.parse({ customer: 'cus_1', pending_invoice_items_behavior: 'include', ...params });

describe('invoices (service on fakes)', () => {
  it('Given a charge_automatically draft, when finalized and the charge succeeds, then it is numbered, paid with invoice.paid and the customer’s sequence moves on', async () => {
    const { gateway, charges } = scriptedGateway();
    const { service, customers, types } = invoiceSetup(scope, gateway);
    await service.createItem(origin, item({ amount: 1500 }));
    const draft = await service.create(origin, invoice());
    const paid = await service.finalize(origin, draft.id, {});
    expect(paid).toMatchObject({ status: 'paid', number: 'ABCD1234-0001', amountPaid: 1500, attempted: true, attemptCount: 1, paidWith: 'card_1' });
    expect(charges).toEqual([{ amount: 1500, currency: 'usd', invoice: draft.id, at: 1_800_000_000_000 }]);
    expect((await customers.get(scope, 'cus_1'))!.nextInvoiceSequence).toBe(2);
    expect(types()).toEqual([
      'invoiceitem.created',
      'invoice.created',
      'invoiceitem.updated',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
    ]);
  });

  it('Given a declined card, when finalized, then the invoice stays open and is retried on the default schedule by the due processor, each run at most once', async () => {
    const { gateway, charges } = scriptedGateway(declined(), declined());
    const { service, repository, types } = invoiceSetup(scope, gateway);
    await service.createItem(origin, item({ amount: 700 }));
    const draft = await service.create(origin, invoice());
    const open = await service.finalize(origin, draft.id, {});
    const finalizedAt = open.statusTransitions.finalizedAt!;
    expect(open).toMatchObject({
      status: 'open',
      attemptCount: 1,
      nextPaymentAttempt: nextPaymentAttempt(1, finalizedAt),
      lastPaymentError: { code: 'card_declined' },
    });
    expect(open.due.at).toBe(open.nextPaymentAttempt);
    expect(serializeInvoice(open).next_payment_attempt).toBe(Math.floor(open.nextPaymentAttempt! / 1000));
    // Too early: nothing happens.
    await service.processDue(scope, draft.id, open.due.at! - 1);
    expect(charges).toHaveLength(1);
    // Two sweepers at once, then a late third: the try is claimed once, so the card is charged once.
    await Promise.all([service.processDue(scope, draft.id, open.due.at!), service.processDue(scope, draft.id, open.due.at!)]);
    await service.processDue(scope, draft.id, open.due.at!);
    const retried = (await repository.invoices.get(scope, draft.id))!;
    expect(charges).toHaveLength(2);
    expect(retried).toMatchObject({ status: 'open', attemptCount: 2, nextPaymentAttempt: nextPaymentAttempt(2, open.due.at!) });
    await service.processDue(scope, draft.id, retried.due.at!);
    expect((await repository.invoices.get(scope, draft.id))!).toMatchObject({ status: 'paid', attemptCount: 3, nextPaymentAttempt: null, due: { at: null } });
    expect(types().filter((type) => type.startsWith('invoice.payment'))).toEqual([
      'invoice.payment_failed',
      'invoice.payment_failed',
      'invoice.payment_succeeded',
    ]);
  });

  it("Given a subscription's invoice on a card that always declines, when every automatic try fails, then each failure, and at last the spent schedule, is handed to the subscription in the invoice's own write", async () => {
    const { gateway } = scriptedGateway(...Array.from({ length: 8 }, () => declined()));
    const results: Array<{ invoice: string; result: PaymentResult }> = [];
    const payments = {
      after: async (_scope: Scope, invoice: { id: string; subscription: string }, result: PaymentResult) => {
        results.push({ invoice: invoice.id, result });
        return undefined;
      },
    };
    const { service, repository } = invoiceSetup(scope, gateway, {}, payments);
    await service.createItem(origin, item({ amount: 700 }));
    const draft = await service.create(origin, invoice());
    // As a renewal's draft: it belongs to a subscription.
    expect(await repository.commit({ invoice: { ...draft, subscription: 'sub_1', billingReason: 'subscription_cycle', version: draft.version + 1 } })).toBe(
      true,
    );
    let current = await service.finalize(origin, draft.id, {});
    while (current.due.at !== null) {
      await service.processDue(scope, draft.id, current.due.at);
      current = (await repository.invoices.get(scope, draft.id))!;
    }
    expect(current).toMatchObject({ status: 'open', attemptCount: 8, nextPaymentAttempt: null });
    expect(results.map(({ result }) => result)).toEqual([
      ...Array.from({ length: 7 }, () => ({ kind: 'failed', first: false })),
      { kind: 'retries_exhausted', end: 'cancel' },
    ]);
    expect(new Set(results.map((entry) => entry.invoice))).toEqual(new Set([draft.id]));
  });

  it('Given a finalizer killed between the finalization and the charge, the invoice falls due when its claim lapses and is charged once then', async () => {
    const { gateway: healthy, charges } = scriptedGateway();
    let killed = true;
    const gateway = {
      charge: (...args: Parameters<typeof healthy.charge>) => (killed ? Promise.reject(new Error('killed')) : healthy.charge(...args)),
    };
    const { service, repository } = invoiceSetup(scope, gateway);
    await service.createItem(origin, item({ amount: 500 }));
    const draft = await service.create(origin, invoice());
    await expect(service.finalize(origin, draft.id, {})).rejects.toThrow('killed');
    const open = (await repository.invoices.get(scope, draft.id))!;
    expect(open).toMatchObject({ status: 'open', attemptCount: 0 });
    expect(open.due.at).toBeGreaterThan(open.statusTransitions.finalizedAt!);
    killed = false;
    await service.processDue(scope, draft.id, open.due.at! - 1);
    expect(charges).toHaveLength(0);
    await service.processDue(scope, draft.id, open.due.at!);
    expect((await repository.invoices.get(scope, draft.id))!).toMatchObject({ status: 'paid', attemptCount: 1, due: { at: null } });
    expect(charges).toHaveLength(1);
  });

  it('Given a customer without a payment source, the failed charge is not retried', async () => {
    const { gateway } = scriptedGateway(declined(null));
    const { service } = invoiceSetup(scope, gateway);
    await service.createItem(origin, item({ amount: 700 }));
    const open = await service.finalize(origin, (await service.create(origin, invoice())).id, {});
    expect(open).toMatchObject({ status: 'open', nextPaymentAttempt: null, due: { at: null } });
  });

  it('Given an auto_advance draft, the due processor finalizes it an hour after creation (on billing time), and never twice', async () => {
    const { gateway, charges } = scriptedGateway();
    const { service, repository, time, customers } = invoiceSetup(scope, gateway);
    await service.createItem(origin, item({ amount: 300 }));
    const draft = await service.create(origin, invoice());
    expect(draft.due).toEqual({ at: draft.created + autoFinalizeDelay, testClock: null });
    const manual = await service.create(origin, invoice({ auto_advance: false }));
    expect(manual.due.at).toBeNull();
    time.now += 10 * autoFinalizeDelay;
    await Promise.all([service.processDue(scope, draft.id, draft.due.at!), service.processDue(scope, draft.id, draft.due.at!)]);
    const done = (await repository.invoices.get(scope, draft.id))!;
    expect(done).toMatchObject({ status: 'paid', number: 'ABCD1234-0001', statusTransitions: { finalizedAt: draft.created + autoFinalizeDelay } });
    expect(charges).toHaveLength(1);
    expect((await customers.get(scope, 'cus_1'))!.nextInvoiceSequence).toBe(2);
  });

  it('applies a credit balance at finalization and gives it back when the invoice is voided', async () => {
    const { gateway } = scriptedGateway(declined());
    const { service, customers } = invoiceSetup(scope, gateway, { balance: -400 });
    await service.createItem(origin, item({ amount: 1000 }));
    const open = await service.finalize(origin, (await service.create(origin, invoice())).id, {});
    expect(open).toMatchObject({ startingBalance: -400, endingBalance: 0, amountDue: 600 });
    expect((await customers.get(scope, 'cus_1'))!.balance).toBe(0);
    expect(await service.voidInvoice(origin, open.id)).toMatchObject({ status: 'void', nextPaymentAttempt: null, due: { at: null } });
    expect((await customers.get(scope, 'cus_1'))!.balance).toBe(-400);
  });

  it('Given a declined card, when pay is called, then it answers a card error and the schedule of automatic tries is unchanged', async () => {
    const { gateway } = scriptedGateway(declined(), declined());
    const { service, repository } = invoiceSetup(scope, gateway);
    await service.createItem(origin, item({ amount: 700 }));
    const open = await service.finalize(origin, (await service.create(origin, invoice())).id, {});
    const error = await service.pay(origin, open.id, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CardError);
    expect(error).toMatchObject({ code: 'card_declined', declineCode: 'generic_decline' });
    expect((await repository.invoices.get(scope, open.id))!).toMatchObject({ attemptCount: 2, nextPaymentAttempt: open.nextPaymentAttempt });
  });

  it('Given a customer whose test clock is advancing, every change of its invoices and items is refused with the clock’s error', async () => {
    const { gateway } = scriptedGateway();
    const { service, time } = invoiceSetup(scope, gateway);
    const made = await service.createItem(origin, item({ amount: 700 }));
    const draft = await service.create(origin, invoice({ auto_advance: false, collection_method: 'send_invoice' }));
    const advancing = new InvalidRequestError('The test clock is advancing.', 'test_clock_advancing');
    time.refusal = advancing;
    for (const change of [
      () => service.updateItem(origin, made.id, { metadata: { a: '1' } }),
      () => service.deleteItem(origin, made.id),
      () => service.update(origin, draft.id, { metadata: { a: '1' } }),
      () => service.delete(origin, draft.id),
      () => service.finalize(origin, draft.id, {}),
      () => service.createItem(origin, item({ amount: 1 })),
    ])
      await expect(change()).rejects.toBe(advancing);
  });

  it('refuses with a 400, never a crash, an amount beyond 12 digits and a draft whose lines would not fit its item', async () => {
    const { gateway } = scriptedGateway();
    const { service } = invoiceSetup(scope, gateway);
    await expect(service.createItem(origin, item({ unit_amount_decimal: '999999999999', quantity: 100_000_000 }))).rejects.toMatchObject({
      param: 'unit_amount_decimal',
    });
    const made = await service.createItem(origin, item({ unit_amount_decimal: '100000', quantity: 1 }));
    await expect(service.updateItem(origin, made.id, { quantity: 100_000_000 })).rejects.toBeInstanceOf(InvalidRequestError);
    const draft = await service.create(origin, invoice({ auto_advance: false }));
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key${i}`, 'x'.repeat(500)]));
    const added = async () => service.createItem(origin, item({ amount: 1, invoice: draft.id, metadata }));
    let refused: unknown;
    for (let i = 0; i < 20 && !refused; i++)
      refused = await added().then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refused).toMatchObject({ param: 'invoice', message: expect.stringContaining('too large') });
  });

  it('refuses the reference’s invalid transitions with invalid request errors', async () => {
    const { gateway } = scriptedGateway();
    const { service } = invoiceSetup(scope, gateway);
    const draft = await service.create(origin, invoice({ auto_advance: false }));
    await expect(service.voidInvoice(origin, draft.id)).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(service.markUncollectible(origin, draft.id)).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(service.send(origin, draft.id)).rejects.toBeInstanceOf(InvalidRequestError);
    const paid = await service.finalize(origin, draft.id, {});
    expect(paid.status).toBe('paid');
    await expect(service.delete(origin, draft.id)).rejects.toMatchObject({ code: 'invoice_not_editable' });
    await expect(service.pay(origin, draft.id, {})).rejects.toMatchObject({ code: 'invoice_already_paid' });
  });

  it('Given any schedule of item additions, changes and removals on a draft, its total is always the sum of its items’ exact amounts', async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), unit: fc.stringMatching(/^\d{1,4}(\.\d{1,3})?$/), quantity: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ kind: fc.constant('change' as const), index: fc.nat(), quantity: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ kind: fc.constant('remove' as const), index: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 12 }), async (steps) => {
        const { gateway } = scriptedGateway();
        const { service, repository } = invoiceSetup(scope, gateway);
        const draft = await service.create(origin, invoice({ auto_advance: false }));
        const ids: string[] = [];
        for (const change of steps) {
          if (change.kind === 'add')
            ids.push((await service.createItem(origin, item({ invoice: draft.id, unit_amount_decimal: change.unit, quantity: change.quantity }))).id);
          else if (ids.length && change.kind === 'change') await service.updateItem(origin, ids[change.index % ids.length]!, { quantity: change.quantity });
          else if (ids.length && change.kind === 'remove') await service.deleteItem(origin, ids.splice(change.index % ids.length, 1)[0]!);
        }
        const stored = (await repository.invoices.get(scope, draft.id))!;
        const items = await Promise.all(ids.map((id) => repository.items.get(scope, id)));
        const body = serializeInvoice(stored);
        expect(body.lines.total_count).toBe(ids.length);
        expect(body.total).toBe(items.reduce((sum, found) => sum + found!.amount, 0));
        expect(body.amount_due).toBe(Math.max(0, body.total));
        expect(body.amount_remaining).toBe(body.amount_due - body.amount_paid);
      }),
      { numRuns: 40 },
    );
  });

  it('drafts a subscription period’s invoice as writes for the caller’s transaction, taking the customer’s pending items of that subscription and of none, and writes nothing itself', async () => {
    const { gateway } = scriptedGateway();
    const { service, repository, customers, subscriptions } = invoiceSetup(scope, gateway);
    const subscription = {
      id: 'sub_1',
      scope,
      version: 3,
      customer: 'cus_1',
      currency: 'usd',
      collectionMethod: 'charge_automatically',
      daysUntilDue: null,
    } as Subscription;
    await subscriptions.create(subscription);
    const own = await service.createItem(origin, item({ amount: 250 }));
    const ofSubscription = await service.createItem(origin, item({ amount: 90, subscription: 'sub_1' }));
    const before = repository.commits();
    const customer = (await customers.get(scope, 'cus_1'))!;
    const period = { start: 1_800_000_000_000, end: 1_802_592_000_000 };
    const line = {
      kind: 'subscription' as const,
      amount: 1500,
      quantity: 1,
      price: null,
      period,
      proration: false,
      subscription: 'sub_1',
      subscriptionItem: 'si_1',
      description: '1 × Pro',
    };
    const { change, events } = await service.draftForPeriod(
      origin,
      subscription,
      customer,
      { now: period.start, testClock: null },
      [line],
      'subscription_cycle',
    );
    expect(repository.commits()).toBe(before);
    expect(change.newInvoice).toMatchObject({
      subscription: 'sub_1',
      billingReason: 'subscription_cycle',
      periodStart: period.start,
      periodEnd: period.end,
      status: 'draft',
    });
    // The subscription's pending item and the customer's item of no subscription join, as the reference's next invoice takes them.
    expect(change.items!.map((joined) => [joined.id, joined.invoice, joined.pending])).toEqual([
      [own.id, change.newInvoice!.id, false],
      [ofSubscription.id, change.newInvoice!.id, false],
    ]);
    expect(serializeInvoice(change.newInvoice!)).toMatchObject({ total: 1840, parent: { subscription_details: { subscription: 'sub_1' } } });
    expect(events.map((event) => event.type)).toEqual(['invoice.created', 'invoiceitem.updated', 'invoiceitem.updated']);
    expect(await repository.commit(change)).toBe(true);
    // The same draft again (a second renewal of the same period) cannot be written: the caller's versioned replace fails first on AWS; here the invoice id is taken.
    expect(await repository.commit(change)).toBe(false);
    expect((await repository.items.get(scope, own.id))!.pending).toBe(false);
  });
});
