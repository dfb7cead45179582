import type { Customer, CustomerRepository } from '#shared/customers/customer.ts';
import type { Table } from './table.ts';
import { customer } from './keys.ts';
import { ownedResourceStore } from './owned-resources.ts';

/** DynamoDB adapter: customers live in their owner's partition, uncapped. */
export const dynamoCustomerRepository = (table: Table): CustomerRepository => ownedResourceStore<Customer>(table, { entity: 'customer', keys: customer });
