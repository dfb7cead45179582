import type { Authorization, AuthorizationRepository } from '#shared/issuing/authorization.ts';
import type { CardRepository, IssuingCard } from '#shared/issuing/card.ts';
import type { Cardholder, CardholderRepository } from '#shared/issuing/cardholder.ts';
import type { IssuingRepository } from '#shared/issuing/repository.ts';
import type { IssuingTransaction, TransactionChange, TransactionRepository } from '#shared/issuing/transaction.ts';
import type { OwnedResource } from '#shared/platform/owned-resource.ts';
import { envelopeOf } from './item-schemas.ts';
import type { Table } from './table.ts';
import { issuingAuthorization, issuingCard, issuingCardholder, issuingTransaction } from './keys.ts';
import { ownedEntity, ownedResourceStore, type OwnedKind, type OwnedResourceKeys } from './owned-resources.ts';
import { queryOwnerPage } from './owner-page.ts';
import { transactGuarded } from './transactions.ts';

/**
 * An issuing kind: its entity, keys and reader. Fields added since the first items were written read as
 * their `defaults` when an item lacks them (a card stored before cancellation reasons, an authorization
 * before transactions).
 */
function issuingKind<T extends OwnedResource>(entity: string, keys: OwnedResourceKeys, defaults: Partial<T> = {}): OwnedKind<T> {
  const envelope = envelopeOf<T>();
  return { entity, keys, parse: (item) => ({ ...defaults, ...envelope(item) }) };
}

const cardholderKind = issuingKind<Cardholder>('issuing_cardholder', issuingCardholder);
const cardKind = issuingKind<IssuingCard>('issuing_card', issuingCard, { cancellationReason: null });
const authorizationKind = issuingKind<Authorization>('issuing_authorization', issuingAuthorization, { transactionIds: [], refundBytes: 0 });
const transactionKind = issuingKind<IssuingTransaction>('issuing_transaction', issuingTransaction, { refundedMerchantAmount: 0 });

/** Issuing transactions and the authorizations they belong to, as `TransactionRepository.record` writes them (TABLE_DESIGN.md 15a). */
export const issuingTransactionEntity = {
  authorizations: ownedEntity(authorizationKind),
  transactions: ownedEntity(transactionKind),
  /**
   * One change of an authorization and its transactions: every versioned replace and put-if-absent first
   * (each a guarded condition), the change's outbox after them.
   */
  record(tableName: string, { authorization, created, replaced = [] }: TransactionChange) {
    const { authorizations, transactions } = issuingTransactionEntity;
    return [
      ...(authorization ? authorizations.replace(tableName, authorization) : []),
      ...replaced.flatMap((transaction) => transactions.replace(tableName, transaction)),
      ...created.flatMap((transaction) => transactions.create(tableName, transaction)),
    ];
  },
};

/**
 * An issuing kind in its owner's partition: writes through `ownedResourceStore` (conditional on the
 * version, with the change's outbox), lists newest first. Ids are time-ordered, so a `created` window is
 * a sort-key range (`SK BETWEEN`); equality filters (card, cardholder, status, …) are a FilterExpression.
 */
function issuingStore<T extends OwnedResource>(table: Table, kind: OwnedKind<T>, idPrefix: string): IssuingRepository<T> {
  const { keys, parse: fromItem } = kind;
  const { create, get, replace } = ownedResourceStore<T>(table, kind);
  return {
    create,
    get,
    replace,
    async list(scope, { page, where = {}, created }) {
      const result = await queryOwnerPage(table, {
        pk: keys.pk(scope),
        skPrefix: keys.skPrefix(),
        page,
        where,
        ...(created ? { created: { window: created, idPrefix } } : {}),
      });
      return { items: result.items.map(fromItem), hasMore: result.hasMore };
    },
  };
}

export const dynamoCardholderRepository = (table: Table): CardholderRepository => issuingStore(table, cardholderKind, 'ich');

export const dynamoCardRepository = (table: Table): CardRepository => issuingStore(table, cardKind, 'ic');

export const dynamoAuthorizationRepository = (table: Table): AuthorizationRepository => issuingStore(table, authorizationKind, 'iauth');

export function dynamoTransactionRepository(table: Table): TransactionRepository {
  return {
    ...issuingStore(table, transactionKind, 'ipi'),
    record(change, outbox) {
      const actions = issuingTransactionEntity.record(table.name, change);
      return transactGuarded(table, actions, outbox, { guarded: actions.length });
    },
  };
}
