import type * as z from 'zod';
import { unixSeconds } from '#shared/wire/timestamps.ts';
import { serializeBankAccount, serializeCard } from '#shared/tokens/serializer.ts';
import type { Customer, CustomerSource } from './customer.ts';
import type { sourceObject, deletedSourceObject, customerObject, deletedCustomerObject } from './objects.ts';

/** A customer's card or bank account: the token's card or bank account, with its customer and metadata. */
export function serializeSource(source: CustomerSource): z.input<typeof sourceObject> {
  const attached = { customer: source.customer, metadata: source.metadata };
  return source.object === 'card' ? serializeCard(source.card, attached) : serializeBankAccount(source.bankAccount, { ...attached, status: source.status });
}

/** What a removed source answers: the reference's deleted card or bank account. */
export const serializeDeletedSource = (source: CustomerSource): z.input<typeof deletedSourceObject> => ({
  id: source.id,
  object: source.object,
  deleted: true,
});

/**
 * The v1 customer object; fields this service does not manage are shown with their empty values.
 * `sources` appears only when expanded, as in current reference versions.
 */
export function serializeCustomer(customer: Customer): z.input<typeof customerObject> {
  return {
    id: customer.id,
    object: 'customer',
    address: customer.address,
    balance: customer.balance,
    created: unixSeconds(customer.created),
    currency: null,
    default_source: customer.defaultSource,
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
    tax_exempt: customer.taxExempt,
    test_clock: customer.testClock,
  };
}

export const serializeDeletedCustomer = (id: string): z.input<typeof deletedCustomerObject> => ({ id, object: 'customer', deleted: true });
