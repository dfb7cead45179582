import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountDueAfterBalance, minimumChargeAmounts } from '#shared/billing/minimum-charge.ts';
import type { Price } from '#shared/catalogue/catalogue.ts';
import type { Invoice, InvoiceLine } from '#shared/invoices/invoice.ts';
import { billsUsage, type MeteredUsage, meteredUsage, recountUsage, usageLineAmount } from '#shared/invoices/usage.ts';
import type { UsageReader } from '#shared/meter-events/meter-event.ts';
import type { Meter } from '#shared/meters/meter.ts';
import type { Scope } from '#shared/platform/types.ts';
import { applyStep, type LifecycleState } from '#shared/subscriptions/lifecycle.ts';

const scope: Scope = { accountId: 'acct_usage', livemode: false };
const price = (usageType: 'licensed' | 'metered', unitAmountDecimal = '50'): Price =>
  ({
    id: `price_${usageType}`,
    unitAmountDecimal,
    recurring: { interval: 'month', intervalCount: 1, usageType, meter: usageType === 'metered' ? 'mtr_1' : null },
  }) as Price;
const line = (fields: Partial<InvoiceLine>): InvoiceLine =>
  ({
    id: 'il_1',
    kind: 'subscription',
    amount: 0,
    quantity: 0,
    proration: false,
    price: price('metered'),
    period: { start: 0, end: 1000 },
    ...fields,
  }) as InvoiceLine;
const invoiceOf = (lines: InvoiceLine[], created = 1000): Invoice => ({ scope, customer: 'cus_1', created, lines }) as unknown as Invoice;

describe('usage lines (pure)', () => {
  it('Given a metered price of 50 per unit, when 7 units are billed, then the amount is 350; a decimal unit amount rounds half away from zero once', () => {
    expect(usageLineAmount(price('metered'), 7)).toBe(350);
    expect(usageLineAmount(price('metered', '0.5'), 3)).toBe(2);
    expect(usageLineAmount(price('metered'), 0)).toBe(0);
  });

  it('Given usage whose amount a line cannot carry, or a quantity beyond an exact integer, when it is priced, then it is refused as amount_too_large, never capped', () => {
    // 99,999,999 per unit × 3 × 10^15 is far beyond 12 digits; 2^53 + 1 units is not an exact quantity
    expect(() => usageLineAmount(price('metered', '99999999'), 3 * 10 ** 15)).toThrow(expect.objectContaining({ code: 'amount_too_large' }));
    expect(() => usageLineAmount(price('metered', '1'), 2 ** 53 + 2)).toThrow(expect.objectContaining({ code: 'amount_too_large' }));
    // The largest amount a line carries is still billed
    expect(usageLineAmount(price('metered', '1'), 999_999_999_999)).toBe(999_999_999_999);
  });

  it('Given lines of an invoice, when asked which bill usage, then only metered subscription lines of a period ended by the invoice’s creation do', () => {
    const invoice = invoiceOf([]);
    expect(billsUsage(line({}), invoice)).toBe(true);
    // The first invoice's zero line covers the period ahead: never recounted (that usage goes on the next invoice).
    expect(billsUsage(line({ period: { start: 1000, end: 2000 } }), invoice)).toBe(false);
    expect(billsUsage(line({ price: price('licensed') }), invoice)).toBe(false);
    expect(billsUsage(line({ proration: true }), invoice)).toBe(false);
    expect(billsUsage(line({ kind: 'invoiceitem' }), invoice)).toBe(false);
  });

  it('Given usage that changed since the draft, when recounted, then each usage line takes the quantity counted now and its amount, and recounting again changes nothing', async () => {
    const counted = new Map([['0-1000', 7]]);
    const usage: MeteredUsage = { quantity: async (_scope, _price, _customer, period) => counted.get(`${period.start}-${period.end}`) ?? 0 };
    const ahead = line({ id: 'il_ahead', period: { start: 1000, end: 2000 } });
    const licensed = line({ id: 'il_licensed', price: price('licensed'), quantity: 2, amount: 100 });
    const draft = invoiceOf([line({ quantity: 12, amount: 600 }), ahead, licensed]);
    const once = await recountUsage(usage, draft);
    expect(once.map((found) => [found.id, found.quantity, found.amount])).toEqual([
      ['il_1', 7, 350],
      ['il_ahead', 0, 0],
      ['il_licensed', 2, 100],
    ]);
    expect(await recountUsage(usage, { ...draft, lines: once })).toEqual(once);
  });

  it('Given an invoice without usage lines, when recounted, then its lines come back unread', async () => {
    const usage: MeteredUsage = { quantity: async () => expect.unreachable('no usage is read') };
    const lines = [line({ price: price('licensed') })];
    expect(await recountUsage(usage, invoiceOf(lines))).toBe(lines);
  });

  it('Given a metered price, when its usage is read, then the reader aggregates the price’s meter (its formula) over the period for the customer', async () => {
    const calls: unknown[] = [];
    const reader: UsageReader = {
      aggregate: async (_scope, meter, customer, from, to) => {
        calls.push([meter.id, meter.formula, customer, from, to]);
        return 9;
      },
    };
    const meters = { get: async (_scope: Scope, id: string) => (id === 'mtr_1' ? ({ id, formula: 'count' } as Meter) : undefined) };
    const usage = meteredUsage({ meters, reader });
    expect(await usage.quantity(scope, price('metered'), 'cus_1', { start: 60_000, end: 120_000 })).toBe(9);
    expect(calls).toEqual([['mtr_1', 'count', 'cus_1', 60_000, 120_000]]);
  });
});

describe('the minimum charge (pure)', () => {
  it('Given an amount due under the currency’s minimum, when the balance is applied, then nothing is due and the amount is carried to the balance', () => {
    expect(amountDueAfterBalance(30, 0, 'usd')).toEqual({ amountDue: 0, endingBalance: 30, carried: 30 });
    expect(amountDueAfterBalance(29, 0, 'GBP')).toEqual({ amountDue: 0, endingBalance: 29, carried: 29 });
    expect(amountDueAfterBalance(49, 0, 'jpy')).toEqual({ amountDue: 0, endingBalance: 49, carried: 49 });
    // A debit carried before joins the next total and is charged once the sum reaches the minimum.
    expect(amountDueAfterBalance(100, 30, 'usd')).toEqual({ amountDue: 130, endingBalance: 0, carried: 0 });
    // A credit that leaves less than the minimum due: the rest is carried too.
    expect(amountDueAfterBalance(100, -80, 'usd')).toEqual({ amountDue: 0, endingBalance: 20, carried: 20 });
  });

  it('Given any total and balance, when applied, then what is due is zero or at least the minimum, and what is due plus the balance left equals the total plus the balance before', () => {
    const currencies = [...Object.keys(minimumChargeAmounts), 'xyz'];
    fc.assert(
      fc.property(
        fc.integer({ min: -10_000, max: 10_000 }),
        fc.integer({ min: -10_000, max: 10_000 }),
        fc.constantFrom(...currencies),
        (total, balance, currency) => {
          const { amountDue, endingBalance } = amountDueAfterBalance(total, balance, currency);
          expect(amountDue === 0 || amountDue >= (minimumChargeAmounts[currency] ?? 0)).toBe(true);
          expect(amountDue + endingBalance).toBe(total + balance);
        },
      ),
    );
  });
});

describe('a subscription ending at a period end (pure)', () => {
  const state = (usageType: 'licensed' | 'metered', status: LifecycleState['status'] = 'active'): LifecycleState => ({
    status,
    created: 0,
    billingCycleAnchor: 0,
    currentPeriodEnd: 1000,
    trialEnd: null,
    trialEndBehavior: 'create_invoice',
    cancelAt: null,
    cancelAtPeriodEnd: true,
    pauseCollection: null,
    items: [{ id: 'si_1', recurring: { interval: 'month', intervalCount: 1, usageType } }],
    notices: { trialWillEnd: null, upcoming: null },
  });

  it('Given metered items, when the subscription is canceled at its period end, then a final invoice bills their usage up to then; licensed items or a trial make none', () => {
    expect(applyStep(state('metered'), { kind: 'cancel', at: 1000 }, { hasPaymentMethod: true }).invoice).toEqual({
      billingReason: 'subscription_cycle',
      items: [{ id: 'si_1', period: { start: 1000, end: 1000 } }],
      collection: 'finalize',
    });
    expect(applyStep(state('licensed'), { kind: 'cancel', at: 1000 }, { hasPaymentMethod: true }).invoice).toBeNull();
    expect(applyStep(state('metered', 'trialing'), { kind: 'cancel', at: 1000 }, { hasPaymentMethod: true }).invoice).toBeNull();
  });
});
