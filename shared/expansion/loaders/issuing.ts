import {
  dynamoAuthorizationRepository,
  dynamoCardholderRepository,
  dynamoCardRepository,
  dynamoTransactionRepository,
} from '#shared/data/issuing-repository.ts';
import { serviceTable } from '#shared/data/table.ts';
import type { AuthorizationRepository } from '#shared/issuing/authorization.ts';
import type { CardRepository } from '#shared/issuing/card.ts';
import type { CardholderRepository } from '#shared/issuing/cardholder.ts';
import { serializeAuthorization, serializeCard, serializeCardholder } from '#shared/issuing/serializers.ts';
import { type TransactionRepository, transactionsOf } from '#shared/issuing/transaction.ts';
import { getAll, idOf, idsOf, type LoaderGroup } from './common.ts';

export interface IssuingExpansionPorts {
  cards: Pick<CardRepository, 'get'>;
  cardholders: Pick<CardholderRepository, 'get'>;
  authorizations: Pick<AuthorizationRepository, 'get'>;
  transactions: Pick<TransactionRepository, 'get'>;
}

/** Issuing cardholders, cards and authorizations. */
export function issuingLoaders(ports: IssuingExpansionPorts): LoaderGroup {
  return {
    objects: {
      'issuing.cardholder': async (scope, refs) =>
        (await getAll(ports.cardholders, scope, idsOf(refs))).map((cardholder) => cardholder && serializeCardholder(cardholder)),
      // A card shows its cardholder: the holder's cardholder (the card's own) is read in the same batch.
      'issuing.card': async (scope, refs) => {
        const hinted = [...new Set(refs.map(({ holder }) => idOf(holder.cardholder)).filter((id): id is string => id !== undefined))];
        const [cards, prefetched] = await Promise.all([getAll(ports.cards, scope, idsOf(refs)), getAll(ports.cardholders, scope, hinted)]);
        const cardholders = new Map(prefetched.flatMap((cardholder) => (cardholder ? [[cardholder.id, cardholder] as const] : [])));
        const unknown = [...new Set(cards.flatMap((card) => (card && !cardholders.has(card.cardholderId) ? [card.cardholderId] : [])))];
        for (const cardholder of await getAll(ports.cardholders, scope, unknown)) if (cardholder) cardholders.set(cardholder.id, cardholder);
        return cards.map((card) => {
          const cardholder = card && cardholders.get(card.cardholderId);
          return card && cardholder ? serializeCard(card, cardholder) : undefined;
        });
      },
      // An authorization shows its transactions: a second batched read, for all the level's authorizations at once.
      'issuing.authorization': async (scope, refs) => {
        const authorizations = await getAll(ports.authorizations, scope, idsOf(refs));
        const transactions = await Promise.all(authorizations.map((authorization) => (authorization ? transactionsOf(ports.transactions, authorization) : [])));
        return authorizations.map((authorization, index) => authorization && serializeAuthorization(authorization, transactions[index]!));
      },
    },
    included: {},
  };
}

/** The group on the real repositories, for `wireExpander`. */
export const issuingExpansions = (): LoaderGroup => {
  const table = serviceTable();
  return issuingLoaders({
    cards: dynamoCardRepository(table),
    cardholders: dynamoCardholderRepository(table),
    authorizations: dynamoAuthorizationRepository(table),
    transactions: dynamoTransactionRepository(table),
  });
};
