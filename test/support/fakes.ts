import { randomBytes } from 'node:crypto';
import { eventEmitter } from '#shared/events/emitter.ts';
import { maxDeliveriesPerEvent, type Delivery, type EventOrigin, type Outbox, type SnapshotEvent, type ThinEvent } from '#shared/events/event.ts';
import type { DeliveryStore } from '#shared/delivery/delivery-store.ts';
import type { EventRepository } from '#shared/events/event-repository.ts';
import type { PipelinePorts } from '#shared/http/handler.ts';
import type { RateCounter, IdempotencyRecord, IdempotencyStore, StoredResponse } from '#shared/platform/ports.ts';
import type { Meter, MeterRepository } from '#shared/meters/meter.ts';
import type { OwnedResource, OwnedResourceStore } from '#shared/platform/owned-resource.ts';
import { pageOf } from '#shared/wire/paging.ts';
import type { AccountSecretStore } from '#shared/platform/account-secrets.ts';
import type { AccountRecord, ApiKeyRecord, PlatformStore, Scope } from '#shared/platform/types.ts';
import type { CatalogueChange, CatalogueRepository, Price, Product } from '#shared/catalogue/catalogue.ts';
import type { Customer, CustomerRepository, CustomerSource, DeletedCustomer } from '#shared/customers/customer.ts';
import type { Token, TokenRepository, TokenUse } from '#shared/tokens/token.ts';
import { tokenAlreadyUsed } from '#shared/tokens/use.ts';

/** In-memory PlatformStore for unit tests. */
export function fakePlatformStore(): PlatformStore & { accounts: Map<string, AccountRecord>; keys: Map<string, ApiKeyRecord> } {
  const accounts = new Map<string, AccountRecord>();
  const keys = new Map<string, ApiKeyRecord>();
  return {
    accounts,
    keys,
    async createAccount(account) {
      if (accounts.has(account.id)) throw new Error('exists');
      accounts.set(account.id, account);
    },
    async getAccount(id) {
      return accounts.get(id);
    },
    async createApiKey(key) {
      if (keys.has(key.hash)) return false;
      keys.set(key.hash, key);
      return true;
    },
    async findApiKey(hash) {
      return keys.get(hash);
    },
    async expireApiKey(hash, expiresAt) {
      const key = keys.get(hash);
      if (!key) return false;
      keys.set(hash, { ...key, expiresAt });
      return true;
    },
    async listApiKeys(accountId) {
      return [...keys.values()].filter((key) => key.accountId === accountId);
    },
  };
}

type Item = { state: 'in_progress' | 'complete'; fingerprint: string; lockedUntil: number; expiresAt: number; response?: StoredResponse };

/** In-memory IdempotencyStore with the same claim rule as the DynamoDB adapter. */
export function fakeIdempotencyStore(): IdempotencyStore & { items: Map<string, Item> } {
  const items = new Map<string, Item>();
  const id = (scope: Scope, key: string) => `${scope.accountId}/${scope.livemode}/${key}`;
  const view = (item: Item | undefined, now: number): IdempotencyRecord => {
    if (!item || item.expiresAt <= now) return { state: 'absent' };
    return item.state === 'complete'
      ? { state: 'complete', fingerprint: item.fingerprint, response: item.response! }
      : { state: 'in_progress', fingerprint: item.fingerprint };
  };
  return {
    items,
    async claim(claim, now) {
      const current = items.get(id(claim.scope, claim.key));
      const free = !current || current.expiresAt <= now || (current.state === 'in_progress' && current.lockedUntil < now);
      if (!free) return { claimed: false, record: view(current, now) };
      items.set(id(claim.scope, claim.key), {
        state: 'in_progress',
        fingerprint: claim.fingerprint,
        lockedUntil: claim.lockedUntil,
        expiresAt: claim.expiresAt,
      });
      return { claimed: true };
    },
    async read(scope, key, now) {
      return view(items.get(id(scope, key)), now);
    },
    async complete(scope, key, response) {
      const item = items.get(id(scope, key))!;
      items.set(id(scope, key), { ...item, state: 'complete', response });
    },
    async release(scope, key) {
      items.delete(id(scope, key));
    },
    async keep(claim, response, now, replaceOwn) {
      const current = items.get(id(claim.scope, claim.key));
      const own = replaceOwn && current?.response?.requestId === claim.requestId;
      if (view(current, now).state !== 'absent' && !own) return view(current, now);
      items.set(id(claim.scope, claim.key), { state: 'complete', fingerprint: claim.fingerprint, lockedUntil: 0, expiresAt: claim.expiresAt, response });
      return undefined;
    },
  };
}

/** The table's rate counter in memory: conditional adds per bucket and second, every call's count recorded. */
export function memoryRateCounter() {
  const counts = new Map<string, number>();
  const calls: number[] = [];
  const counter: RateCounter = {
    async take(bucket, second, limit, count) {
      calls.push(count);
      const key = `${bucket}@${second}`;
      const current = counts.get(key) ?? 0;
      if (current + count > limit) return false;
      counts.set(key, current + count);
      return true;
    },
  };
  return { counter, calls, counts };
}

/** The request pipeline's ports on fakes: no rate limit refuses (`rateLimiter` may be replaced to test one). */
export function fakePipelinePorts(platformStore: PlatformStore): PipelinePorts {
  return {
    platformStore,
    idempotencyStore: fakeIdempotencyStore(),
    secrets: fakeAccountSecretStore(),
    maxBodyBytes: 1024,
    rateLimiter: { enforce: async () => undefined, exhausted: () => false },
    rateLimits: {
      perKey: { live: 100, test: 100 },
      meterEvents: { live: 1000, test: 1000 },
      meterEventStream: 10_000,
      search: { live: 20, test: 20 },
      authFailures: 20,
    },
  };
}

/** In-memory AccountSecretStore: one random secret per account, made on first use (by `keyFor`; `existingKeyFor` only finds). */
export function fakeAccountSecretStore(): AccountSecretStore {
  const secrets = new Map<string, Buffer>();
  return {
    async keyFor(accountId) {
      if (!secrets.has(accountId)) secrets.set(accountId, randomBytes(32));
      return secrets.get(accountId)!;
    },
    existingKeyFor: async (accountId) => secrets.get(accountId),
  };
}

const scopeKey = (scope: Scope) => `${scope.accountId}|${scope.livemode}`;

/**
 * In-memory OwnedResourceStore (customers, meters, endpoints, destinations, issuing objects…): scoped by
 * owner and mode, capped by `limit`, versioned like the DynamoDB store, newest first. `items` is its content.
 */
export function memoryOwnedStore<T extends OwnedResource>(...initial: T[]): OwnedResourceStore<T> & { items: Map<string, T> } {
  const items = new Map<string, T>();
  const key = (scope: Scope, id: string) => `${scopeKey(scope)}|${id}`;
  for (const item of initial) items.set(key(item.scope, item.id), item);
  const owned = (scope: Scope) => [...items.values()].filter((item) => scopeKey(item.scope) === scopeKey(scope));
  const matches = (item: T, where: Record<string, unknown>) =>
    Object.entries(where).every(([path, value]) => path.split('.').reduce<unknown>((at, part) => (at as Record<string, unknown>)?.[part], item) === value);
  return {
    items,
    async create(resource, { limit = Number.POSITIVE_INFINITY } = {}) {
      if (items.has(key(resource.scope, resource.id)) || owned(resource.scope).length >= limit) return false;
      items.set(key(resource.scope, resource.id), resource);
      return true;
    },
    async get(scope, id) {
      return items.get(key(scope, id));
    },
    async replace(next) {
      if (items.get(key(next.scope, next.id))?.version !== next.version - 1) return false;
      items.set(key(next.scope, next.id), next);
      return true;
    },
    async delete(scope, id) {
      return items.delete(key(scope, id));
    },
    async list(scope, page, where = {}) {
      const newestFirst = owned(scope)
        .filter((item) => matches(item, where))
        .sort((a, b) => (a.id < b.id ? 1 : -1));
      const after = page.startingAfter === undefined ? newestFirst : newestFirst.filter((item) => item.id < page.startingAfter!);
      return { items: after.slice(0, page.limit), hasMore: after.length > page.limit };
    },
    async all(scope) {
      return owned(scope);
    },
  };
}

/** A real event emitter on fakes: every outbox it prepares is kept in `written`. */
export function recordingEmitter() {
  const written: Outbox[] = [];
  const events = eventEmitter({
    store: { commit: async (outbox) => void written.push(outbox) },
    queue: { enqueue: async () => undefined },
  });
  return {
    written,
    events: {
      ...events,
      prepare: (...args: Parameters<typeof events.prepare>) => {
        const outbox = events.prepare(...args);
        written.push(outbox);
        return outbox;
      },
    },
  };
}

/** The origin of a change made by `scope`'s own platform, as a request would carry it. */
export const originOf = (scope: Scope): EventOrigin => ({
  scope,
  platformId: scope.accountId,
  request: { id: 'req_1', idempotencyKey: null },
  apiVersion: '2026-10-28.endive',
});

/** In-memory MeterRepository: owned meters with an event name unique per owner and mode. */
export function memoryMeterRepository(): MeterRepository & { items: Map<string, Meter> } {
  const store = memoryOwnedStore<Meter>();
  const named = (scope: Scope, eventName: string) =>
    [...store.items.values()].find((meter) => scopeKey(meter.scope) === scopeKey(scope) && meter.eventName === eventName);
  return {
    ...store,
    create: async (meter) => !named(meter.scope, meter.eventName) && store.create(meter),
    findByEventName: async (scope, eventName) => named(scope, eventName),
  };
}

/** An active `sum` meter with the default payload keys, as the service creates one; `overrides` change it. */
export const meterFixture = (overrides: Partial<Meter> & Pick<Meter, 'scope'>): Meter => ({
  id: 'mtr_1',
  created: 1,
  updated: 1,
  displayName: 'API calls',
  eventName: 'api_call',
  customerPayloadKey: 'service_customer_id',
  valuePayloadKey: 'value',
  formula: 'sum',
  eventTimeWindow: null,
  status: 'active',
  deactivatedAt: null,
  version: 1,
  ...overrides,
});

/** What a write that uses a token does with it: checks it can still be used (else `token_already_used`), then marks it used. */
interface TokenUser {
  check(use: TokenUse): void;
  markUsed(use: TokenUse): void;
}

/**
 * In-memory tokens, with the DynamoDB adapter's rules: scoped by owner and mode, unreadable once expired,
 * usable by a write only while still of its type, unused and unexpired.
 */
export function memoryTokenRepository(): TokenRepository & TokenUser & { items: Map<string, Token> } {
  const items = new Map<string, Token>();
  const key = (scope: Scope, id: string) => `${scopeKey(scope)}|${id}`;
  return {
    items,
    async create(token) {
      items.set(key(token.scope, token.id), structuredClone(token));
    },
    async get(scope, id, now) {
      const token = items.get(key(scope, id));
      return token && token.expiresAt > now ? structuredClone(token) : undefined;
    },
    check(use) {
      const token = items.get(key(use.scope, use.id));
      if (!token || token.type !== use.type || token.used || token.expiresAt <= use.now) throw tokenAlreadyUsed(use);
    },
    markUsed(use) {
      items.get(key(use.scope, use.id))!.used = true;
    },
  };
}

/**
 * An owned store whose writes use up the token they are given (`using`) as the DynamoDB stores do in the
 * write's transaction: refused if it cannot be used, used only by a write that happened.
 */
export function usingTokens<T extends OwnedResource>(store: OwnedResourceStore<T>, tokens: TokenUser): OwnedResourceStore<T> {
  const written = (using: TokenUse | undefined, ok: boolean) => {
    if (ok && using) tokens.markUsed(using);
    return ok;
  };
  return {
    ...store,
    async create(resource, { using, ...options } = {}) {
      if (using) tokens.check(using);
      return written(using, await store.create(resource, options));
    },
    async replace(next, outbox, using) {
      if (using) tokens.check(using);
      return written(using, await store.replace(next, outbox));
    },
  };
}

/**
 * In-memory CatalogueRepository with the DynamoDB adapter's conditions: a change is written whole or not at
 * all; new objects must be new, changed and deleted ones at the version read, a new price's product must
 * exist (its count and version move), a lookup key must still have the holder read, objects relied on
 * unchanged must be at the version read.
 */
export function memoryCatalogue(): CatalogueRepository & {
  products: ReturnType<typeof memoryOwnedStore<Product>>;
  prices: ReturnType<typeof memoryOwnedStore<Price>>;
  lookupKeys: Map<string, string>;
} {
  const products = memoryOwnedStore<Product>();
  const prices = memoryOwnedStore<Price>();
  const lookupKeys = new Map<string, string>();
  const keyOf = (scope: Scope, key: string) => `${scopeKey(scope)}|${key}`;
  const at = <T extends OwnedResource>(store: ReturnType<typeof memoryOwnedStore<T>>, scope: Scope, id: string) => store.items.get(`${scopeKey(scope)}|${id}`);
  function holds(change: CatalogueChange): boolean {
    const { scope } = change;
    const created = new Set((change.newProducts ?? []).map((product) => product.id));
    return (
      (change.newProducts ?? []).every((product) => !at(products, scope, product.id)) &&
      (change.changedProducts ?? []).every((product) => at(products, scope, product.id)?.version === product.version - 1) &&
      (!change.deletedProduct || at(products, scope, change.deletedProduct.id)?.version === change.deletedProduct.version) &&
      (change.newPrices ?? []).every((price) => !at(prices, scope, price.id) && (created.has(price.product) || at(products, scope, price.product))) &&
      (change.changedPrices ?? []).every((price) => at(prices, scope, price.id)?.version === price.version - 1) &&
      (change.unchangedProducts ?? []).every((product) => at(products, scope, product.id)?.version === product.version) &&
      (change.unchangedPrices ?? []).every((price) => at(prices, scope, price.id)?.version === price.version) &&
      (change.lookupKeys ?? []).every(({ key, from }) => (lookupKeys.get(keyOf(scope, key)) ?? null) === from)
    );
  }
  return {
    products,
    prices,
    lookupKeys,
    async lookupKeyHolder(scope, key) {
      return lookupKeys.get(keyOf(scope, key));
    },
    async commit(change) {
      if (!holds(change)) return false;
      const { scope } = change;
      const put = <T extends OwnedResource>(store: ReturnType<typeof memoryOwnedStore<T>>, object: T) =>
        store.items.set(`${scopeKey(scope)}|${object.id}`, object);
      for (const product of [...(change.newProducts ?? []), ...(change.changedProducts ?? [])]) put(products, product);
      if (change.deletedProduct) products.items.delete(`${scopeKey(scope)}|${change.deletedProduct.id}`);
      for (const price of change.newPrices ?? []) {
        const product = at(products, scope, price.product)!;
        if (!(change.newProducts ?? []).some((made) => made.id === product.id)) {
          put(products, { ...product, priceCount: (product.priceCount ?? 0) + 1, version: product.version + 1 });
        }
        put(prices, price);
      }
      for (const price of change.changedPrices ?? []) put(prices, price);
      for (const { key, to } of change.lookupKeys ?? []) {
        if (to === null) lookupKeys.delete(keyOf(scope, key));
        else lookupKeys.set(keyOf(scope, key), to);
      }
      return true;
    },
  };
}

/**
 * In-memory CustomerRepository with the DynamoDB adapter's rules: a source change is written whole or not
 * at all (the token used up first, the customer new or at the version read, the source new); a customer is
 * deleted on its version with its sources.
 */
export function memoryCustomerRepository(tokens: ReturnType<typeof memoryTokenRepository>): CustomerRepository & {
  items: Map<string, Customer>;
  sources: Map<string, CustomerSource>;
} {
  const store = memoryOwnedStore<Customer>();
  const sources = new Map<string, CustomerSource>();
  const sourceKey = (scope: Scope, customerId: string, sourceId: string) => `${scopeKey(scope)}|${customerId}|${sourceId}`;
  const customerKey = (customer: Customer) => `${scopeKey(customer.scope)}|${customer.id}`;
  const ofCustomer = (scope: Scope, customerId: string) =>
    [...sources.values()]
      .filter((source) => scopeKey(source.scope) === scopeKey(scope) && source.customer === customerId)
      .sort((a, b) => (a.created < b.created || (a.created === b.created && a.id < b.id) ? 1 : -1));
  const tombstones = new Map<string, DeletedCustomer>();
  return {
    ...store,
    sources,
    async find(scope, id) {
      return store.items.get(`${scopeKey(scope)}|${id}`) ?? tombstones.get(`${scopeKey(scope)}|${id}`);
    },
    async list(scope, page, { email, created, testClock } = {}) {
      const listed = (await store.all(scope))
        .filter((customer) => email === undefined || customer.email === email)
        .filter((customer) => testClock === undefined || customer.testClock === testClock)
        .filter((customer) => (created?.from ?? -Infinity) <= customer.created && customer.created <= (created?.to ?? Infinity));
      return pageOf(
        listed.sort((a, b) => (a.id < b.id ? 1 : -1)),
        page,
      );
    },
    async getSource(scope, customerId, sourceId) {
      return sources.get(sourceKey(scope, customerId, sourceId));
    },
    async listSources(scope, customerId, page, where = {}) {
      const all = ofCustomer(scope, customerId).filter((source) =>
        Object.entries(where).every(([field, value]) => (source as unknown as Record<string, unknown>)[field] === value),
      );
      const at = page.startingAfter === undefined ? 0 : all.findIndex((source) => source.id === page.startingAfter) + 1;
      const rest = all.slice(at);
      return { items: rest.slice(0, page.limit), hasMore: rest.length > page.limit };
    },
    async changeSources(change, _outbox, now) {
      const { customer, token, attach, detach = [] } = change;
      if (token) {
        const stored = tokens.items.get(`${scopeKey(token.scope)}|${token.id}`);
        if (!stored || stored.expiresAt <= now || stored.type !== token.type) return 'token_missing';
        if (stored.used) return 'token_used';
      }
      const current = store.items.get(customerKey(customer));
      if (change.isNew ? current !== undefined : current?.version !== customer.version - 1) return 'conflict';
      if (attach && sources.has(sourceKey(attach.scope, attach.customer, attach.id))) return 'conflict';
      if (detach.some((source) => !sources.has(sourceKey(source.scope, source.customer, source.id)))) return 'conflict';
      if (token) tokens.markUsed(token);
      store.items.set(customerKey(customer), customer);
      if (attach) sources.set(sourceKey(attach.scope, attach.customer, attach.id), attach);
      for (const source of detach) sources.delete(sourceKey(source.scope, source.customer, source.id));
      return 'written';
    },
    async replaceSource(next) {
      const key = sourceKey(next.scope, next.customer, next.id);
      if (sources.get(key)?.version !== next.version - 1) return false;
      sources.set(key, next);
      return true;
    },
    async deleteWithSources(customer, removed, _outbox, now) {
      if (store.items.get(customerKey(customer))?.version !== customer.version) return false;
      store.items.delete(customerKey(customer));
      tombstones.set(customerKey(customer), {
        id: customer.id,
        scope: customer.scope,
        deleted: true,
        created: customer.created,
        deletedAt: now,
        version: customer.version + 1,
      });
      for (const source of removed) sources.delete(sourceKey(source.scope, source.customer, source.id));
      return true;
    },
  };
}

/**
 * In-memory events and deliveries, linked as the table links them: `DeliveryStore` (updates recorded like the
 * DynamoDB store's conditional write; a destination's list grouped by status, pending, failed, delivered,
 * cancelled, each newest first) and the reads of `EventRepository` (gets only). `thin` and `snapshot` are the
 * stored events, `deliveries` the records.
 */
export function memoryDeliveries() {
  const thin = new Map<string, ThinEvent>();
  const snapshot = new Map<string, SnapshotEvent>();
  const deliveries = new Map<string, Delivery>();
  const eventKey = (scope: Scope, id: string) => `${scopeKey(scope)}|${id}`;
  const statusOrder = ['pending', 'failed', 'delivered', 'cancelled'];
  const position = (delivery: Delivery) => `${statusOrder.indexOf(delivery.status)}#${String(1e15 - delivery.created).padStart(16, '0')}#${delivery.id}`;
  const store: DeliveryStore = {
    get: async (id) => deliveries.get(id),
    async update(delivery, update) {
      const current = deliveries.get(delivery.id);
      if (current?.status !== 'pending' || current.attempts.length !== delivery.attempts.length) return false;
      deliveries.set(delivery.id, {
        ...current,
        status: update.status,
        nextAttemptAt: update.nextAttemptAt,
        attempts: update.attempt ? [...current.attempts, update.attempt] : current.attempts,
        ...(update.status === 'cancelled' && update.cancelReason ? { cancelReason: update.cancelReason } : {}),
      });
      return true;
    },
    overdue: async (dueBy) => [...deliveries.values()].filter((delivery) => delivery.status === 'pending' && (delivery.nextAttemptAt ?? 0) <= dueBy),
    async reschedule(delivery, to) {
      deliveries.set(delivery.id, { ...delivery, nextAttemptAt: to, sweeps: (delivery.sweeps ?? 0) + 1 });
      return true;
    },
    getMany: async (ids) => ids.flatMap((id) => deliveries.get(id) ?? []),
    async listByDestination(destination, { status, limit, after }) {
      const listed = [...deliveries.values()]
        .filter((delivery) => scopeKey(delivery.destination.scope) === scopeKey(destination.scope) && delivery.destination.id === destination.id)
        .filter((delivery) => status === undefined || delivery.status === status)
        .sort((a, b) => (position(a) < position(b) ? -1 : 1))
        .filter((delivery) => after === undefined || position(delivery) > after);
      const items = listed.slice(0, limit);
      const hasMore = listed.length > limit;
      return { items, hasMore, next: hasMore ? position(items.at(-1)!) : undefined };
    },
    async createResend(delivery) {
      const events = delivery.event.kind === 'thin' ? thin : snapshot;
      const event = events.get(eventKey(delivery.event.scope, delivery.event.id));
      if (!event) return 'event_missing';
      if ((event.deliveryIds ?? []).length >= maxDeliveriesPerEvent) return 'too_many';
      const deliveryIds = [...(event.deliveryIds ?? []), delivery.id];
      const key = eventKey(event.scope, event.id);
      if ('pendingWebhooks' in event) snapshot.set(key, { ...event, deliveryIds, pendingWebhooks: event.pendingWebhooks + 1 });
      else thin.set(key, { ...event, deliveryIds });
      deliveries.set(delivery.id, delivery);
      return 'created';
    },
  };
  const events: EventRepository = {
    getThin: async (scope, id) => thin.get(eventKey(scope, id)),
    getSnapshot: async (scope, id) => snapshot.get(eventKey(scope, id)),
    listThin: async () => ({ items: [], hasMore: false }),
    listSnapshot: async () => ({ items: [], hasMore: false }),
  };
  return {
    store,
    events,
    thin,
    snapshot,
    deliveries,
    /** Stores an event with its deliveries, linked as a fan-out links them. */
    add(event: ThinEvent | SnapshotEvent, ...linked: Delivery[]) {
      for (const delivery of linked) deliveries.set(delivery.id, delivery);
      const withIds = { ...event, deliveryIds: [...(event.deliveryIds ?? []), ...linked.map((delivery) => delivery.id)] };
      if ('apiVersion' in withIds) snapshot.set(eventKey(event.scope, event.id), withIds);
      else thin.set(eventKey(event.scope, event.id), withIds);
    },
  };
}
