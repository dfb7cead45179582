import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { dynamoCustomerRepository } from '#shared/data/customer-repository.ts';
import type { Scope } from '#shared/platform/types.ts';
import { meteredStackTable, newPlatform, sdk } from '../support/stack.ts';
import { measured } from '../support/measure.ts';

/** The customer repository on a table whose DynamoDB calls are counted. */
function meteredCustomers() {
  return dynamoCustomerRepository(meteredStackTable());
}

describe('what deleted customers cost the reads of live ones', () => {
  const customers = meteredCustomers();
  let client: Stripe;
  let scope: Scope;
  beforeAll(async () => {
    const platform = await newPlatform();
    client = sdk(platform.secret_key);
    scope = { accountId: platform.account, livemode: false };
  });

  it('lists a page of live customers in one Query however many newer customers were deleted, and still retrieves the deleted ones', async () => {
    // Given one live customer, then 150 customers created after it and deleted (as a test suite leaves them)
    const live = await client.customers.create({ name: 'Still here' });
    const gone: string[] = [];
    for (let batch = 0; batch < 15; batch++) {
      const made = await Promise.all(Array.from({ length: 10 }, (_, i) => client.customers.create({ name: `Gone ${batch * 10 + i}` })));
      await Promise.all(made.map((customer) => client.customers.del(customer.id)));
      gone.push(...made.map((customer) => customer.id));
    }

    // When a page of customers is listed
    const { result: page, calls } = await measured(() => customers.list(scope, { limit: 10 }));

    // Then it holds the live customer only, read with one Query: the tombstones are not in the range it reads
    expect(page.items.map((customer) => customer.id)).toEqual([live.id]);
    expect(page.hasMore).toBe(false);
    expect(calls).toEqual(['Query']);

    // And a deleted customer is still found, as its tombstone, and retrieved in the deleted form
    const { result: found, calls: findCalls } = await measured(() => customers.find(scope, gone[0]!));
    expect(found).toMatchObject({ id: gone[0], deleted: true });
    expect(findCalls).toEqual(['GetItem', 'GetItem']);
    expect(await client.customers.retrieve(gone[149]!)).toEqual({ id: gone[149], object: 'customer', deleted: true });
    // While a live one costs one read, and a deleted one reads as absent everywhere else
    expect((await measured(() => customers.find(scope, live.id))).calls).toEqual(['GetItem']);
    expect(await customers.get(scope, gone[0]!)).toBeUndefined();
  });
});
