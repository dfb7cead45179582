import type { Customer, CustomerRepository } from '#shared/customers/customer.ts';
import { serializeCustomer, serializeDeletedCustomer, serializeSource } from '#shared/customers/serializer.ts';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoTestClockRepository } from '#shared/data/test-clock-repository.ts';
import { serializeDeletedTestClock, serializeTestClock } from '#shared/test-clocks/serializer.ts';
import type { TestClock } from '#shared/test-clocks/test-clock.ts';
import { type Getter, getAll, idOf, idsOf, type Json, type LoaderGroup } from './common.ts';

export interface CustomerExpansionPorts {
  customers: Getter<Customer> & Pick<CustomerRepository, 'getSource' | 'listSources'>;
  testClocks: Getter<TestClock>;
}

/** How many sources an expanded customer's `sources` list shows, as the reference's embedded lists. */
const embeddedSources = 10;

/**
 * A customer, or the reference's deleted customer for one that is gone (deleted customers are what a
 * subscription's or a source's customer id can point at). A repository that keeps deleted customers as
 * tombstones (`deleted: true`) renders them the same way.
 */
const renderCustomer = (id: string, customer: Customer | undefined): Json =>
  customer && !(customer as { deleted?: boolean }).deleted ? serializeCustomer(customer) : serializeDeletedCustomer(id);

/** Customers, their sources (and a customer's `sources` list), and test clocks. */
export function customerLoaders(ports: CustomerExpansionPorts): LoaderGroup {
  return {
    objects: {
      customer: async (scope, refs) => (await getAll(ports.customers, scope, idsOf(refs))).map((customer, index) => renderCustomer(refs[index]!.id, customer)),
      // A source's key names its customer: the holder is the customer, or holds its id (a subscription).
      customer_source: async (scope, refs) => {
        const found = await Promise.all(
          refs.map(({ id, holder }) => {
            const customerId = holder.object === 'customer' ? idOf(holder.id) : idOf(holder.customer);
            return customerId ? ports.customers.getSource(scope, customerId, id) : undefined;
          }),
        );
        return found.map((source) => source && serializeSource(source));
      },
      // A customer's clock outlives it (deleting a clock deletes its customers first); one gone shows as deleted.
      'test_helpers.test_clock': async (scope, refs) =>
        (await getAll(ports.testClocks, scope, idsOf(refs))).map((clock, index) =>
          clock ? serializeTestClock(clock) : serializeDeletedTestClock(refs[index]!.id),
        ),
    },
    included: {
      'customer.sources': (scope, holders) =>
        Promise.all(
          holders.map(async (holder) => {
            const customerId = String(holder.id);
            const sources = await ports.customers.listSources(scope, customerId, { limit: embeddedSources });
            return { object: 'list', data: sources.items.map(serializeSource), has_more: sources.hasMore, url: `/v1/customers/${customerId}/sources` };
          }),
        ),
    },
  };
}

/** The group on the real repositories, for `wireExpander`. */
export const customerExpansions = (): LoaderGroup =>
  customerLoaders({ customers: dynamoCustomerRepository(serviceTable()), testClocks: dynamoTestClockRepository(serviceTable()) });
