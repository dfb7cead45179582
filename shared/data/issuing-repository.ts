import type { Authorization, AuthorizationRepository } from '#shared/issuing/authorization.ts';
import type { CardRepository, IssuingCard } from '#shared/issuing/card.ts';
import type { Cardholder, CardholderRepository } from '#shared/issuing/cardholder.ts';
import type { IssuingRepository } from '#shared/issuing/repository.ts';
import { idBoundAt } from '#shared/ids.ts';
import type { OwnedResource } from '#shared/owned-resource.ts';
import { envelopeOf } from './item-schemas.ts';
import type { Table } from './table.ts';
import { issuingAuthorization, issuingCard, issuingCardholder } from './keys.ts';
import { ownedResourceStore, type OwnedResourceKeys } from './owned-resources.ts';
import { collect } from './owner-page.ts';

/**
 * An issuing kind in its owner's partition: writes through `ownedResourceStore` (conditional on the
 * version, with the change's outbox), lists newest first. Ids are time-ordered, so a `created` window is
 * a sort-key range (`SK BETWEEN`); equality filters (card, cardholder, status, …) are a FilterExpression.
 */
function issuingStore<T extends OwnedResource>(table: Table, entity: string, keys: OwnedResourceKeys, idPrefix: string): IssuingRepository<T> {
  const fromItem = envelopeOf<T>();
  const { create, get, replace } = ownedResourceStore<T>(table, { entity, keys, parse: fromItem });
  return {
    create,
    get,
    replace,
    async list(scope, { page, where = {}, created }) {
      const pk = keys.pk(scope);
      const prefix = keys.skPrefix();
      const lo = created?.from === undefined ? prefix : `${prefix}${idBoundAt(idPrefix, created.from)}`;
      const hi = created?.to === undefined ? `${prefix}~` : `${prefix}${idBoundAt(idPrefix, created.to, true)}`;
      // An empty window (gt after lt): DynamoDB would refuse BETWEEN with its bounds reversed.
      if (lo > hi) return { items: [], hasMore: false };
      const filters = Object.entries(where).filter(([, value]) => value !== undefined);
      const forward = page.endingBefore !== undefined;
      const cursorId = page.endingBefore ?? page.startingAfter;
      // DynamoDB refuses a start key outside the key condition: a cursor beyond the range means "all of
      // it" on one side and "nothing" on the other.
      let startSk = cursorId === undefined ? undefined : keys.sk(cursorId);
      if (startSk !== undefined && (forward ? startSk >= hi : startSk <= lo)) return { items: [], hasMore: false };
      if (startSk !== undefined && (forward ? startSk < lo : startSk > hi)) startSk = undefined;
      const result = await collect(
        table,
        {
          TableName: table.name,
          KeyConditionExpression: 'PK = :pk AND SK BETWEEN :lo AND :hi',
          ExpressionAttributeValues: { ':pk': pk, ':lo': lo, ':hi': hi, ...Object.fromEntries(filters.map(([, value], i) => [`:w${i}`, value])) },
          ...(filters.length
            ? {
                FilterExpression: filters.map((_, i) => `#w${i} = :w${i}`).join(' AND '),
                ExpressionAttributeNames: Object.fromEntries(filters.map(([name], i) => [`#w${i}`, name])),
              }
            : {}),
          ScanIndexForward: forward,
          ExclusiveStartKey: startSk === undefined ? undefined : { PK: pk, SK: startSk },
        },
        page.limit,
      );
      const items = result.items.map(fromItem);
      return { items: forward ? items.reverse() : items, hasMore: result.hasMore };
    },
  };
}

export const dynamoCardholderRepository = (table: Table): CardholderRepository =>
  issuingStore<Cardholder>(table, 'issuing_cardholder', issuingCardholder, 'ich');

export const dynamoCardRepository = (table: Table): CardRepository => issuingStore<IssuingCard>(table, 'issuing_card', issuingCard, 'ic');

export const dynamoAuthorizationRepository = (table: Table): AuthorizationRepository =>
  issuingStore<Authorization>(table, 'issuing_authorization', issuingAuthorization, 'iauth');
