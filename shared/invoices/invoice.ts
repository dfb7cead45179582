import type { BillingDue } from '#shared/billing/ports.ts';
import type { Price } from '#shared/catalogue/catalogue.ts';
import type { Customer } from '#shared/customers/customer.ts';
import type { Outbox } from '#shared/events/event.ts';
import type { OwnedResource, OwnedResourceStore } from '#shared/platform/owned-resource.ts';
import type { Subscription } from '#shared/subscriptions/subscription.ts';

export interface Period {
  start: number;
  end: number;
}

/** An invoice item: a one-off amount for a customer, pending (no `invoice`) until an invoice takes it. */
export interface InvoiceItem extends OwnedResource {
  created: number;
  customer: string;
  currency: string;
  /** Integer amount (its price's amount for the quantity, or quantity × unit amount; shared/billing/pricing.ts). */
  amount: number;
  /** Null when the amount is not unit × quantity (a tiered or transformed price). */
  unitAmountDecimal: string | null;
  quantity: number;
  /** The price the amount came from (as it was then), null for a bare `amount`. */
  price: Price | null;
  description: string | null;
  metadata: Record<string, string>;
  period: Period;
  invoice: string | null;
  /** True while no invoice has taken it (`invoice` null): what the `pending` list filter reads. */
  pending: boolean;
  subscription: string | null;
  subscriptionItem: string | null;
  proration: boolean;
  discountable: boolean;
  testClock: string | null;
}

/** A line of an invoice, stored inside it (`il_…`): from an invoice item or a subscription's period. */
export interface InvoiceLine {
  id: string;
  kind: 'invoiceitem' | 'subscription';
  invoiceItem: string | null;
  amount: number;
  currency: string;
  quantity: number;
  /** Null when the amount is not unit × quantity (a tiered or transformed price). */
  unitAmountDecimal: string | null;
  price: Price | null;
  description: string | null;
  metadata: Record<string, string>;
  period: Period;
  proration: boolean;
  discountable: boolean;
  subscription: string | null;
  subscriptionItem: string | null;
}

export type InvoiceStatus = 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';
export type CollectionMethod = 'charge_automatically' | 'send_invoice';

export interface PaymentError {
  code: string;
  declineCode: string | null;
  message: string;
  source: string | null;
}

export interface Invoice extends OwnedResource {
  created: number;
  customer: string;
  currency: string;
  status: InvoiceStatus;
  /** `<invoicePrefix>-<sequence>`, given at finalization. */
  number: string | null;
  autoAdvance: boolean;
  collectionMethod: CollectionMethod;
  daysUntilDue: number | null;
  dueDate: number | null;
  description: string | null;
  metadata: Record<string, string>;
  subscription: string | null;
  /** Only on a preview of a subscription change that prorates: the time its prorations were computed at (never stored). */
  subscriptionProrationDate?: number;
  billingReason: 'manual' | 'subscription_create' | 'subscription_cycle' | 'subscription_threshold' | 'subscription_update' | 'upcoming';
  lines: InvoiceLine[];
  periodStart: number;
  periodEnd: number;
  /** The customer's balance applied at finalization (0 before). */
  startingBalance: number;
  /** What is left of the customer's balance after this invoice (null before finalization). */
  endingBalance: number | null;
  /** Fixed at finalization (`total` plus the balance applied); the draft's own shows what it would be without balance. */
  amountDue: number;
  amountPaid: number;
  paidOutOfBand: boolean;
  attemptCount: number;
  attempted: boolean;
  nextPaymentAttempt: number | null;
  lastPaymentError: PaymentError | null;
  /** The source a successful charge used. */
  paidWith: string | null;
  statusTransitions: { finalizedAt: number | null; paidAt: number | null; voidedAt: number | null; markedUncollectibleAt: number | null };
  /** When the invoice became effective (finalization). */
  effectiveAt: number | null;
  webhooksDeliveredAt: number | null;
  testClock: string | null;
  due: BillingDue;
  /** Where the events of its automatic steps (finalization, retries) go: the origin of the request that made it. */
  eventOrigin: { platformId: string; apiVersion: string };
}

/**
 * One change of invoices, their items and their customer, written in one transaction with its outbox
 * (every write conditional on what was read: new objects on their absence, others on their version), plus
 * `extra` actions of a caller that writes its own object with it (a subscription's versioned replace).
 */
export interface InvoiceChange {
  newInvoice?: Invoice;
  invoice?: Invoice;
  deletedInvoice?: Invoice;
  newItems?: InvoiceItem[];
  items?: InvoiceItem[];
  deletedItems?: InvoiceItem[];
  /** The customer written with the change (numbering, balance): replaced on the version before. */
  customer?: Customer;
  /** The customer the change relies on without writing it: a version check (still there, unchanged). */
  customerRead?: Customer;
  /** The invoice's subscription as a payment result left it: replaced on the version before. */
  subscription?: Subscription;
}

export interface InvoiceRepository {
  invoices: Pick<OwnedResourceStore<Invoice>, 'get' | 'list'>;
  items: Pick<OwnedResourceStore<InvoiceItem>, 'get' | 'list'>;
  /** Writes the change with its outbox; false when a condition failed (someone wrote first: read again). */
  commit(change: InvoiceChange, outbox?: Outbox): Promise<boolean>;
}
