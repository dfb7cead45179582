import * as z from 'zod';
import type { Customer, CustomerRepository } from '#shared/customers/customer.ts';
import { metadataItem, orNull, ownedItem } from './item-schemas.ts';
import type { Table } from './table.ts';
import { customer } from './keys.ts';
import { ownedResourceStore } from './owned-resources.ts';

const addressItem = z.object({
  city: orNull(z.string()),
  country: orNull(z.string()),
  line1: orNull(z.string()),
  line2: orNull(z.string()),
  postal_code: orNull(z.string()),
  state: orNull(z.string()),
});

const customerItem = z.object({
  ...ownedItem,
  created: z.number(),
  name: orNull(z.string()),
  email: orNull(z.string()),
  description: orNull(z.string()),
  phone: orNull(z.string()),
  address: orNull(addressItem),
  shipping: orNull(z.object({ address: addressItem, name: z.string(), phone: orNull(z.string()) })),
  balance: z.number(),
  invoicePrefix: z.string(),
  nextInvoiceSequence: z.number(),
  preferredLocales: z.array(z.string()),
  taxExempt: z.enum(['exempt', 'none', 'reverse']),
  metadata: metadataItem,
});

/** DynamoDB adapter: customers live in their owner's partition, uncapped. */
export const dynamoCustomerRepository = (table: Table): CustomerRepository =>
  ownedResourceStore<Customer>(table, { entity: 'customer', keys: customer, parse: (item) => customerItem.parse(item) });
