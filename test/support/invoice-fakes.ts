import type { BillingTime, ChargeOutcome, PaymentGateway } from '#shared/billing/ports.ts';
import type { Price } from '#shared/catalogue/catalogue.ts';
import type { Customer } from '#shared/customers/customer.ts';
import type { Invoice, InvoiceChange, InvoiceItem, InvoiceRepository } from '#shared/invoices/invoice.ts';
import { invoiceService } from '#shared/invoices/service.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Subscription } from '#shared/subscriptions/subscription.ts';
import { memoryOwnedStore, recordingEmitter } from './fakes.ts';

/**
 * An in-memory InvoiceRepository with the DynamoDB adapter's conditions: a change is written whole or not at
 * all (new objects absent, changed ones at the version before, the customer at its version), and `commits`
 * counts the transactions written.
 */
export function memoryInvoiceRepository(customers: ReturnType<typeof memoryOwnedStore<Customer>>) {
  const invoices = memoryOwnedStore<Invoice>();
  const items = memoryOwnedStore<InvoiceItem>();
  const key = (scope: Scope, id: string) => `${scope.accountId}|${scope.livemode}|${id}`;
  let commits = 0;
  const repository: InvoiceRepository & { invoices: typeof invoices; items: typeof items; commits: () => number } = {
    invoices,
    items,
    commits: () => commits,
    async commit(change: InvoiceChange) {
      const at = <T extends { scope: Scope; id: string; version: number }>(store: { items: Map<string, T> }, next: T, delta: number) =>
        store.items.get(key(next.scope, next.id))?.version === next.version - delta;
      const ok =
        (!change.newInvoice || !invoices.items.has(key(change.newInvoice.scope, change.newInvoice.id))) &&
        (!change.invoice || at(invoices, change.invoice, 1)) &&
        (!change.deletedInvoice || at(invoices, change.deletedInvoice, 0)) &&
        (change.newItems ?? []).every((made) => !items.items.has(key(made.scope, made.id))) &&
        (change.items ?? []).every((next) => at(items, next, 1)) &&
        (change.deletedItems ?? []).every((gone) => at(items, gone, 0)) &&
        (!change.customer || at(customers, change.customer, 1)) &&
        (!change.customerRead || at(customers, change.customerRead, 0));
      if (!ok) return false;
      const put = <T extends { scope: Scope; id: string }>(store: { items: Map<string, T> }, value: T) => store.items.set(key(value.scope, value.id), value);
      if (change.newInvoice) put(invoices, change.newInvoice);
      if (change.invoice) put(invoices, change.invoice);
      if (change.deletedInvoice) invoices.items.delete(key(change.deletedInvoice.scope, change.deletedInvoice.id));
      for (const made of [...(change.newItems ?? []), ...(change.items ?? [])]) put(items, made);
      for (const gone of change.deletedItems ?? []) items.items.delete(key(gone.scope, gone.id));
      if (change.customer) put(customers, change.customer);
      commits++;
      return true;
    },
  };
  return repository;
}

export const customerFixture = (scope: Scope, id: string, overrides: Partial<Customer> = {}): Customer =>
  ({
    id,
    scope,
    version: 1,
    created: 1,
    balance: 0,
    invoicePrefix: 'ABCD1234',
    nextInvoiceSequence: 1,
    defaultSource: null,
    sourceCount: 0,
    ...overrides,
  }) as Customer;

export const oneTimePrice = (scope: Scope, id: string, unitAmountDecimal: string, currency = 'usd'): Price => ({
  id,
  scope,
  version: 1,
  created: 1,
  product: 'prod_1',
  active: true,
  currency,
  unitAmount: /^\d+$/.test(unitAmountDecimal) ? Number(unitAmountDecimal) : null,
  unitAmountDecimal,
  billingScheme: 'per_unit',
  tiersMode: null,
  tiers: null,
  transformQuantity: null,
  recurring: null,
  type: 'one_time',
  nickname: null,
  lookupKey: null,
  taxBehavior: 'unspecified',
  metadata: {},
  currencyOptions: {},
});

/** A gateway that answers the queued outcomes in turn (then succeeds), recording every charge. */
export function scriptedGateway(...outcomes: ChargeOutcome[]) {
  const charges: Array<{ amount: number; currency: string; invoice: string; at: number }> = [];
  const gateway: PaymentGateway = {
    async charge(_scope, request, at) {
      charges.push({ amount: request.amount, currency: request.currency, invoice: request.invoice, at });
      return outcomes.shift() ?? { status: 'succeeded', source: 'card_1' };
    },
  };
  return { gateway, charges };
}

export const declined = (source: string | null = 'card_1'): ChargeOutcome => ({
  status: 'failed',
  code: 'card_declined',
  declineCode: 'generic_decline',
  message: 'Your card was declined.',
  source,
});

/** The invoice service on fakes, billing time `now` (movable), one customer `cus_1`. */
export function invoiceSetup(
  scope: Scope,
  gateway: PaymentGateway,
  customer: Partial<Customer> = {},
  subscriptionPayments?: Parameters<typeof invoiceService>[0]['subscriptionPayments'],
) {
  const customers = memoryOwnedStore<Customer>(customerFixture(scope, 'cus_1', customer));
  const repository = memoryInvoiceRepository(customers);
  const prices = memoryOwnedStore<Price>(oneTimePrice(scope, 'price_once', '1250'), oneTimePrice(scope, 'price_tenth', '0.1'));
  const subscriptions = memoryOwnedStore<Subscription>();
  const recorded = recordingEmitter();
  /** Billing time; `refusal`, when set, is what `forCustomer` throws (a test clock advancing). */
  const time: { now: number; refusal?: Error } = { now: 1_800_000_000_000 };
  const billingTime: BillingTime = {
    forCustomer: async () => {
      if (time.refusal) throw time.refusal;
      return { now: time.now, testClock: null };
    },
  };
  let real = 1_800_000_000_000;
  const service = invoiceService({
    repository,
    customers,
    prices,
    subscriptions,
    events: recorded.events,
    billingTime,
    gateway,
    subscriptionPayments,
    clock: () => real++,
  });
  const types = () => recorded.written.flatMap((outbox) => outbox.snapshotEvents.map((event) => event.type));
  return { service, repository, customers, subscriptions, time, types, written: recorded.written };
}
