import { systemClock } from '#shared/core/clock.ts';
import { CardError, InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventInput, EventOrigin } from '#shared/events/event.ts';
import { mergeMetadata } from '#shared/wire/metadata.ts';
import { withOptimisticRetries } from '#shared/platform/owned-resource.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';
import { newId, randomBase62 } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import { noSuchToken, tokenAlreadyUsed } from '#shared/tokens/use.ts';
import { cardDeclines } from '#shared/tokens/card-numbers.ts';
import type { Token, TokenCard, TokenRepository, TokenUse } from '#shared/tokens/token.ts';
import type {
  Address,
  Customer,
  CustomerListFilters,
  CustomerRepository,
  CustomerSource,
  CustomerSourceChange,
  CustomerSubscriptions,
  CustomerTestClock,
  CustomerTestClocks,
  DeletedCustomer,
} from './customer.ts';
import { maxCustomersPerClock, testClockAdvancing } from '#shared/test-clocks/test-clock.ts';
import type { CreateSourceParams, CustomerParams, UpdateSourceParams, VerifySourceParams } from './schemas.ts';
import { serializeCustomer, serializeSource } from './serializer.ts';

export interface CustomerServicePorts {
  repository: CustomerRepository;
  /** Cancels a deleted customer's subscriptions. */
  subscriptions: CustomerSubscriptions;
  /**
   * Where `source=tok_…` is read from (it is used up in the write that attaches the source); the wiring adds
   * the reference's test tokens (`tok_visa`, …: shared/tokens/test-tokens.ts), each read minting a fresh one.
   */
  tokens: Pick<TokenRepository, 'get'>;
  events: EventEmitter;
  /** The test clocks customers are created on (none: `test_clock` names no clock). */
  clocks?: CustomerTestClocks;
  clock?: () => number;
}

/**
 * Most sources one customer has: deleting a customer removes its sources in the transaction that removes
 * it, which holds 100 writes.
 */
export const maxSourcesPerCustomer = 50;

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

const sourceEvent = (type: string, source: CustomerSource, before?: CustomerSource) =>
  snapshotInput(type, serializeSource(source), `/v1/customers/${source.customer}/sources/${source.id}`, before ? serializeSource(before) : undefined);

const tooManySources = () =>
  new InvalidRequestError(
    `A customer can have at most ${maxSourcesPerCustomer} payment sources here; delete one before adding another.`,
    'parameter_invalid',
    'source',
  );

/**
 * The reference verifies a card when it is attached to a customer: a test card documented to decline is
 * refused there with its card error (402), nothing written and the token left unused; 4000000000000341
 * (and the always-blocked fraud card) attach and fail only when charged.
 */
function refuseDeclinedAtAttach(card: TokenCard): void {
  if (card.outcome === null || card.outcome === 'succeeds') return;
  const decline = cardDeclines[card.outcome];
  if (decline.atAttach) throw new CardError(decline.message, decline.code, undefined, decline.declineCode);
}

/** The card or bank account a token becomes once attached to `customer` (same id as in the token). */
function sourceOf(token: Token, customer: Customer, param: string, metadata: Record<string, string>, now: number): CustomerSource {
  const base = { scope: customer.scope, version: 1, customer: customer.id, created: now, metadata };
  if (token.type === 'card') refuseDeclinedAtAttach(token.card);
  if (token.type === 'card') return { ...base, id: token.card.id, object: 'card', card: token.card };
  if (token.type === 'bank_account') return { ...base, id: token.bankAccount.id, object: 'bank_account', bankAccount: token.bankAccount, status: 'new' };
  throw new InvalidRequestError(
    `Invalid ${param}: '${token.id}' is a ${token.type} token; a payment source is made from a card or bank_account token.`,
    'parameter_invalid',
    param,
  );
}

/** Card fields and bank account fields of an update refused on the other kind, as the reference does. */
const cardFields = [
  'name',
  'address_city',
  'address_country',
  'address_line1',
  'address_line2',
  'address_state',
  'address_zip',
  'exp_month',
  'exp_year',
] as const;
const bankAccountFields = ['account_holder_name', 'account_holder_type'] as const;

/** The micro-deposits a test-mode bank account is verified with, in cents, as in the reference. */
const testDepositAmounts = [32, 45] as const;

/** v1 customers, with their snapshot events (and thin `v1.customer.*` mirrors), and their cards and bank accounts. */
export function customerService({ repository, subscriptions, tokens, events, clocks, clock = systemClock }: CustomerServicePorts) {
  /**
   * The test clock a new customer is created on: test mode only, an existing clock of the same account and
   * mode, not advancing, with room for one more customer (`maxCustomersPerClock`).
   */
  async function clockToJoin(scope: Scope, id: string): Promise<CustomerTestClock> {
    if (scope.livemode) {
      throw new InvalidRequestError(
        'Test clocks are only available in test mode; a live mode customer cannot have a test_clock.',
        'livemode_mismatch',
        'test_clock',
      );
    }
    const found = await clocks?.get(scope, id);
    if (!found) throw new InvalidRequestError(`No such test clock: '${id}'`, 'resource_missing', 'test_clock');
    if (found.status === 'advancing') throw testClockAdvancing(id, 'test_clock');
    if (found.status === 'internal_failure') {
      throw new InvalidRequestError(
        `The test clock ${id} failed while advancing (status internal_failure); delete it and use a new one.`,
        'test_clock_internal_failure',
        'test_clock',
      );
    }
    if (found.customers.length >= maxCustomersPerClock) {
      throw new InvalidRequestError(
        `The test clock ${id} already has ${maxCustomersPerClock} customers, the most a test clock may have; use another test clock.`,
        'test_clock_customer_limit',
        'test_clock',
      );
    }
    return found;
  }

  /** A live customer; a deleted one is 404 "No such customer" here, as the reference answers every operation on it but retrieve. */
  async function existing(scope: Scope, id: string): Promise<Customer> {
    const customer = await repository.get(scope, id);
    if (!customer) throw new NotFoundError('customer', id);
    return customer;
  }

  /** A token that can still be used, read with the customer's scope (another account's or mode's is "No such token"). */
  function usableToken(token: Token | undefined, tokenId: string): Token {
    if (!token) throw noSuchToken(tokenId, 'source');
    if (token.used) throw tokenAlreadyUsed({ id: tokenId, param: 'source' });
    return token;
  }

  /** Using a card or bank account token up as the source of `scope`'s customer, in the change's transaction. */
  const useOf = (scope: Scope, id: string, type: 'card' | 'bank_account', now: number): TokenUse => ({ scope, id, type, now, param: 'source' });

  /**
   * Writes a change of the customer's sources with its events, then queues them; undefined when the
   * customer changed meanwhile (read again). The token is used up only if everything is written.
   */
  async function write<T>(origin: EventOrigin, result: T, sourceChange: CustomerSourceChange, inputs: EventInput[]): Promise<T | undefined> {
    const outbox = events.prepare(origin, inputs);
    const outcome = await repository.changeSources(sourceChange, outbox, clock());
    if (outcome === 'token_missing') throw noSuchToken(sourceChange.token!.id, 'source');
    if (outcome === 'token_used') throw tokenAlreadyUsed(sourceChange.token!);
    if (outcome === 'conflict') return undefined;
    await events.dispatch(outbox);
    return result;
  }

  async function sourceOfCustomer(scope: Scope, customerId: string, sourceId: string): Promise<{ customer: Customer; source: CustomerSource }> {
    const [customer, source] = await Promise.all([existing(scope, customerId), repository.getSource(scope, customerId, sourceId)]);
    if (!source) throw new NotFoundError('source', sourceId);
    return { customer, source };
  }

  return {
    /** A customer; with `source`, its first card or bank account (the default), made from the token in the same write. */
    async create(origin: EventOrigin, params: CustomerParams): Promise<Customer> {
      return withOptimisticRetries(async () => {
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
          defaultSource: null,
          sourceCount: 0,
          testClock: params.test_clock ?? null,
        };
        const customer = applyParams(blank, params);
        if (params.test_clock !== undefined) {
          const onClock = await clockToJoin(origin.scope, params.test_clock);
          const clockChange = { id: onClock.id, version: onClock.version, customers: [...onClock.customers, customer.id] };
          if (params.source === undefined)
            return write(origin, customer, { customer, isNew: true, clock: clockChange }, [change('customer.created', customer)]);
          const token = usableToken(await tokens.get(origin.scope, params.source, now), params.source);
          const source = sourceOf(token, customer, 'source', {}, now);
          const created = { ...customer, defaultSource: source.id, sourceCount: 1 };
          return write(
            origin,
            created,
            { customer: created, isNew: true, token: useOf(origin.scope, token.id, source.object, now), attach: source, clock: clockChange },
            [change('customer.created', created), sourceEvent('customer.source.created', source)],
          );
        }
        if (params.source === undefined) {
          const outbox = events.prepare(origin, [change('customer.created', customer)]);
          if (!(await repository.create(customer, { outbox }))) return undefined;
          await events.dispatch(outbox);
          return customer;
        }
        const token = usableToken(await tokens.get(origin.scope, params.source, now), params.source);
        const source = sourceOf(token, customer, 'source', {}, now);
        const created = { ...customer, defaultSource: source.id, sourceCount: 1 };
        return write(origin, created, { customer: created, isNew: true, token: useOf(origin.scope, token.id, source.object, now), attach: source }, [
          change('customer.created', created),
          sourceEvent('customer.source.created', source),
        ]);
      });
    },

    /** A customer, or what is left of a deleted one (the reference's deleted form). */
    async retrieve(scope: Scope, id: string): Promise<Customer | DeletedCustomer> {
      const found = await repository.find(scope, id);
      if (!found) throw new NotFoundError('customer', id);
      return found;
    },

    /**
     * Changes what is given. `source` attaches a new card or bank account from a token and makes it the
     * default, deleting the default it replaces (as the reference does); `default_source` picks one of
     * the customer's sources. Both at once are refused (400 `parameters_exclusive`): never one ignored.
     */
    async update(origin: EventOrigin, id: string, params: CustomerParams): Promise<Customer> {
      // `source` makes its new source the default: with `default_source` too, one of them would be ignored.
      if (params.source !== undefined && params.default_source !== undefined) {
        throw new InvalidRequestError(
          'You may only specify one of these parameters: default_source, source. source attaches a new source and makes it the default; default_source picks one the customer already has.',
          'parameters_exclusive',
          'default_source',
        );
      }
      return withOptimisticRetries(async () => {
        const now = clock();
        const [current, token, chosen] = await Promise.all([
          existing(origin.scope, id),
          params.source === undefined ? undefined : tokens.get(origin.scope, params.source, now),
          params.default_source === undefined ? undefined : repository.getSource(origin.scope, id, params.default_source),
        ]);
        const next: Customer = { ...applyParams(current, params), version: current.version + 1 };
        const sourceChange: CustomerSourceChange = { customer: next };
        const inputs: EventInput[] = [];
        if (params.source !== undefined) {
          const source = sourceOf(usableToken(token, params.source), current, 'source', {}, now);
          const replaced = current.defaultSource === null ? undefined : await repository.getSource(origin.scope, id, current.defaultSource);
          next.defaultSource = source.id;
          next.sourceCount = current.sourceCount + 1 - (replaced ? 1 : 0);
          if (next.sourceCount > maxSourcesPerCustomer) throw tooManySources();
          Object.assign(sourceChange, { token: useOf(origin.scope, token!.id, source.object, now), attach: source, detach: replaced ? [replaced] : [] });
          inputs.push(sourceEvent('customer.source.created', source), ...(replaced ? [sourceEvent('customer.source.deleted', replaced)] : []));
        } else if (params.default_source !== undefined) {
          if (!chosen) throw new InvalidRequestError(`No such source: '${params.default_source}'`, 'resource_missing', 'default_source');
          next.defaultSource = chosen.id;
        }
        inputs.push(change('customer.updated', next, current));
        return write(origin, next, sourceChange, inputs);
      });
    },

    /**
     * Deletes the customer, as the reference does: its subscriptions not yet canceled are canceled first
     * (each with `customer.subscription.deleted`), then the customer becomes a tombstone (still retrievable
     * in its deleted form) in one write with the deletion of its sources and `customer.deleted`. The
     * tombstone is written on the version read, after the cancellations: a subscription created meanwhile
     * moved that version (see the subscription store), so the delete starts over and cancels it too.
     * A deleted customer is 404 here, as a second delete is in the reference.
     */
    delete(origin: EventOrigin, id: string): Promise<Customer> {
      return withOptimisticRetries(async () => {
        const current = await existing(origin.scope, id);
        const onClock = current.testClock === null ? undefined : await clocks?.get(origin.scope, current.testClock);
        if (onClock?.status === 'advancing') throw testClockAdvancing(onClock.id);
        const [sources] = await Promise.all([
          current.sourceCount > 0 ? repository.listSources(origin.scope, id, { limit: 100 }).then((page) => page.items) : [],
          subscriptions.cancelAllOf(origin, id),
        ]);
        const outbox = events.prepare(origin, [change('customer.deleted', current)]);
        const clockChange = onClock && { id: onClock.id, version: onClock.version, customers: onClock.customers.filter((other) => other !== id) };
        if (!(await repository.deleteWithSources(current, sources, outbox, clock(), clockChange))) return undefined;
        await events.dispatch(outbox);
        return current;
      });
    },

    /** Live customers, newest first: `email` exactly as stored (case-sensitive, as the reference), `created` a window. */
    list(scope: Scope, page: PageRequest, filters: CustomerListFilters = {}): Promise<Page<Customer>> {
      return repository.list(scope, page, filters);
    },

    /** The customer's cards and bank accounts, newest first; `object` keeps one kind. */
    async listSources(scope: Scope, customerId: string, page: PageRequest, object?: string): Promise<Page<CustomerSource>> {
      const [, sources] = await Promise.all([existing(scope, customerId), repository.listSources(scope, customerId, page, object ? { object } : undefined)]);
      return sources;
    },

    /**
     * Attaches a card or bank account made from a token (used up in the same write); it becomes the
     * default when the customer has none. Emits `customer.source.created` (and `customer.updated` for
     * the new default).
     */
    createSource(origin: EventOrigin, customerId: string, params: CreateSourceParams): Promise<CustomerSource> {
      return withOptimisticRetries(async () => {
        const now = clock();
        const [current, token] = await Promise.all([existing(origin.scope, customerId), tokens.get(origin.scope, params.source, now)]);
        const source = sourceOf(usableToken(token, params.source), current, 'source', params.metadata ? mergeMetadata({}, params.metadata) : {}, now);
        if (current.sourceCount >= maxSourcesPerCustomer) throw tooManySources();
        const next: Customer = {
          ...current,
          version: current.version + 1,
          sourceCount: current.sourceCount + 1,
          defaultSource: current.defaultSource ?? source.id,
        };
        return write(origin, source, { customer: next, token: useOf(current.scope, token!.id, source.object, now), attach: source }, [
          sourceEvent('customer.source.created', source),
          ...(next.defaultSource !== current.defaultSource ? [change('customer.updated', next, current)] : []),
        ]);
      });
    },

    async retrieveSource(scope: Scope, customerId: string, sourceId: string): Promise<CustomerSource> {
      return (await sourceOfCustomer(scope, customerId, sourceId)).source;
    },

    /** A card's name, address and expiry, a bank account's holder name and type, and either's metadata. Emits `customer.source.updated`. */
    updateSource(origin: EventOrigin, customerId: string, sourceId: string, params: UpdateSourceParams): Promise<CustomerSource> {
      return withOptimisticRetries(async () => {
        const { source: current } = await sourceOfCustomer(origin.scope, customerId, sourceId);
        const foreign = (current.object === 'card' ? bankAccountFields : cardFields).find((field) => params[field] !== undefined);
        if (foreign)
          throw new InvalidRequestError(
            `Received unknown parameter: ${foreign} (a ${current.object.replace('_', ' ')} has no such field).`,
            'parameter_unknown',
            foreign,
          );
        const metadata = params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata);
        let next: CustomerSource;
        if (current.object === 'card') {
          const pick = <V>(value: V | undefined, fallback: V) => (value === undefined ? fallback : value);
          const { card } = current;
          const expMonth = params.exp_month ?? card.expMonth;
          const expYear = params.exp_year ?? card.expYear;
          const today = new Date(clock());
          if (params.exp_month !== undefined || params.exp_year !== undefined) {
            if (expYear < today.getUTCFullYear() || expYear > today.getUTCFullYear() + 50) {
              throw new CardError("Your card's expiration year is invalid.", 'invalid_expiry_year', 'exp_year');
            }
            if (expYear === today.getUTCFullYear() && expMonth < today.getUTCMonth() + 1) {
              throw new CardError("Your card's expiration month is invalid.", 'invalid_expiry_month', 'exp_month');
            }
          }
          const address = {
            city: pick(params.address_city, card.address.city),
            country: pick(params.address_country, card.address.country),
            line1: pick(params.address_line1, card.address.line1),
            line2: pick(params.address_line2, card.address.line2),
            state: pick(params.address_state, card.address.state),
            zip: pick(params.address_zip, card.address.zip),
          };
          next = { ...current, version: current.version + 1, metadata, card: { ...card, name: pick(params.name, card.name), expMonth, expYear, address } };
        } else {
          const { bankAccount } = current;
          next = {
            ...current,
            version: current.version + 1,
            metadata,
            bankAccount: {
              ...bankAccount,
              accountHolderName: params.account_holder_name === undefined ? bankAccount.accountHolderName : params.account_holder_name,
              accountHolderType: params.account_holder_type ?? bankAccount.accountHolderType,
            },
          };
        }
        const outbox = events.prepare(origin, [sourceEvent('customer.source.updated', next, current)]);
        if (!(await repository.replaceSource(next, outbox))) return undefined;
        await events.dispatch(outbox);
        return next;
      });
    },

    /**
     * Verifies a bank account with the two micro-deposit amounts. None are sent here: test mode takes the
     * reference's test amounts, 32 and 45 (in either order); anything else, and live mode, answers 400
     * `bank_account_verification_failed`. Emits `customer.source.updated`.
     */
    verifySource(origin: EventOrigin, customerId: string, sourceId: string, params: VerifySourceParams): Promise<CustomerSource> {
      return withOptimisticRetries(async () => {
        const { source: current } = await sourceOfCustomer(origin.scope, customerId, sourceId);
        if (current.object !== 'bank_account') {
          throw new InvalidRequestError(`The source ${sourceId} is a card; only bank accounts are verified with micro-deposit amounts.`, 'parameter_invalid');
        }
        if (current.status === 'verified') throw new InvalidRequestError('This bank account has already been verified.', 'bank_account_verified');
        const [first, second] = [...params.amounts].sort((a, b) => a - b);
        if (origin.scope.livemode || first !== testDepositAmounts[0] || second !== testDepositAmounts[1]) {
          throw new InvalidRequestError(
            'The amounts provided do not match the amounts that were sent to the bank account.',
            'bank_account_verification_failed',
            'amounts',
          );
        }
        const next: CustomerSource = { ...current, version: current.version + 1, status: 'verified' };
        const outbox = events.prepare(origin, [sourceEvent('customer.source.updated', next, current)]);
        if (!(await repository.replaceSource(next, outbox))) return undefined;
        await events.dispatch(outbox);
        return next;
      });
    },

    /**
     * Removes a source; if it was the default, the most recently added other source becomes the default
     * (none left: null), as the reference does. Emits `customer.source.deleted` (and `customer.updated`).
     */
    deleteSource(origin: EventOrigin, customerId: string, sourceId: string): Promise<CustomerSource> {
      return withOptimisticRetries(async () => {
        const { customer: current, source } = await sourceOfCustomer(origin.scope, customerId, sourceId);
        let defaultSource = current.defaultSource;
        if (defaultSource === sourceId) {
          const newest = await repository.listSources(origin.scope, customerId, { limit: 2 });
          defaultSource = newest.items.find((other) => other.id !== sourceId)?.id ?? null;
        }
        const next: Customer = { ...current, version: current.version + 1, sourceCount: Math.max(0, current.sourceCount - 1), defaultSource };
        return write(origin, source, { customer: next, detach: [source] }, [
          sourceEvent('customer.source.deleted', source),
          ...(defaultSource !== current.defaultSource ? [change('customer.updated', next, current)] : []),
        ]);
      });
    },
  };
}
