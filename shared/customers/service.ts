import { NotFoundError } from '#shared/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { changeAndEmit } from '#shared/events/versioned-change.ts';
import { mergeMetadata } from '#shared/metadata.ts';
import type { Page, PageRequest } from '#shared/paging.ts';
import { newId, randomBase62 } from '#shared/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Address, Customer, CustomerRepository } from './customer.ts';
import type { CustomerParams } from './schemas.ts';
import { serializeCustomer } from './serializer.ts';

export interface CustomerServicePorts {
  repository: CustomerRepository;
  events: EventEmitter;
  clock?: () => number;
}

type AddressParams = { [K in keyof Address]?: string };

const toAddress = (given: AddressParams): Address => ({
  city: given.city ?? null,
  country: given.country ?? null,
  line1: given.line1 ?? null,
  line2: given.line2 ?? null,
  postal_code: given.postal_code ?? null,
  state: given.state ?? null,
});

/** The fields a create or update sets; absent parameters leave `current` as it is, `''` clears. */
function applyParams(current: Customer, params: CustomerParams): Customer {
  const pick = <T>(value: T | undefined, fallback: T) => (value === undefined ? fallback : value);
  return {
    ...current,
    name: pick(params.name, current.name),
    email: pick(params.email, current.email),
    description: pick(params.description, current.description),
    phone: pick(params.phone, current.phone),
    address: params.address === undefined ? current.address : params.address && toAddress(params.address),
    shipping:
      params.shipping === undefined
        ? current.shipping
        : params.shipping && { name: params.shipping.name, phone: params.shipping.phone ?? null, address: toAddress(params.shipping.address) },
    balance: pick(params.balance, current.balance),
    invoicePrefix: pick(params.invoice_prefix, current.invoicePrefix),
    nextInvoiceSequence: pick(params.next_invoice_sequence, current.nextInvoiceSequence),
    preferredLocales: params.preferred_locales === undefined ? current.preferredLocales : (params.preferred_locales ?? []),
    taxExempt: params.tax_exempt === undefined ? current.taxExempt : (params.tax_exempt ?? 'none'),
    metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
  };
}

const change = (type: string, customer: Customer, before?: Customer) =>
  snapshotInput(type, serializeCustomer(customer), `/v1/customers/${customer.id}`, before ? serializeCustomer(before) : undefined);

/** v1 customers, with their snapshot events (and thin `v1.customer.*` mirrors). */
export function customerService({ repository, events, clock = Date.now }: CustomerServicePorts) {
  async function existing(scope: Scope, id: string): Promise<Customer> {
    const customer = await repository.get(scope, id);
    if (!customer) throw new NotFoundError('customer', id);
    return customer;
  }

  return {
    async create(origin: EventOrigin, params: CustomerParams): Promise<Customer> {
      const now = clock();
      const blank: Customer = {
        id: newId('cus', now),
        scope: origin.scope,
        created: now,
        name: null,
        email: null,
        description: null,
        phone: null,
        address: null,
        shipping: null,
        balance: 0,
        invoicePrefix: randomBase62(8).toUpperCase(),
        nextInvoiceSequence: 1,
        preferredLocales: [],
        taxExempt: 'none',
        metadata: {},
        version: 1,
      };
      const customer = applyParams(blank, params);
      const outbox = events.prepare(origin, [change('customer.created', customer)]);
      await repository.create(customer, { outbox });
      await events.dispatch(outbox);
      return customer;
    },

    retrieve: existing,

    update(origin: EventOrigin, id: string, params: CustomerParams): Promise<Customer> {
      return changeAndEmit(
        { repository, events },
        origin,
        () => existing(origin.scope, id),
        (current) => applyParams(current, params),
        (next, current) => [change('customer.updated', next, current)],
      );
    },

    async delete(origin: EventOrigin, id: string): Promise<void> {
      const current = await existing(origin.scope, id);
      const outbox = events.prepare(origin, [change('customer.deleted', current)]);
      if (!(await repository.delete(origin.scope, id, outbox))) throw new NotFoundError('customer', id);
      await events.dispatch(outbox);
    },

    list(scope: Scope, page: PageRequest): Promise<Page<Customer>> {
      return repository.list(scope, page);
    },
  };
}
