import { randomInt } from 'node:crypto';
import { InvalidRequestError, NotFoundError } from '#shared/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import type { Page, PageRequest } from '#shared/paging.ts';
import { newId } from '#shared/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { CardRepository, IssuingCard } from './card.ts';
import type { Cardholder, CardholderRepository } from './cardholder.ts';
import type { CreateCardParams, ListCardsParams } from './schemas.ts';
import { serializeCard } from './serializers.ts';
import { createdWindow } from './repository.ts';

export interface CardServicePorts {
  repository: CardRepository;
  cardholders: Pick<CardholderRepository, 'get'>;
  events: EventEmitter;
  clock?: () => number;
}

/** A card with the cardholder it is embedded with in the API object. */
export interface CardWithHolder {
  card: IssuingCard;
  cardholder: Cardholder;
}

/** How long a new card is valid when the request does not say. */
const validityYears = 3;

/** Issuing cards of a cardholder: Visa, a random last4, `issuing_card.created`. */
export function cardService({ repository, cardholders, events, clock = Date.now }: CardServicePorts) {
  async function holderOf(card: IssuingCard): Promise<Cardholder> {
    const cardholder = await cardholders.get(card.scope, card.cardholderId);
    // Cardholders are never deleted, so this is a broken invariant rather than a client error.
    if (!cardholder) throw new Error(`Cardholder ${card.cardholderId} of card ${card.id} is missing`);
    return cardholder;
  }

  return {
    async create(origin: EventOrigin, params: CreateCardParams): Promise<CardWithHolder> {
      const cardholder = await cardholders.get(origin.scope, params.cardholder);
      if (!cardholder) throw new InvalidRequestError(`No such cardholder: '${params.cardholder}'`, 'resource_missing', 'cardholder');
      const now = clock();
      const today = new Date(now);
      const expYear = params.exp_year ?? today.getUTCFullYear() + validityYears;
      const expMonth = params.exp_month ?? today.getUTCMonth() + 1;
      if (expYear < today.getUTCFullYear()) {
        throw new InvalidRequestError('The card expiry (exp_month, exp_year) cannot be in the past.', 'invalid_expiry_year', 'exp_year');
      }
      if (expYear === today.getUTCFullYear() && expMonth < today.getUTCMonth() + 1) {
        throw new InvalidRequestError('The card expiry (exp_month, exp_year) cannot be in the past.', 'invalid_expiry_month', 'exp_month');
      }
      const card: IssuingCard = {
        id: newId('ic', now),
        scope: origin.scope,
        created: now,
        cardholderId: cardholder.id,
        currency: params.currency,
        type: params.type,
        // The reference's default: a new card cannot be used until it is activated.
        status: params.status ?? 'inactive',
        brand: 'Visa',
        last4: String(randomInt(0, 10_000)).padStart(4, '0'),
        expMonth,
        expYear,
        secondLine: params.second_line ?? null,
        metadata: Object.fromEntries(Object.entries(params.metadata ?? {}).filter(([, value]) => value !== '')),
        version: 1,
      };
      const outbox = events.prepare(origin, [snapshotInput('issuing_card.created', serializeCard(card, cardholder), `/v1/issuing/cards/${card.id}`)]);
      await repository.create(card, { outbox });
      await events.dispatch(outbox);
      return { card, cardholder };
    },

    async retrieve(scope: Scope, id: string): Promise<CardWithHolder> {
      const card = await repository.get(scope, id);
      if (!card) throw new NotFoundError('card', id);
      return { card, cardholder: await holderOf(card) };
    },

    async list(scope: Scope, request: PageRequest, params: ListCardsParams): Promise<Page<CardWithHolder>> {
      const page = await repository.list(scope, {
        page: request,
        where: { cardholderId: params.cardholder, status: params.status, type: params.type },
        created: createdWindow(params.created),
      });
      // The gets of one page go out as one BatchGetItem (Table.get coalesces them).
      const items = await Promise.all(page.items.map(async (card) => ({ card, cardholder: await holderOf(card) })));
      return { items, hasMore: page.hasMore };
    },
  };
}
