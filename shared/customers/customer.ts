import type { EventOrigin, Outbox } from '#shared/events/event.ts';
import type { OwnedResource, OwnedResourceStore } from '#shared/platform/owned-resource.ts';
import type { Page, PageRequest, TimeRange } from '#shared/wire/paging.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { TokenBankAccount, TokenCard, TokenUse } from '#shared/tokens/token.ts';

export interface Address {
  city: string | null;
  country: string | null;
  line1: string | null;
  line2: string | null;
  postal_code: string | null;
  state: string | null;
}

export interface Shipping {
  address: Address;
  name: string;
  phone: string | null;
}

/** A v1 customer as the service keeps it (the fields of the API object that this service manages). */
export interface Customer {
  id: string;
  scope: Scope;
  created: number;
  name: string | null;
  email: string | null;
  description: string | null;
  phone: string | null;
  address: Address | null;
  shipping: Shipping | null;
  /** Integer minor units; negative is credit. */
  balance: number;
  invoicePrefix: string;
  nextInvoiceSequence: number;
  preferredLocales: string[];
  taxExempt: 'exempt' | 'none' | 'reverse';
  metadata: Record<string, string>;
  version: number;
  /** The id of the default payment source, one of the customer's sources. */
  defaultSource: string | null;
  /**
   * How many sources the customer has. Every source attached or removed changes it (and the customer's
   * version) in the same transaction, so a customer deleted on the version it read takes all its sources.
   */
  sourceCount: number;
  /** The test clock it lives on (test mode; set at creation, never changed), else null. */
  testClock: string | null;
}

/** What a customer's write sees of its test clock. */
export interface CustomerTestClock {
  id: string;
  version: number;
  status: 'ready' | 'advancing' | 'internal_failure';
  customers: string[];
}

/** A test clock's customer list as a customer's create or delete rewrites it, on the clock's version read. */
export interface CustomerClockChange {
  id: string;
  version: number;
  customers: string[];
}

export interface CustomerTestClocks {
  get(scope: Scope, id: string): Promise<CustomerTestClock | undefined>;
}

/**
 * What is left of a deleted customer, beside its key (outside what lists read), forever (the reference keeps deleted customers
 * retrievable and documents no end): retrieve answers the deleted form `{id, object, deleted: true}`;
 * lists and search skip it; every other operation answers 404 as for an id that never existed.
 */
export interface DeletedCustomer {
  id: string;
  scope: Scope;
  deleted: true;
  created: number;
  /** When it was deleted (epoch ms). */
  deletedAt: number;
  /** One above the customer's last version: a writer that read the customer before it was deleted fails its condition. */
  version: number;
}

export const isDeletedCustomer = (found: Customer | DeletedCustomer): found is DeletedCustomer => 'deleted' in found;

/** A customer list's filters: the exact, case-sensitive `email`, the creation window, and the test clock. */
export interface CustomerListFilters {
  email?: string;
  created?: TimeRange;
  testClock?: string;
}

/**
 * What deleting a customer does to its subscriptions, as the reference does: every one not yet canceled
 * is canceled, each with its `customer.subscription.deleted` event, before the customer is deleted.
 */
export interface CustomerSubscriptions {
  cancelAllOf(origin: EventOrigin, customerId: string): Promise<void>;
}

/**
 * A card or bank account attached to a customer, made from a single-use token: the token's card or bank
 * account (id, brand, last4, expiry, fingerprint; never a full number or CVC) with the customer's metadata.
 */
export type CustomerSource = OwnedResource & {
  customer: string;
  created: number;
  metadata: Record<string, string>;
} & ({ object: 'card'; card: TokenCard } | { object: 'bank_account'; bankAccount: TokenBankAccount; status: BankAccountStatus });

/** A bank account source is `new` until its micro-deposit amounts are confirmed (`verified`). */
export type BankAccountStatus = 'new' | 'verified';

/**
 * One change of a customer's sources, written in one transaction with its outbox: the customer (new, or
 * replacing the version before it), the token used up (if a source is made from one), the source attached,
 * the sources removed.
 */
export interface CustomerSourceChange {
  customer: Customer;
  isNew?: boolean;
  /** The token the change uses up, in its transaction. */
  token?: TokenUse;
  attach?: CustomerSource;
  detach?: CustomerSource[];
  /** The customer's test clock, with the customer added (a new customer on a clock). */
  clock?: CustomerClockChange;
}

/** How a source change ended: written; a condition failed on the customer (read again); the token is missing or used. */
export type SourceChangeOutcome = 'written' | 'conflict' | 'token_missing' | 'token_used';

/** `get` finds live customers only (a deleted one reads as absent); `find` tells the deleted from the never-existing. */
export interface CustomerRepository extends Omit<OwnedResourceStore<Customer>, 'list' | 'delete'> {
  find(scope: Scope, id: string): Promise<Customer | DeletedCustomer | undefined>;
  /** Live customers, newest first; `email` reads the email index, not the whole list. */
  list(scope: Scope, page: PageRequest, filters?: CustomerListFilters): Promise<Page<Customer>>;
  getSource(scope: Scope, customerId: string, sourceId: string): Promise<CustomerSource | undefined>;
  /** Newest first; `where` as `OwnedResourceStore.list` (e.g. `{ object: 'card' }`). */
  listSources(scope: Scope, customerId: string, page: PageRequest, where?: Record<string, unknown>): Promise<Page<CustomerSource>>;
  /** At `now`, for the token's expiry. */
  changeSources(change: CustomerSourceChange, outbox: Outbox, now: number): Promise<SourceChangeOutcome>;
  /** Writes `next` if the stored source is still at `next.version - 1`. */
  replaceSource(next: CustomerSource, outbox: Outbox): Promise<boolean>;
  /**
   * Deletes the customer, if still at the version read, and these (all its) sources, leaving its tombstone;
   * with `clock`, takes it off its test clock (on the clock's version read).
   */
  deleteWithSources(customer: Customer, sources: CustomerSource[], outbox: Outbox, now: number, clock?: CustomerClockChange): Promise<boolean>;
}
