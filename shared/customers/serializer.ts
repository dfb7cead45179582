import { unixSeconds } from '#shared/http/timestamps.ts';
import { serializeBankAccount, serializeCard } from '#shared/tokens/serializer.ts';
import type { Customer, CustomerSource } from './customer.ts';

/** A customer's card or bank account: the token's card or bank account, with its customer and metadata. */
export function serializeSource(source: CustomerSource) {
  const attached = { customer: source.customer, metadata: source.metadata };
  return source.object === 'card' ? serializeCard(source.card, attached) : serializeBankAccount(source.bankAccount, { ...attached, status: source.status });
}

/** What a removed source answers: the reference's deleted card or bank account. */
export const serializeDeletedSource = (source: CustomerSource) => ({ id: source.id, object: source.object, deleted: true as const });

/** What a customer response carries when expanded: its default source as an object, its `sources` list. */
export interface CustomerExpansions {
  defaultSource?: ReturnType<typeof serializeSource>;
  sources?: { object: 'list'; data: Array<ReturnType<typeof serializeSource>>; has_more: boolean; url: string };
}

/**
 * The v1 customer object; fields this service does not manage are shown with their empty values.
 * `sources` appears only when expanded, as in current reference versions.
 */
export function serializeCustomer(customer: Customer, expanded: CustomerExpansions = {}) {
  return {
    id: customer.id,
    object: 'customer' as const,
    address: customer.address,
    balance: customer.balance,
    created: unixSeconds(customer.created),
    currency: null,
    default_source: expanded.defaultSource ?? customer.defaultSource,
    delinquent: false,
    description: customer.description,
    discount: null,
    email: customer.email,
    invoice_prefix: customer.invoicePrefix,
    invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
    livemode: customer.scope.livemode,
    metadata: customer.metadata,
    name: customer.name,
    next_invoice_sequence: customer.nextInvoiceSequence,
    phone: customer.phone,
    preferred_locales: customer.preferredLocales,
    shipping: customer.shipping,
    ...(expanded.sources && { sources: expanded.sources }),
    tax_exempt: customer.taxExempt,
    test_clock: null,
  };
}

export const serializeDeletedCustomer = (id: string) => ({ id, object: 'customer' as const, deleted: true as const });
