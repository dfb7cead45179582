import { describe, expect, it } from 'vitest';
import type { Customer } from '#shared/customers/customer.ts';
import { createCustomerParams, updateCustomerParams } from '#shared/customers/schemas.ts';
import { customerService } from '#shared/customers/service.ts';
import { NotFoundError } from '#shared/errors.ts';
import type { Scope } from '#shared/platform/types.ts';
import { memoryOwnedStore, originOf, recordingEmitter } from '../support/fakes.ts';

const scope: Scope = { accountId: 'acct_customers', livemode: false };
const other: Scope = { accountId: 'acct_other', livemode: false };

function setup() {
  const repository = memoryOwnedStore<Customer>();
  const recorded = recordingEmitter();
  let now = 1_700_000_000_000;
  const service = customerService({ repository, events: recorded.events, clock: () => now++ });
  return { service, repository, written: recorded.written };
}

describe('customers (service with the shared fakes)', () => {
  it('creates a customer from its parameters and emits customer.created with the object', async () => {
    const { service, repository, written } = setup();
    const customer = await service.create(originOf(scope), createCustomerParams.parse({ name: 'Ada', metadata: { plan: 'pro' } }));
    expect(customer).toMatchObject({ name: 'Ada', balance: 0, metadata: { plan: 'pro' }, version: 1, nextInvoiceSequence: 1 });
    expect(repository.items.size).toBe(1);
    expect(written[0]!.snapshotEvents[0]).toMatchObject({ type: 'customer.created', object: { id: customer.id, name: 'Ada' } });
  });

  it('updates only what is given, merges metadata (an empty value removes a key) and tells what changed', async () => {
    const { service, written } = setup();
    const created = await service.create(originOf(scope), createCustomerParams.parse({ name: 'Ada', email: 'ada@example.com', metadata: { a: '1', b: '2' } }));
    const updated = await service.update(originOf(scope), created.id, updateCustomerParams.parse({ name: 'Ada L.', metadata: { a: '', c: '3' } }));
    expect(updated).toMatchObject({ name: 'Ada L.', email: 'ada@example.com', metadata: { b: '2', c: '3' }, version: 2 });
    const event = written.at(-1)!.snapshotEvents[0]!;
    expect(event.type).toBe('customer.updated');
    expect(event.previousAttributes).toMatchObject({ name: 'Ada' });
  });

  it("answers not found for another owner's customer, and for one deleted", async () => {
    const { service } = setup();
    const created = await service.create(originOf(scope), createCustomerParams.parse({}));
    await expect(service.retrieve(other, created.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.update(originOf(other), created.id, updateCustomerParams.parse({ name: 'x' }))).rejects.toBeInstanceOf(NotFoundError);
    await service.delete(originOf(scope), created.id);
    await expect(service.retrieve(scope, created.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(service.delete(originOf(scope), created.id)).rejects.toBeInstanceOf(NotFoundError);
  });
});
