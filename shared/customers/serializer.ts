import * as z from 'zod';
import { addressObject, deletedObject, metadataObject, unixTime } from '#shared/http/objects.ts';
import { v1ListObject } from '#shared/http/pagination.ts';
import { unixSeconds } from '#shared/http/timestamps.ts';
import { bankAccountObject, cardObject, serializeBankAccount, serializeCard } from '#shared/tokens/serializer.ts';
import type { Customer, CustomerSource } from './customer.ts';

/** A source's or a subscription's customer: its id, or (expanded) the customer, or the reference's deleted customer. */
export const customerOrIdObject = () => z.union([z.string(), customerObject, deletedCustomerObject]);

export const sourceObject = z
  .discriminatedUnion('object', [
    cardObject.extend({
      get customer() {
        return customerOrIdObject().nullable();
      },
    }),
    bankAccountObject.extend({
      get customer() {
        return customerOrIdObject().optional();
      },
    }),
  ])
  .meta({ id: 'CustomerSource' });

export const deletedSourceObject = z
  .object({ id: z.string(), object: z.enum(['card', 'bank_account']), deleted: z.literal(true) })
  .meta({ id: 'DeletedCustomerSource' });

export const customerObject = z
  .object({
    id: z.string(),
    object: z.literal('customer'),
    address: addressObject.nullable(),
    balance: z.int(),
    created: unixTime,
    currency: z.null(),
    /** The source's id, or the source when expanded. */
    get default_source() {
      return z.union([z.string(), sourceObject]).nullable();
    },
    delinquent: z.boolean(),
    description: z.string().nullable(),
    discount: z.null(),
    email: z.string().nullable(),
    invoice_prefix: z.string(),
    invoice_settings: z.object({ custom_fields: z.null(), default_payment_method: z.null(), footer: z.null(), rendering_options: z.null() }),
    livemode: z.boolean(),
    metadata: metadataObject,
    name: z.string().nullable(),
    next_invoice_sequence: z.int(),
    phone: z.string().nullable(),
    preferred_locales: z.array(z.string()),
    shipping: z.object({ address: addressObject, name: z.string(), phone: z.string().nullable() }).nullable(),
    /** Only when expanded. */
    get sources() {
      return v1ListObject(sourceObject).optional();
    },
    tax_exempt: z.enum(['exempt', 'none', 'reverse']),
    test_clock: z.null(),
  })
  .meta({ id: 'Customer' });

export const deletedCustomerObject = deletedObject('customer').meta({ id: 'DeletedCustomer' });

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
    test_clock: null,
  };
}

export const serializeDeletedCustomer = (id: string): z.input<typeof deletedCustomerObject> => ({ id, object: 'customer', deleted: true });
