import type { BillingTime, PaymentGateway } from '#shared/billing/ports.ts';
import { maxLineAmount, unitAmountOf } from '#shared/billing/money.ts';
import { amountDueAfterBalance } from '#shared/billing/minimum-charge.ts';
import { perUnitTerms, type PriceTerms, priceAmount, shownUnitAmount, termsOf } from '#shared/billing/pricing.ts';
import { nextPaymentAttempt } from '#shared/billing/retry-schedule.ts';
import type { Price } from '#shared/catalogue/catalogue.ts';
import { systemClock } from '#shared/core/clock.ts';
import { CardError, InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { newId } from '#shared/core/ids.ts';
import type { Customer, CustomerRepository } from '#shared/customers/customer.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventInput, EventOrigin } from '#shared/events/event.ts';
import { withOptimisticRetries } from '#shared/platform/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { InvoiceSettlement } from '#shared/subscriptions/invoicing.ts';
import type { PaymentResult } from '#shared/subscriptions/lifecycle.ts';
import { exhaustedRetriesEnd } from '#shared/subscriptions/service.ts';
import type { Subscription } from '#shared/subscriptions/subscription.ts';
import { mergeMetadata } from '#shared/wire/metadata.ts';
import type { Page, PageRequest, TimeRange } from '#shared/wire/paging.ts';
import type { Invoice, InvoiceChange, InvoiceItem, InvoiceLine, InvoiceRepository, Period } from './invoice.ts';
import type { CreateInvoiceItemParams, CreateInvoiceParams, PayInvoiceParams, UpdateInvoiceItemParams, UpdateInvoiceParams } from './schemas.ts';
import { serializeInvoice, serializeInvoiceItem } from './serializer.ts';
import { invoiceTotals } from './totals.ts';
import { type MeteredUsage, recountUsage } from './usage.ts';

export interface InvoiceServicePorts {
  repository: InvoiceRepository;
  customers: Pick<CustomerRepository, 'get'>;
  prices: { get(scope: Scope, id: string): Promise<Price | undefined> };
  subscriptions: { get(scope: Scope, id: string): Promise<Subscription | undefined> };
  events: EventEmitter;
  billingTime: BillingTime;
  gateway: PaymentGateway;
  /**
   * What a payment result of a subscription's invoice does to the subscription (`subscriptionPayments` in
   * shared/subscriptions/service.ts): its next version goes in the invoice's own transaction.
   */
  subscriptionPayments?: {
    after(
      scope: Scope,
      invoice: { id: string; subscription: string },
      result: PaymentResult,
      at: number,
    ): Promise<{ subscription: Subscription; events: EventInput[] } | undefined>;
  };
  /**
   * The usage metered lines bill: recounted when a draft finalizes. Without it (offline tests of invoices
   * alone) no line is recounted.
   */
  usage?: MeteredUsage;
  /** Real time: ids, and event stamps (billing times come from `billingTime`). */
  clock?: () => number;
}

/** How long a claimed charge keeps its invoice from being tried again (a worker killed mid-charge is retried after it). */
const chargeLease = 600_000;
/** A draft with `auto_advance` is finalized this long after it was made, as the reference does. */
export const autoFinalizeDelay = 3_600_000;
const day = 86_400_000;
/** The reference's cap on the lines of one invoice. */
const maxLines = 250;
/** The largest amount of one item or line (12 digits, 10^10 of a two-decimal currency's major unit). */
const maxAmount = maxLineAmount;
/** What an invoice's lines may take of its stored item, well under DynamoDB's 400 KB (lines carry metadata and a price). */
const maxLinesBytes = 300_000;

/** The amount of `quantity` under `terms` (shared/billing/pricing.ts), refused with a clear error beyond what an amount can be. */
function boundedAmount(terms: PriceTerms, quantity: number, param: string): number {
  let amount: number | undefined;
  try {
    amount = priceAmount(terms, quantity);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  if (amount === undefined || Math.abs(amount) > maxAmount)
    throw invalid(`The amount (the price's amount for the quantity) must be at most ${maxAmount} in absolute value.`, param);
  return amount;
}

/** List filters without the ones not given (a filter on an absent value would match nothing). */
const onlyGiven = (where: Record<string, unknown>) => Object.fromEntries(Object.entries(where).filter(([, value]) => value !== undefined));

/** `pricing[price]` (newer versions) and `price` (older) name the same thing; both at once is refused. */
function withPrice<P extends { price?: string; pricing?: { price?: string } }>(params: P): P {
  if (params.price !== undefined && params.pricing?.price !== undefined)
    throw new InvalidRequestError('You may only specify one of these parameters: price, pricing[price].', 'parameter_invalid', 'pricing[price]');
  return { ...params, price: params.price ?? params.pricing?.price };
}

const invalid = (message: string, param?: string, code = 'parameter_invalid') => new InvalidRequestError(message, code, param);
const wrongStatus = (invoice: Invoice, action: string) =>
  new InvalidRequestError(`You cannot ${action} an invoice whose status is ${invoice.status}.`, 'invoice_unexpected_state');

type ChargeFailure = Extract<Awaited<ReturnType<PaymentGateway['charge']>>, { status: 'failed' }>;

/** A line of the subscription lifecycle's period invoice (the seam `draftForPeriod` takes). */
export interface PeriodLineInput {
  kind: 'subscription' | 'invoiceitem';
  amount: number;
  quantity: number;
  price: Price | null;
  period: Period;
  proration: boolean;
  subscription: string | null;
  subscriptionItem: string | null;
  description: string | null;
}

const lineOfItem = (item: InvoiceItem, now: number): InvoiceLine => ({
  id: newId('il', now),
  kind: 'invoiceitem',
  invoiceItem: item.id,
  amount: item.amount,
  currency: item.currency,
  quantity: item.quantity,
  unitAmountDecimal: item.unitAmountDecimal,
  price: item.price,
  description: item.description,
  metadata: item.metadata,
  period: item.period,
  proration: item.proration,
  discountable: item.discountable,
  subscription: item.subscription,
  subscriptionItem: item.subscriptionItem,
});

/** The invoice with its lines and what follows from them (amount due of a draft, period). */
function withLines(invoice: Invoice, lines: InvoiceLine[]): Invoice {
  if (lines.length > maxLines) throw invalid(`An invoice can have at most ${maxLines} lines.`, 'invoice');
  if (Buffer.byteLength(JSON.stringify(lines)) > maxLinesBytes)
    throw invalid('The invoice is too large: its lines carry too much metadata or description.', 'invoice');
  const { total } = invoiceTotals({ ...invoice, lines });
  const periods = lines.filter((line) => line.kind === 'subscription').map((line) => line.period);
  return {
    ...invoice,
    lines,
    amountDue: invoice.status === 'draft' ? Math.max(0, total) : invoice.amountDue,
    ...(periods.length ? { periodStart: Math.min(...periods.map((p) => p.start)), periodEnd: Math.max(...periods.map((p) => p.end)) } : {}),
  };
}

/** Invoice items and invoices: drafts, finalization (numbering, balance), payments, retries, voiding. */
export function invoiceService({
  repository,
  customers,
  prices,
  subscriptions,
  events,
  billingTime,
  gateway,
  subscriptionPayments,
  usage,
  clock = systemClock,
}: InvoiceServicePorts) {
  const itemEvent = (type: string, item: InvoiceItem, before?: InvoiceItem): EventInput =>
    snapshotInput(type, serializeInvoiceItem(item), `/v1/invoiceitems/${item.id}`, before ? serializeInvoiceItem(before) : undefined);
  const invoiceEvent = (type: string, invoice: Invoice, before?: Invoice): EventInput =>
    snapshotInput(type, serializeInvoice(invoice), `/v1/invoices/${invoice.id}`, before ? serializeInvoice(before) : undefined);

  async function liveCustomer(scope: Scope, id: string, param = 'customer'): Promise<Customer> {
    const found = await customers.get(scope, id);
    if (!found) throw invalid(`No such customer: '${id}'`, param, 'resource_missing');
    return found;
  }
  async function existingItem(scope: Scope, id: string): Promise<InvoiceItem> {
    const found = await repository.items.get(scope, id);
    if (!found) throw new NotFoundError('invoiceitem', id);
    return found;
  }
  async function existingInvoice(scope: Scope, id: string): Promise<Invoice> {
    const found = await repository.invoices.get(scope, id);
    if (!found) throw new NotFoundError('invoice', id);
    return found;
  }

  /**
   * Commits a change with its events; false when a condition failed (the caller reads again). With a
   * payment `result` of a subscription's invoice, the subscription's next version and event join the same
   * transaction (its version is a condition too: a subscription written meanwhile fails it, and the caller's
   * re-read reads it again).
   */
  async function commit(
    origin: EventOrigin,
    change: InvoiceChange,
    eventInputs: EventInput[],
    payment?: { invoice: Invoice; result: PaymentResult | null; at: number },
  ): Promise<boolean> {
    const invoice = payment?.invoice;
    const effect =
      payment?.result && invoice?.subscription && subscriptionPayments
        ? await subscriptionPayments.after(origin.scope, { id: invoice.id, subscription: invoice.subscription }, payment.result, payment.at)
        : undefined;
    const outbox = events.prepare(origin, effect ? [...eventInputs, ...effect.events] : eventInputs);
    if (!(await repository.commit(effect ? { ...change, subscription: effect.subscription } : change, outbox))) return false;
    await events.dispatch(outbox);
    return true;
  }

  /** What a charge's outcome means for the invoice's subscription (automatic tries only count towards the schedule). */
  const chargeResult = (next: Invoice, automatic: boolean): PaymentResult | null => {
    if (next.status === 'paid') return { kind: 'paid' };
    if (next.collectionMethod !== 'charge_automatically') return null;
    if (automatic && next.nextPaymentAttempt === null && next.lastPaymentError?.source != null) return { kind: 'retries_exhausted', end: exhaustedRetriesEnd };
    return { kind: 'failed', first: next.billingReason === 'subscription_create' };
  };

  /** The amount of an item from its parameters: a price, inline price data, a unit amount × quantity, or an amount. */
  async function pricing(
    scope: Scope,
    params: Pick<CreateInvoiceItemParams, 'price' | 'price_data' | 'amount' | 'unit_amount_decimal' | 'quantity' | 'currency'>,
    current?: InvoiceItem,
  ): Promise<Pick<InvoiceItem, 'amount' | 'unitAmountDecimal' | 'quantity' | 'price' | 'currency'>> {
    const given = (['price', 'price_data', 'amount', 'unit_amount_decimal'] as const).filter((name) => params[name] !== undefined);
    if (given.length > 1) throw invalid(`You may only specify one of these parameters: ${given.join(', ')}.`, given[1]);
    const quantity = params.quantity ?? current?.quantity ?? 1;
    const source = given[0];
    if (source === undefined) {
      if (!current) throw invalid('Missing required param: one of amount, price, price_data or unit_amount_decimal.', 'amount', 'parameter_missing');
      if (params.currency !== undefined && params.currency !== current.currency) throw invalid('The currency of an invoice item cannot change.', 'currency');
      if (params.quantity === undefined) return current;
      // An item of a price is priced again by its price (tiers apply); a bare unit amount is unit × quantity.
      const terms = current.price ? termsOf(current.price) : perUnitTerms(current.unitAmountDecimal ?? unitAmountOf(current.amount, current.quantity || 1));
      return { ...current, quantity, amount: boundedAmount(terms, quantity, 'quantity') };
    }
    if (source === 'amount') {
      if (params.quantity !== undefined && params.quantity !== 1)
        throw invalid('quantity cannot be combined with amount; use unit_amount_decimal.', 'quantity');
      const currency = params.currency ?? current?.currency;
      if (!currency) throw invalid('Missing required param: currency.', 'currency', 'parameter_missing');
      return { amount: params.amount!, unitAmountDecimal: unitAmountOf(params.amount!, 1), quantity: 1, price: null, currency };
    }
    if (source === 'unit_amount_decimal') {
      const currency = params.currency ?? current?.currency;
      if (!currency) throw invalid('Missing required param: currency.', 'currency', 'parameter_missing');
      return {
        amount: boundedAmount(perUnitTerms(params.unit_amount_decimal!), quantity, 'unit_amount_decimal'),
        unitAmountDecimal: params.unit_amount_decimal!,
        quantity,
        price: null,
        currency,
      };
    }
    let price: Price;
    if (source === 'price') {
      const found = await prices.get(scope, params.price!);
      if (!found) throw invalid(`No such price: '${params.price}'`, 'price', 'resource_missing');
      if (found.type !== 'one_time') throw invalid(`The price ${found.id} is a recurring price; an invoice item takes a one-time price.`, 'price');
      if (!found.active) throw invalid(`The price ${found.id} is not active.`, 'price');
      price = found;
    } else {
      const data = params.price_data!;
      if ((data.unit_amount === undefined) === (data.unit_amount_decimal === undefined))
        throw invalid('price_data needs exactly one of unit_amount and unit_amount_decimal.', 'price_data[unit_amount]', 'parameter_missing');
      const decimal = data.unit_amount_decimal ?? String(data.unit_amount);
      // An inline price is kept on the item only (the reference makes an inactive price; none is listed here).
      price = {
        id: newId('price', clock()),
        scope,
        version: 1,
        created: clock(),
        product: data.product,
        active: false,
        currency: data.currency,
        unitAmount: /^\d+$/.test(decimal) ? Number(decimal) : null,
        unitAmountDecimal: decimal,
        billingScheme: 'per_unit',
        tiersMode: null,
        tiers: null,
        transformQuantity: null,
        recurring: null,
        type: 'one_time',
        nickname: null,
        lookupKey: null,
        taxBehavior: data.tax_behavior ?? 'unspecified',
        metadata: {},
        currencyOptions: {},
      };
    }
    if (params.currency !== undefined && params.currency !== price.currency) throw invalid(`The currency must be the price's (${price.currency}).`, 'currency');
    if (current && current.currency !== price.currency) throw invalid('The currency of an invoice item cannot change.', 'price');
    const terms = termsOf(price);
    return {
      amount: boundedAmount(terms, quantity, 'quantity'),
      unitAmountDecimal: shownUnitAmount(terms),
      quantity,
      price,
      currency: price.currency,
    };
  }

  /** The draft an item joins (`invoice`), checked against the item's customer and currency. */
  async function draftFor(scope: Scope, invoiceId: string, item: Pick<InvoiceItem, 'customer' | 'currency'>): Promise<Invoice> {
    const invoice = await repository.invoices.get(scope, invoiceId);
    if (!invoice) throw invalid(`No such invoice: '${invoiceId}'`, 'invoice', 'resource_missing');
    if (invoice.status !== 'draft') throw invalid(`Invoice items can only be added to draft invoices; ${invoiceId} is ${invoice.status}.`, 'invoice');
    if (invoice.customer !== item.customer) throw invalid(`The invoice ${invoiceId} belongs to another customer.`, 'invoice');
    if (invoice.currency !== item.currency) throw invalid(`The invoice ${invoiceId} is in ${invoice.currency}; the item is in ${item.currency}.`, 'currency');
    return invoice;
  }

  /** The draft an item is on, when it is on one; refuses when the item's invoice is no longer a draft. */
  async function editableInvoiceOf(item: InvoiceItem, action: string): Promise<Invoice | undefined> {
    if (item.invoice === null) return undefined;
    const invoice = await repository.invoices.get(item.scope, item.invoice);
    if (!invoice) return undefined;
    if (invoice.status !== 'draft')
      throw new InvalidRequestError(
        `The invoice item ${item.id} is on the ${invoice.status} invoice ${invoice.id}; it can no longer be ${action}.`,
        'invoice_not_editable',
      );
    return invoice;
  }

  const replaceLineOf = (invoice: Invoice, item: InvoiceItem | null, itemId: string, now: number): Invoice => {
    const lines = invoice.lines.filter((line) => line.invoiceItem !== itemId);
    const at = invoice.lines.findIndex((line) => line.invoiceItem === itemId);
    if (item) lines.splice(at === -1 ? lines.length : at, 0, { ...lineOfItem(item, now), id: invoice.lines[at]?.id ?? newId('il', now) });
    return { ...withLines(invoice, lines), version: invoice.version + 1 };
  };

  /**
   * The customer's pending items, oldest first: of no subscription, and with `subscription` also that
   * subscription's (a subscription's invoice takes both, as the reference's next invoice of the customer does).
   */
  async function pendingItems(scope: Scope, customer: string, subscription: string | null): Promise<InvoiceItem[]> {
    const found: InvoiceItem[] = [];
    let startingAfter: string | undefined;
    for (;;) {
      const page = await repository.items.list(scope, { limit: 100, startingAfter }, { customer, pending: true });
      found.push(...page.items.filter((item) => item.subscription === null || item.subscription === subscription));
      if (!page.hasMore) return found.reverse();
      startingAfter = page.items.at(-1)!.id;
    }
  }

  function newDraft(
    origin: EventOrigin,
    customer: Customer,
    at: { now: number; testClock: string | null },
    fields: Partial<Invoice> & Pick<Invoice, 'currency' | 'collectionMethod' | 'autoAdvance' | 'billingReason'>,
  ): Invoice {
    const draft: Invoice = {
      id: newId('in', clock()),
      scope: origin.scope,
      version: 1,
      created: at.now,
      customer: customer.id,
      status: 'draft',
      number: null,
      daysUntilDue: null,
      dueDate: null,
      description: null,
      metadata: {},
      subscription: null,
      lines: [],
      periodStart: at.now,
      periodEnd: at.now,
      startingBalance: 0,
      endingBalance: null,
      amountDue: 0,
      amountPaid: 0,
      paidOutOfBand: false,
      attemptCount: 0,
      attempted: false,
      nextPaymentAttempt: null,
      lastPaymentError: null,
      paidWith: null,
      statusTransitions: { finalizedAt: null, paidAt: null, voidedAt: null, markedUncollectibleAt: null },
      effectiveAt: null,
      webhooksDeliveredAt: null,
      testClock: at.testClock,
      due: { at: null, testClock: at.testClock },
      eventOrigin: { platformId: origin.platformId, apiVersion: origin.apiVersion },
      ...fields,
    };
    return { ...draft, due: { at: draft.autoAdvance ? draft.created + autoFinalizeDelay : null, testClock: at.testClock } };
  }

  /**
   * Finalization (pure): the number from the customer's sequence, the customer's balance applied, the due
   * date of a `send_invoice` invoice, and a zero amount paid at once, as the reference does. The customer
   * comes back with its next sequence and ending balance, to be written in the same transaction.
   */
  function finalized(invoice: Invoice, customer: Customer, now: number): { invoice: Invoice; customer: Customer } {
    const { total } = invoiceTotals(invoice);
    // An amount due under the currency's minimum is carried to the balance: the invoice is paid at zero.
    const { amountDue, endingBalance } = amountDueAfterBalance(total, customer.balance, invoice.currency);
    const dueDate = invoice.collectionMethod === 'send_invoice' ? (invoice.dueDate ?? now + (invoice.daysUntilDue ?? 30) * day) : null;
    const open: Invoice = {
      ...invoice,
      status: amountDue === 0 ? 'paid' : 'open',
      number: `${customer.invoicePrefix}-${String(customer.nextInvoiceSequence).padStart(4, '0')}`,
      startingBalance: customer.balance,
      endingBalance,
      amountDue,
      dueDate,
      effectiveAt: invoice.effectiveAt ?? now,
      statusTransitions: { ...invoice.statusTransitions, finalizedAt: now, paidAt: amountDue === 0 ? now : null },
      // A charge_automatically invoice is tried at once by the finalizer, which this write claims for a lease: a
      // finalizer killed before the charge's outcome leaves it due when the lease ends, so the try is not lost.
      due: {
        at: amountDue > 0 && invoice.collectionMethod === 'charge_automatically' && invoice.autoAdvance ? now + chargeLease : null,
        testClock: invoice.testClock,
      },
    };
    return {
      invoice: open,
      customer: { ...customer, balance: endingBalance, nextInvoiceSequence: customer.nextInvoiceSequence + 1, version: customer.version + 1 },
    };
  }

  /** The invoice after a charge attempt's outcome at `now` (pure). */
  function charged(invoice: Invoice, outcome: Awaited<ReturnType<PaymentGateway['charge']>>, now: number, automatic: boolean): Invoice {
    const attempted = { ...invoice, attempted: true, attemptCount: invoice.attemptCount + 1 };
    if (outcome.status === 'succeeded') {
      return {
        ...attempted,
        status: 'paid',
        amountPaid: invoice.amountDue,
        paidWith: outcome.source,
        lastPaymentError: null,
        nextPaymentAttempt: null,
        statusTransitions: { ...invoice.statusTransitions, paidAt: now },
        due: { at: null, testClock: invoice.testClock },
      };
    }
    // Retries follow the schedule from the automatic tries only; a manual pay's failure keeps the schedule where it was.
    const next = automatic ? (outcome.source === null ? null : nextPaymentAttempt(attempted.attemptCount, now)) : invoice.nextPaymentAttempt;
    return {
      ...attempted,
      lastPaymentError: { code: outcome.code, declineCode: outcome.declineCode, message: outcome.message, source: outcome.source },
      nextPaymentAttempt: next,
      due: { at: next, testClock: invoice.testClock },
    };
  }

  /** An open invoice voided at `now` (pure): the balance it took from the customer's credit goes back to the customer. */
  function voided(current: Invoice, customer: Customer, now: number): { change: InvoiceChange; events: EventInput[] } {
    const next: Invoice = {
      ...current,
      status: 'void',
      nextPaymentAttempt: null,
      statusTransitions: { ...current.statusTransitions, voidedAt: now },
      due: { at: null, testClock: current.testClock },
      version: current.version + 1,
    };
    const returned = current.endingBalance === null ? 0 : current.startingBalance - current.endingBalance;
    const change: InvoiceChange =
      returned === 0 ? { invoice: next } : { invoice: next, customer: { ...customer, balance: customer.balance + returned, version: customer.version + 1 } };
    return { change, events: [invoiceEvent('invoice.voided', next, current)] };
  }

  const paymentEvents = (next: Invoice, before: Invoice): EventInput[] =>
    next.status === 'paid'
      ? [invoiceEvent('invoice.paid', next, before), invoiceEvent('invoice.payment_succeeded', next, before)]
      : [invoiceEvent('invoice.payment_failed', next, before)];

  /**
   * Finalizes a draft at `now` and, when charged automatically and something is due, tries the payment:
   * finalization (numbering, balance) is one transaction with the customer; the payment's outcome a second.
   * The charge can only be tried once per finalization: it runs after the finalization committed.
   */
  async function finalizeAt(origin: EventOrigin, id: string, now: (invoice: Invoice) => Promise<number>, autoAdvance?: boolean): Promise<Invoice> {
    const open = await withOptimisticRetries(async () => {
      const current = await existingInvoice(origin.scope, id);
      if (current.status !== 'draft')
        throw new InvalidRequestError(`This invoice is already finalized; its status is ${current.status}.`, 'invoice_not_editable');
      const at = await now(current);
      const customer = await liveCustomer(origin.scope, current.customer);
      // Metered lines bill the usage counted by now (late usage and cancellations of the draft's hour included).
      const recounted = usage ? withLines(current, await recountUsage(usage, current)) : current;
      const base = { ...recounted, autoAdvance: autoAdvance ?? current.autoAdvance, version: current.version + 1 };
      const { invoice, customer: numbered } = finalized(base, customer, at);
      const eventInputs = [invoiceEvent('invoice.finalized', invoice, current)];
      if (invoice.status === 'paid')
        eventInputs.push(invoiceEvent('invoice.paid', invoice, current), invoiceEvent('invoice.payment_succeeded', invoice, current));
      const result: PaymentResult | null = invoice.status === 'paid' ? { kind: 'paid' } : null;
      return (await commit(origin, { invoice, customer: numbered }, eventInputs, { invoice, result, at })) ? invoice : undefined;
    });
    if (open.status !== 'open' || open.collectionMethod !== 'charge_automatically' || !open.autoAdvance) return open;
    // The finalization's versioned write is the claim: only the request or processor that finalized charges.
    return attemptPayment(origin, open, open.statusTransitions.finalizedAt!, true, true);
  }

  /** One charge of an open invoice; written on the version it was tried on (a racing writer wins, and the charge's outcome is not applied twice). */
  async function attemptPayment(origin: EventOrigin, found: Invoice, at: number, automatic: boolean, claimed = false): Promise<Invoice> {
    // The try is claimed first (a versioned write moving `due` past a lease), so two sweepers or two requests never
    // charge one invoice twice; a worker killed after its claim leaves the invoice due again when the lease ends.
    const invoice = claimed ? found : { ...found, version: found.version + 1, due: { at: at + chargeLease, testClock: found.testClock } };
    if (!claimed && !(await repository.commit({ invoice }))) return existingInvoice(origin.scope, found.id);
    const outcome = await gateway.charge(
      origin.scope,
      { customer: invoice.customer, amount: invoice.amountDue - invoice.amountPaid, currency: invoice.currency, invoice: invoice.id },
      at,
    );
    const next = { ...charged(invoice, outcome, at, automatic), version: invoice.version + 1 };
    // The outcome is written on the claimed version; a subscription written meanwhile only asks for its fresh read.
    for (let round = 0; round < 5; round++) {
      if (await commit(origin, { invoice: next }, paymentEvents(next, found), { invoice: next, result: chargeResult(next, automatic), at })) return next;
      const stored = await existingInvoice(origin.scope, invoice.id);
      if (stored.version !== invoice.version) return stored;
    }
    return existingInvoice(origin.scope, invoice.id);
  }

  /** A change of one invoice with its events, on the version read (retried on a fresh read). */
  const changeInvoice = (
    origin: EventOrigin,
    id: string,
    apply: (current: Invoice) => Promise<Invoice> | Invoice,
    eventsOf: (next: Invoice, current: Invoice) => EventInput[],
    result: PaymentResult | null = null,
  ) =>
    withOptimisticRetries(async () => {
      const current = await existingInvoice(origin.scope, id);
      const next = { ...(await apply(current)), version: current.version + 1 };
      const at = next.statusTransitions.paidAt ?? clock();
      return (await commit(origin, { invoice: next }, eventsOf(next, current), { invoice: next, result, at })) ? next : undefined;
    });

  const timeOf = async (scope: Scope, customer: string) => (await billingTime.forCustomer(scope, customer)).now;

  return {
    async createItem(origin: EventOrigin, params: CreateInvoiceItemParams): Promise<InvoiceItem> {
      const { scope } = origin;
      if (params.customer === undefined) throw invalid('Missing required param: customer.', 'customer', 'parameter_missing');
      const customer = await liveCustomer(scope, params.customer);
      const at = await billingTime.forCustomer(scope, customer.id);
      const priced = await pricing(scope, withPrice(params));
      if (params.subscription !== undefined) {
        const subscription = await subscriptions.get(scope, params.subscription);
        if (!subscription || subscription.customer !== customer.id)
          throw invalid(`No such subscription: '${params.subscription}'`, 'subscription', 'resource_missing');
      }
      const period = params.period ? { start: params.period.start * 1000, end: params.period.end * 1000 } : { start: at.now, end: at.now };
      if (period.end < period.start) throw invalid('period[end] must not be before period[start].', 'period[end]');
      const item: InvoiceItem = {
        id: newId('ii', clock()),
        scope,
        version: 1,
        created: at.now,
        customer: customer.id,
        ...priced,
        description: params.description ?? null,
        metadata: params.metadata ? mergeMetadata({}, params.metadata) : {},
        period,
        invoice: params.invoice ?? null,
        pending: params.invoice === undefined,
        subscription: params.subscription ?? null,
        subscriptionItem: null,
        proration: false,
        discountable: params.discountable ?? true,
        testClock: at.testClock,
      };
      return withOptimisticRetries(async () => {
        const invoice = params.invoice === undefined ? undefined : await draftFor(scope, params.invoice, item);
        const change: InvoiceChange = {
          newItems: [item],
          ...(invoice ? { invoice: replaceLineOf(invoice, item, item.id, clock()) } : { customerRead: customer }),
        };
        const eventInputs = [itemEvent('invoiceitem.created', item)];
        if (change.invoice) eventInputs.push(invoiceEvent('invoice.updated', change.invoice, invoice));
        if (await commit(origin, change, eventInputs)) return item;
        // The customer changed since it was read (or the invoice): read the customer again and retry.
        Object.assign(customer, await liveCustomer(scope, customer.id));
        return undefined;
      });
    },

    retrieveItem: existingItem,

    listItems(
      scope: Scope,
      page: PageRequest,
      filters: { customer?: string; invoice?: string; pending?: boolean; created?: TimeRange },
    ): Promise<Page<InvoiceItem>> {
      return repository.items.list(scope, page, onlyGiven({ customer: filters.customer, invoice: filters.invoice, pending: filters.pending }), filters.created);
    },

    updateItem(origin: EventOrigin, id: string, params: UpdateInvoiceItemParams): Promise<InvoiceItem> {
      return withOptimisticRetries(async () => {
        const current = await existingItem(origin.scope, id);
        // Refused while the customer's test clock advances (as every change of its objects).
        await timeOf(origin.scope, current.customer);
        const invoice = await editableInvoiceOf(current, 'updated');
        const priced = await pricing(origin.scope, withPrice(params), current);
        const period = params.period ? { start: params.period.start * 1000, end: params.period.end * 1000 } : current.period;
        if (period.end < period.start) throw invalid('period[end] must not be before period[start].', 'period[end]');
        const next: InvoiceItem = {
          ...current,
          ...priced,
          period,
          description: params.description === undefined ? current.description : params.description || null,
          metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
          discountable: params.discountable ?? current.discountable,
          version: current.version + 1,
        };
        const nextInvoice = invoice ? replaceLineOf(invoice, next, id, clock()) : undefined;
        const eventInputs = [itemEvent('invoiceitem.updated', next, current)];
        if (nextInvoice) eventInputs.push(invoiceEvent('invoice.updated', nextInvoice, invoice));
        return (await commit(origin, { items: [next], ...(nextInvoice ? { invoice: nextInvoice } : {}) }, eventInputs)) ? next : undefined;
      });
    },

    deleteItem(origin: EventOrigin, id: string): Promise<InvoiceItem> {
      return withOptimisticRetries(async () => {
        const current = await existingItem(origin.scope, id);
        await timeOf(origin.scope, current.customer);
        const invoice = await editableInvoiceOf(current, 'deleted');
        const nextInvoice = invoice ? replaceLineOf(invoice, null, id, clock()) : undefined;
        const eventInputs = [itemEvent('invoiceitem.deleted', current)];
        if (nextInvoice) eventInputs.push(invoiceEvent('invoice.updated', nextInvoice, invoice));
        return (await commit(origin, { deletedItems: [current], ...(nextInvoice ? { invoice: nextInvoice } : {}) }, eventInputs)) ? current : undefined;
      });
    },

    /** A draft; with `pending_invoice_items_behavior=include` the customer's pending items (of no subscription) join it in the same write. */
    async create(origin: EventOrigin, params: CreateInvoiceParams): Promise<Invoice> {
      const { scope } = origin;
      if (params.customer === undefined) throw invalid('Missing required param: customer.', 'customer', 'parameter_missing');
      const collectionMethod = params.collection_method ?? 'charge_automatically';
      if (collectionMethod === 'charge_automatically' && (params.days_until_due !== undefined || params.due_date !== undefined))
        throw invalid(
          'days_until_due and due_date apply only when collection_method is send_invoice.',
          params.days_until_due !== undefined ? 'days_until_due' : 'due_date',
        );
      if (params.days_until_due !== undefined && params.due_date !== undefined)
        throw invalid('You may only specify one of these parameters: days_until_due, due_date.', 'due_date');
      if (params.subscription !== undefined)
        throw invalid('Invoices for a subscription are made by the subscription; a manual invoice takes no subscription.', 'subscription');
      return withOptimisticRetries(async () => {
        const customer = await liveCustomer(scope, params.customer!);
        const at = await billingTime.forCustomer(scope, customer.id);
        if (params.due_date !== undefined && params.due_date * 1000 < at.now) throw invalid('due_date must be in the future.', 'due_date');
        const include = (params.pending_invoice_items_behavior ?? 'exclude') === 'include';
        const pending = include ? await pendingItems(scope, customer.id, null) : [];
        const currency = params.currency ?? pending[0]?.currency ?? 'usd';
        const joining = pending.filter((item) => item.currency === currency);
        let draft = newDraft(origin, customer, at, {
          currency,
          collectionMethod,
          autoAdvance: params.auto_advance ?? true,
          billingReason: 'manual',
          daysUntilDue: collectionMethod === 'send_invoice' && params.due_date === undefined ? (params.days_until_due ?? 30) : null,
          dueDate: params.due_date === undefined ? null : params.due_date * 1000,
          description: params.description ?? null,
          metadata: params.metadata ? mergeMetadata({}, params.metadata) : {},
        });
        const items = joining.map((item) => ({ ...item, invoice: draft.id, pending: false, version: item.version + 1 }));
        draft = withLines(
          draft,
          items.map((item) => lineOfItem(item, clock())),
        );
        const eventInputs = [invoiceEvent('invoice.created', draft), ...items.map((item, i) => itemEvent('invoiceitem.updated', item, joining[i]))];
        return (await commit(origin, { newInvoice: draft, items, customerRead: customer }, eventInputs)) ? draft : undefined;
      });
    },

    retrieve: existingInvoice,

    /** One page of an invoice's lines, in their order; cursors are line ids of this invoice. */
    async lines(scope: Scope, id: string, page: PageRequest): Promise<{ invoice: Invoice; page: Page<InvoiceLine> }> {
      const invoice = await existingInvoice(scope, id);
      const cursor = page.startingAfter ?? page.endingBefore;
      const at = cursor === undefined ? -1 : invoice.lines.findIndex((line) => line.id === cursor);
      if (cursor !== undefined && at === -1)
        throw invalid(
          `No such line item on this invoice: '${cursor}'`,
          page.startingAfter !== undefined ? 'starting_after' : 'ending_before',
          'resource_missing',
        );
      if (page.endingBefore !== undefined) {
        const from = Math.max(0, at - page.limit);
        return { invoice, page: { items: invoice.lines.slice(from, at), hasMore: from > 0 } };
      }
      const items = invoice.lines.slice(at + 1, at + 1 + page.limit);
      return { invoice, page: { items, hasMore: at + 1 + page.limit < invoice.lines.length } };
    },

    list(
      scope: Scope,
      page: PageRequest,
      filters: { customer?: string; status?: string; subscription?: string; collection_method?: string; created?: TimeRange; due_date?: number },
    ): Promise<Page<Invoice>> {
      return repository.invoices.list(
        scope,
        page,
        onlyGiven({
          customer: filters.customer,
          status: filters.status,
          subscription: filters.subscription,
          collectionMethod: filters.collection_method,
          dueDate: filters.due_date,
        }),
        filters.created,
      );
    },

    /** Drafts take every field; open invoices only metadata, description and auto_advance (the reference's rule). */
    update(origin: EventOrigin, id: string, params: UpdateInvoiceParams): Promise<Invoice> {
      return changeInvoice(
        origin,
        id,
        async (current) => {
          await timeOf(origin.scope, current.customer);
          const draftOnly = (['collection_method', 'days_until_due', 'due_date'] as const).find((name) => params[name] !== undefined);
          if (current.status !== 'draft') {
            if (current.status !== 'open' || draftOnly) {
              if (current.status !== 'open') throw wrongStatus(current, 'update');
              throw new InvalidRequestError(`${draftOnly} can only be changed while the invoice is a draft.`, 'invoice_not_editable', draftOnly);
            }
          }
          const collectionMethod = params.collection_method ?? current.collectionMethod;
          const dueDate = params.due_date === undefined ? (params.days_until_due !== undefined ? null : current.dueDate) : params.due_date * 1000;
          const daysUntilDue =
            collectionMethod === 'send_invoice'
              ? (params.days_until_due ?? (params.due_date !== undefined ? null : (current.daysUntilDue ?? (dueDate === null ? 30 : null))))
              : null;
          if (collectionMethod === 'charge_automatically' && (params.days_until_due !== undefined || params.due_date !== undefined))
            throw invalid('days_until_due and due_date apply only when collection_method is send_invoice.', 'days_until_due');
          const autoAdvance = params.auto_advance ?? current.autoAdvance;
          return {
            ...current,
            collectionMethod,
            daysUntilDue,
            dueDate: collectionMethod === 'send_invoice' ? dueDate : null,
            autoAdvance,
            description: params.description === undefined ? current.description : params.description || null,
            metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
            due:
              current.status === 'draft'
                ? { at: autoAdvance ? current.created + autoFinalizeDelay : null, testClock: current.testClock }
                : { at: autoAdvance ? current.nextPaymentAttempt : null, testClock: current.testClock },
          };
        },
        (next, current) => [invoiceEvent('invoice.updated', next, current)],
      );
    },

    /** Drafts only; their items go back to pending in the same write. */
    delete(origin: EventOrigin, id: string): Promise<Invoice> {
      return withOptimisticRetries(async () => {
        const current = await existingInvoice(origin.scope, id);
        if (current.status !== 'draft')
          throw new InvalidRequestError(`You can only delete draft invoices; this one is ${current.status}.`, 'invoice_not_editable');
        await timeOf(origin.scope, current.customer);
        const itemIds = current.lines.flatMap((line) => (line.invoiceItem ? [line.invoiceItem] : []));
        const found = await Promise.all(itemIds.map((itemId) => repository.items.get(origin.scope, itemId)));
        const items = found.flatMap((item) => (item ? [{ ...item, invoice: null, pending: true, version: item.version + 1 }] : []));
        return (await commit(origin, { deletedInvoice: current, items }, [invoiceEvent('invoice.deleted', current)])) ? current : undefined;
      });
    },

    finalize(origin: EventOrigin, id: string, params: { auto_advance?: boolean }): Promise<Invoice> {
      return finalizeAt(origin, id, (invoice) => timeOf(origin.scope, invoice.customer), params.auto_advance);
    },

    /** Pays an open invoice now: by charging the customer's default source, or recorded as paid outside (`paid_out_of_band`). */
    async pay(origin: EventOrigin, id: string, params: PayInvoiceParams): Promise<Invoice> {
      let invoice = await existingInvoice(origin.scope, id);
      if (invoice.status === 'draft') {
        invoice = await finalizeAt(origin, id, (found) => timeOf(origin.scope, found.customer), false);
        // Nothing was due: finalization paid it.
        if (invoice.status === 'paid') return invoice;
      }
      if (invoice.status === 'paid') throw new InvalidRequestError('Invoice is already paid.', 'invoice_already_paid');
      if (invoice.status === 'void') throw wrongStatus(invoice, 'pay');
      const now = await timeOf(origin.scope, invoice.customer);
      if (params.paid_out_of_band) {
        return changeInvoice(
          origin,
          id,
          (current) => {
            if (current.status !== 'open' && current.status !== 'uncollectible') throw wrongStatus(current, 'pay');
            return {
              ...current,
              status: 'paid',
              paidOutOfBand: true,
              amountPaid: current.amountDue,
              nextPaymentAttempt: null,
              statusTransitions: { ...current.statusTransitions, paidAt: now },
              due: { at: null, testClock: current.testClock },
            };
          },
          (next, current) => [invoiceEvent('invoice.paid', next, current), invoiceEvent('invoice.payment_succeeded', next, current)],
          { kind: 'paid' },
        );
      }
      const next = await attemptPayment(origin, invoice, now, false);
      // A failed charge answers as the reference's card errors do (402); the invoice keeps the error.
      if (next.status !== 'paid' && next.lastPaymentError && next.attemptCount === invoice.attemptCount + 1) {
        const error = next.lastPaymentError;
        if (error.source === null) throw new InvalidRequestError(error.message, error.code);
        throw new CardError(error.message, error.code, undefined, error.declineCode ?? undefined);
      }
      return next;
    },

    /** Marks an open `send_invoice` invoice sent (`invoice.sent`); email is not sent by this service. */
    send(origin: EventOrigin, id: string): Promise<Invoice> {
      return changeInvoice(
        origin,
        id,
        async (current) => {
          await timeOf(origin.scope, current.customer);
          if (current.collectionMethod !== 'send_invoice')
            throw new InvalidRequestError("You can only manually send an invoice if its collection method is 'send_invoice'.", 'invoice_unexpected_state');
          if (current.status !== 'open' && current.status !== 'paid' && current.status !== 'uncollectible') throw wrongStatus(current, 'send');
          return current;
        },
        (next, current) => [invoiceEvent('invoice.sent', next, current)],
      );
    },

    voidInvoice(origin: EventOrigin, id: string): Promise<Invoice> {
      return withOptimisticRetries(async () => {
        const current = await existingInvoice(origin.scope, id);
        if (current.status !== 'open' && current.status !== 'uncollectible') throw wrongStatus(current, 'void');
        const now = await timeOf(origin.scope, current.customer);
        const { change, events: eventInputs } = voided(current, await liveCustomer(origin.scope, current.customer), now);
        return (await commit(origin, change, eventInputs, { invoice: change.invoice!, result: { kind: 'settled' }, at: now })) ? change.invoice : undefined;
      });
    },

    /**
     * The void of an open (or uncollectible) invoice at `now` as a change for the caller's own transaction
     * (an expiring subscription's first invoice, written with the subscription), or undefined when it is no
     * longer open. Nothing is written here.
     */
    async voidChange(scope: Scope, id: string, now: number): Promise<{ change: InvoiceChange; events: EventInput[] } | undefined> {
      const current = await repository.invoices.get(scope, id);
      if (!current || (current.status !== 'open' && current.status !== 'uncollectible')) return undefined;
      const customer = await customers.get(scope, current.customer);
      return customer && voided(current, customer, now);
    },

    markUncollectible(origin: EventOrigin, id: string): Promise<Invoice> {
      return withOptimisticRetries(async () => {
        const current = await existingInvoice(origin.scope, id);
        if (current.status !== 'open') throw wrongStatus(current, 'mark uncollectible');
        const now = await timeOf(origin.scope, current.customer);
        const next: Invoice = {
          ...current,
          status: 'uncollectible',
          nextPaymentAttempt: null,
          statusTransitions: { ...current.statusTransitions, markedUncollectibleAt: now },
          due: { at: null, testClock: current.testClock },
          version: current.version + 1,
        };
        const settled = { invoice: next, result: { kind: 'settled' } as const, at: now };
        return (await commit(origin, { invoice: next }, [invoiceEvent('invoice.marked_uncollectible', next, current)], settled)) ? next : undefined;
      });
    },

    /**
     * The invoice a customer's pending items (of no subscription) would make now, never stored. The
     * subscription form (`subscription`, `subscription_details`) is the subscription lifecycle's: it passes
     * its period lines as `lines`, and a previewed change's prorations (invoice items it would make, never
     * written) as `prorations`, shown as the pending items they would be, with `prorationDate`.
     */
    async preview(
      scope: Scope,
      params: {
        customer?: string;
        currency?: string;
        subscription?: string;
        at?: { now: number; testClock: string | null };
        prorationDate?: number;
      },
      lines: PeriodLineInput[] = [],
      prorations: readonly InvoiceItem[] = [],
    ): Promise<Invoice> {
      if (params.customer === undefined) throw invalid('Missing required param: customer.', 'customer', 'parameter_missing');
      const customer = await liveCustomer(scope, params.customer);
      const at = params.at ?? (await billingTime.forCustomer(scope, customer.id));
      const pending = await pendingItems(scope, customer.id, params.subscription ?? null);
      const currency = params.currency ?? pending[0]?.currency ?? 'usd';
      const draft = newDraft({ scope, platformId: scope.accountId, request: null, apiVersion: '' }, customer, at, {
        currency,
        collectionMethod: 'charge_automatically',
        autoAdvance: false,
        billingReason: params.subscription === undefined && lines.length === 0 ? 'manual' : 'upcoming',
        subscription: params.subscription ?? null,
      });
      const built = withLines({ ...draft, id: `upcoming_in_${customer.id}` }, [
        ...lines.map((line) => periodLine(line, currency, clock())),
        ...pending.filter((item) => item.currency === currency).map((item) => lineOfItem(item, clock())),
        // Not written: no invoice item stands behind the line.
        ...prorations.map((item) => ({ ...lineOfItem(item, clock()), invoiceItem: null })),
      ]);
      if (params.prorationDate !== undefined) built.subscriptionProrationDate = params.prorationDate;
      const { amountDue, endingBalance } = amountDueAfterBalance(invoiceTotals(built).total, customer.balance, currency);
      return { ...built, startingBalance: customer.balance, endingBalance, amountDue };
    },

    /**
     * The seam of the subscription lifecycle: the draft of a subscription period's invoice from its lines and
     * the customer's pending items of that subscription, as an `InvoiceChange` the renewal writes in its own
     * transaction together with the subscription's versioned replace (invoiceEntity.commit builds the
     * actions), so the period's invoice exists exactly when the renewal committed. Pure apart from reading
     * the pending items: nothing is written here.
     */
    async draftForPeriod(
      origin: EventOrigin,
      subscription: Subscription,
      customer: Customer,
      at: { now: number; testClock: string | null },
      lines: PeriodLineInput[],
      billingReason: Invoice['billingReason'],
    ): Promise<{ change: InvoiceChange; events: EventInput[] }> {
      const pending = (await pendingItems(origin.scope, customer.id, subscription.id)).filter((item) => item.currency === subscription.currency);
      let draft = newDraft(origin, customer, at, {
        currency: subscription.currency,
        collectionMethod: subscription.collectionMethod,
        daysUntilDue: subscription.daysUntilDue,
        autoAdvance: true,
        billingReason,
        subscription: subscription.id,
      });
      const items = pending.map((item) => ({ ...item, invoice: draft.id, pending: false, version: item.version + 1 }));
      draft = withLines(draft, [...lines.map((line) => periodLine(line, subscription.currency, clock())), ...items.map((item) => lineOfItem(item, clock()))]);
      return {
        change: { newInvoice: draft, items, customerRead: customer },
        events: [invoiceEvent('invoice.created', draft), ...items.map((item, i) => itemEvent('invoiceitem.updated', item, pending[i]))],
      };
    },

    /**
     * A period draft (`draftForPeriod`) settled as the subscription's step asks, still unwritten, for the
     * same transaction: `advance` leaves it to finalize about an hour later; `keep_as_draft` keeps it without
     * auto-advance; `finalize` numbers it (open, or paid when nothing is due) and leaves it uncharged;
     * `charge` also charges the customer at `now` (the first invoice of a subscription: a failure is not
     * retried on the schedule, the subscription stays `incomplete` until it is paid or expires); `void` and
     * `mark_uncollectible` finalize it and then void it (its balance left alone) or mark it uncollectible.
     */
    async settlePeriodDraft(
      origin: EventOrigin,
      drafted: { change: InvoiceChange; events: EventInput[] },
      customer: Customer,
      settlement: InvoiceSettlement,
      now: number,
    ): Promise<{ change: InvoiceChange; events: EventInput[]; invoice: Invoice; failure: ChargeFailure | null }> {
      const draft = drafted.change.newInvoice!;
      if (settlement === 'advance') return { ...drafted, invoice: draft, failure: null };
      if (settlement === 'keep_as_draft') {
        const kept: Invoice = { ...draft, autoAdvance: false, due: { at: null, testClock: draft.testClock } };
        return { change: { ...drafted.change, newInvoice: kept }, events: drafted.events, invoice: kept, failure: null };
      }
      const { invoice: open, customer: numbered } = finalized(draft, customer, now);
      // Settled here, not by the invoice's processor: no lease-claimed charge is left due.
      let invoice: Invoice = { ...open, due: { at: null, testClock: open.testClock } };
      const eventInputs = [...drafted.events, invoiceEvent('invoice.finalized', invoice)];
      let failure: ChargeFailure | null = null;
      let balanced = numbered;
      if (invoice.status === 'paid') {
        eventInputs.push(invoiceEvent('invoice.paid', invoice), invoiceEvent('invoice.payment_succeeded', invoice));
      } else if (settlement === 'charge' && invoice.collectionMethod === 'charge_automatically') {
        const outcome = await gateway.charge(
          origin.scope,
          { customer: invoice.customer, amount: invoice.amountDue, currency: invoice.currency, invoice: invoice.id },
          now,
        );
        const tried = charged(invoice, outcome, now, false);
        invoice = { ...tried, nextPaymentAttempt: null, due: { at: null, testClock: invoice.testClock } };
        if (outcome.status === 'failed') failure = outcome;
        eventInputs.push(...paymentEvents(invoice, open));
      } else if (settlement === 'void') {
        invoice = { ...invoice, status: 'void', statusTransitions: { ...invoice.statusTransitions, voidedAt: now } };
        balanced = { ...numbered, balance: customer.balance };
        eventInputs.push(invoiceEvent('invoice.voided', invoice));
      } else if (settlement === 'mark_uncollectible') {
        invoice = { ...invoice, status: 'uncollectible', statusTransitions: { ...invoice.statusTransitions, markedUncollectibleAt: now } };
        eventInputs.push(invoiceEvent('invoice.marked_uncollectible', invoice));
      }
      const { customerRead: _read, ...rest } = drafted.change;
      return { change: { ...rest, newInvoice: invoice, customer: balanced }, events: eventInputs, invoice, failure };
    },

    /** The pending proration items of a subscription (its cancellation at once without `invoice_now` or `prorate` removes them). */
    async pendingProrations(scope: Scope, subscription: Pick<Subscription, 'id' | 'customer'>): Promise<InvoiceItem[]> {
      return (await pendingItems(scope, subscription.customer, subscription.id)).filter((item) => item.proration && item.subscription === subscription.id);
    },

    /**
     * Invoices a subscription's pending items now (prorations' `always_invoice`, `cancel` with `invoice_now`):
     * a draft with `billingReason` taking every pending item of the subscription (one transaction, the
     * items on their versions, so two racing requests never invoice an item twice: the loser finds none
     * left), then finalized at the subscription's billing time (numbered, the customer's balance applied: a
     * credit that makes the total negative goes to the balance) and, collecting automatically, charged.
     * Undefined when nothing is pending.
     */
    async invoicePending(
      origin: EventOrigin,
      subscription: Subscription,
      billingReason: 'subscription_update' | 'subscription_cycle',
      lines: PeriodLineInput[] = [],
    ): Promise<Invoice | undefined> {
      let now = 0;
      let read: Subscription | undefined = subscription;
      const id = await withOptimisticRetries(async () => {
        // The subscription as just written first; after a lost race, as stored now.
        const current = read ?? (await subscriptions.get(origin.scope, subscription.id));
        read = undefined;
        if (!current) return null;
        // `lines` (a final invoice's usage) are billed once: not when a racing request's invoice came first.
        const periodLines = current.latestInvoice === subscription.latestInvoice ? lines : [];
        const customer = await liveCustomer(origin.scope, current.customer);
        const at = await billingTime.forCustomer(origin.scope, customer.id);
        now = at.now;
        const drafted = await this.draftForPeriod(origin, current, customer, at, periodLines, billingReason);
        if (!drafted.change.items?.length && !periodLines.length) return null;
        const draft = drafted.change.newInvoice!;
        // The draft is the subscription's latest invoice from the same write, so its payment's outcome moves the subscription as the reference's does.
        const change = { ...drafted.change, subscription: { ...current, latestInvoice: draft.id, version: current.version + 1 } };
        return (await commit(origin, change, drafted.events)) ? draft.id : undefined;
      });
      if (id === null) return undefined;
      return finalizeAt(origin, id, async () => now);
    },

    /**
     * The due processor of invoices: brings one invoice up to `at`: a draft with auto_advance past its hour
     * is finalized (and charged); an open charge_automatically invoice whose next try is due is charged
     * again. Every step is a versioned write, so a second run for one `at` finds nothing due.
     */
    async processDue(scope: Scope, id: string, at: number): Promise<void> {
      const current = await repository.invoices.get(scope, id);
      if (!current || current.due.at === null || current.due.at > at) return;
      const origin: EventOrigin = { scope, platformId: current.eventOrigin.platformId, apiVersion: current.eventOrigin.apiVersion, request: null };
      if (current.status === 'draft') {
        if (!current.autoAdvance) return;
        try {
          await finalizeAt(origin, id, async () => current.due.at!);
        } catch (error) {
          // Finalized by a request meanwhile: nothing left to do.
          if (!(error instanceof InvalidRequestError && error.code === 'invoice_not_editable')) throw error;
        }
        return;
      }
      if (current.status === 'open' && current.collectionMethod === 'charge_automatically' && current.autoAdvance) {
        await attemptPayment(origin, current, current.due.at, true);
      }
    },
  };
}

/** A line of a subscription's period (or a proration) from the lifecycle's input. */
function periodLine(input: PeriodLineInput, currency: string, now: number): InvoiceLine {
  return {
    id: newId('il', now),
    kind: input.kind,
    invoiceItem: null,
    amount: input.amount,
    currency,
    quantity: input.quantity,
    unitAmountDecimal: input.price ? shownUnitAmount(termsOf(input.price)) : unitAmountOf(input.amount, input.quantity || 1),
    price: input.price,
    description: input.description,
    metadata: {},
    period: input.period,
    proration: input.proration,
    discountable: true,
    subscription: input.subscription,
    subscriptionItem: input.subscriptionItem,
  };
}
