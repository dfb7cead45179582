import { systemClock } from '#shared/core/clock.ts';
import { randomInt } from 'node:crypto';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { changeAndEmit } from '#shared/events/versioned-change.ts';
import { mergeMetadata } from '#shared/wire/metadata.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';
import { newId } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { CardRepository, IssuingCard } from './card.ts';
import type { Cardholder, CardholderRepository } from './cardholder.ts';
import type { CreateCardParams, ListCardsParams, UpdateCardParams } from './schemas.ts';
import { serializeCard } from './serializers.ts';

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

const cardChange = (type: string, { card, cardholder }: CardWithHolder, before?: IssuingCard) =>
  snapshotInput(type, serializeCard(card, cardholder), `/v1/issuing/cards/${card.id}`, before ? serializeCard(before, cardholder) : undefined);

/**
 * A card's next state under an update: `active` ⇄ `inactive` freely; `canceled` is final (the reference
 * never reactivates a canceled card: a new card replaces it), and `cancellation_reason` goes with it and
 * is final with it (the same reason again is no change; another is refused).
 */
function updated(current: IssuingCard, params: UpdateCardParams): IssuingCard {
  const status = params.status ?? current.status;
  if (current.status === 'canceled' && status !== 'canceled') {
    throw new InvalidRequestError(
      `The card ${current.id} has been canceled, and a canceled card cannot be reactivated or made inactive. Create a new card instead.`,
      'parameter_invalid',
      'status',
    );
  }
  if (current.status === 'canceled' && params.cancellation_reason !== undefined && params.cancellation_reason !== current.cancellationReason) {
    throw new InvalidRequestError(
      `The card ${current.id} has been canceled${current.cancellationReason ? ` (${current.cancellationReason})` : ''}, and a canceled card cannot be changed: its cancellation_reason is final.`,
      'parameter_invalid',
      'cancellation_reason',
    );
  }
  if (params.cancellation_reason !== undefined && status !== 'canceled') {
    throw new InvalidRequestError(
      'cancellation_reason can only be given when the card is canceled (status=canceled).',
      'parameter_invalid',
      'cancellation_reason',
    );
  }
  return {
    ...current,
    status,
    cancellationReason: params.cancellation_reason ?? current.cancellationReason,
    metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
  };
}

/** Issuing cards of a cardholder: Visa, a random last4, `issuing_card.created`; status and metadata updates with `issuing_card.updated`. */
export function cardService({ repository, cardholders, events, clock = systemClock }: CardServicePorts) {
  async function existing(scope: Scope, id: string): Promise<IssuingCard> {
    const card = await repository.get(scope, id);
    if (!card) throw new NotFoundError('card', id);
    return card;
  }

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
        cancellationReason: null,
        metadata: Object.fromEntries(Object.entries(params.metadata ?? {}).filter(([, value]) => value !== '')),
        version: 1,
      };
      const outbox = events.prepare(origin, [cardChange('issuing_card.created', { card, cardholder })]);
      await repository.create(card, { outbox });
      await events.dispatch(outbox);
      return { card, cardholder };
    },

    async retrieve(scope: Scope, id: string): Promise<CardWithHolder> {
      const card = await existing(scope, id);
      return { card, cardholder: await holderOf(card) };
    },

    /** Status (see `updated`) and metadata, with `issuing_card.updated`; the card shows its cardholder as it is now. */
    async update(origin: EventOrigin, id: string, params: UpdateCardParams): Promise<CardWithHolder> {
      let cardholder: Cardholder | undefined;
      const card = await changeAndEmit(
        { repository, events },
        origin,
        async () => {
          const current = await existing(origin.scope, id);
          // A card never changes holder: read once, not on every retry.
          cardholder ??= await holderOf(current);
          return current;
        },
        (current) => updated(current, params),
        (next, current) => [cardChange('issuing_card.updated', { card: next, cardholder: cardholder! }, current)],
      );
      return { card, cardholder: cardholder! };
    },

    async list(scope: Scope, request: PageRequest, params: ListCardsParams): Promise<Page<CardWithHolder>> {
      const page = await repository.list(scope, {
        page: request,
        where: { cardholderId: params.cardholder, status: params.status, type: params.type },
        created: params.created,
      });
      // The gets of one page go out as one BatchGetItem (Table.get coalesces them).
      const items = await Promise.all(page.items.map(async (card) => ({ card, cardholder: await holderOf(card) })));
      return { items, hasMore: page.hasMore };
    },
  };
}
