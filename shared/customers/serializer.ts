import { unixSeconds } from '#shared/http/timestamps.ts';
import type { Customer } from './customer.ts';

/** The v1 customer object; fields this service does not manage are shown with their empty values. */
export function serializeCustomer(customer: Customer) {
  return {
    id: customer.id,
    object: 'customer' as const,
    address: customer.address,
    balance: customer.balance,
    created: unixSeconds(customer.created),
    currency: null,
    default_source: null,
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
    test_clock: null,
  };
}

export const serializeDeletedCustomer = (id: string) => ({ id, object: 'customer' as const, deleted: true as const });
