import { systemClock } from '#shared/core/clock.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { changeAndEmit } from '#shared/events/versioned-change.ts';
import { mergeMetadata } from '#shared/wire/metadata.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';
import { newId } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Cardholder, CardholderIndividual, CardholderRepository } from './cardholder.ts';
import type { CreateCardholderParams, IndividualParams, ListCardholdersParams, UpdateCardholderParams } from './schemas.ts';
import { serializeCardholder } from './serializers.ts';

export interface CardholderServicePorts {
  repository: CardholderRepository;
  events: EventEmitter;
  clock?: () => number;
}

/** `individual` from request parameters over what the cardholder already has: fields given replace, the others stay. */
function individualOf(given: IndividualParams, base: CardholderIndividual | null = null): CardholderIndividual {
  const terms = given.card_issuing?.user_terms_acceptance;
  const baseTerms = base?.card_issuing?.user_terms_acceptance ?? null;
  return {
    card_issuing:
      given.card_issuing || base?.card_issuing
        ? {
            user_terms_acceptance:
              terms || baseTerms
                ? {
                    date: terms?.date ?? baseTerms?.date ?? null,
                    ip: terms?.ip ?? baseTerms?.ip ?? null,
                    user_agent: terms?.user_agent ?? baseTerms?.user_agent ?? null,
                  }
                : null,
          }
        : null,
    dob: given.dob ? { day: given.dob.day, month: given.dob.month, year: given.dob.year } : (base?.dob ?? null),
    first_name: given.first_name ?? base?.first_name ?? null,
    last_name: given.last_name ?? base?.last_name ?? null,
    verification: null,
  };
}

/** The details of the other type would be silently meaningless: refused on create and update alike. */
function checkTypeDetails(type: Cardholder['type'], params: Pick<UpdateCardholderParams, 'company' | 'individual'>): void {
  if (type === 'individual' && params.company) {
    throw new InvalidRequestError('company can only be given for a cardholder of type company.', 'parameter_invalid', 'company');
  }
  if (type === 'company' && params.individual) {
    throw new InvalidRequestError('individual can only be given for a cardholder of type individual.', 'parameter_invalid', 'individual');
  }
}

const addressOf = (address: NonNullable<UpdateCardholderParams['billing']>['address']): Cardholder['billingAddress'] => ({
  city: address.city,
  country: address.country,
  line1: address.line1,
  line2: address.line2 ?? null,
  postal_code: address.postal_code,
  state: address.state ?? null,
});

const change = (type: string, cardholder: Cardholder, before?: Cardholder) =>
  snapshotInput(type, serializeCardholder(cardholder), `/v1/issuing/cardholders/${cardholder.id}`, before ? serializeCardholder(before) : undefined);

/** Issuing cardholders: created, updated, retrieved and listed, with `issuing_cardholder.created` and `.updated`. */
export function cardholderService({ repository, events, clock = systemClock }: CardholderServicePorts) {
  async function existing(scope: Scope, id: string): Promise<Cardholder> {
    const cardholder = await repository.get(scope, id);
    if (!cardholder) throw new NotFoundError('cardholder', id);
    return cardholder;
  }

  return {
    async create(origin: EventOrigin, params: CreateCardholderParams): Promise<Cardholder> {
      const type = params.type ?? 'individual';
      checkTypeDetails(type, params);
      const now = clock();
      const cardholder: Cardholder = {
        id: newId('ich', now),
        scope: origin.scope,
        created: now,
        name: params.name,
        type,
        status: params.status ?? 'active',
        email: params.email ?? null,
        phoneNumber: params.phone_number ?? null,
        billingAddress: addressOf(params.billing.address),
        company: type === 'company' ? { tax_id_provided: Boolean(params.company?.tax_id) } : null,
        individual: params.individual ? individualOf(params.individual) : null,
        preferredLocales: params.preferred_locales ?? null,
        metadata: Object.fromEntries(Object.entries(params.metadata ?? {}).filter(([, value]) => value !== '')),
        version: 1,
      };
      const outbox = events.prepare(origin, [change('issuing_cardholder.created', cardholder)]);
      await repository.create(cardholder, { outbox });
      await events.dispatch(outbox);
      return cardholder;
    },

    /**
     * Changes what the request gives (as create takes it; `name` and `type` stay as created) and emits
     * `issuing_cardholder.updated`. A cardholder the platform blocked cannot be made active or inactive.
     */
    update(origin: EventOrigin, id: string, params: UpdateCardholderParams): Promise<Cardholder> {
      return changeAndEmit(
        { repository, events },
        origin,
        () => existing(origin.scope, id),
        (current) => {
          checkTypeDetails(current.type, params);
          if (params.status !== undefined && current.status === 'blocked') {
            throw new InvalidRequestError(`The cardholder ${current.id} is blocked, and its status cannot be changed.`, 'parameter_invalid', 'status');
          }
          return {
            ...current,
            status: params.status ?? current.status,
            email: params.email ?? current.email,
            phoneNumber: params.phone_number ?? current.phoneNumber,
            billingAddress: params.billing ? addressOf(params.billing.address) : current.billingAddress,
            company: params.company?.tax_id ? { tax_id_provided: true } : current.company,
            individual: params.individual ? individualOf(params.individual, current.individual) : current.individual,
            preferredLocales: params.preferred_locales ?? current.preferredLocales,
            metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
          };
        },
        (next, current) => [change('issuing_cardholder.updated', next, current)],
      );
    },

    retrieve: existing,

    list(scope: Scope, page: PageRequest, params: ListCardholdersParams): Promise<Page<Cardholder>> {
      return repository.list(scope, {
        page,
        where: { email: params.email, phoneNumber: params.phone_number, status: params.status, type: params.type },
        created: params.created,
      });
    },
  };
}
