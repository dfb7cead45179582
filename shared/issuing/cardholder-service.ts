import { InvalidRequestError, NotFoundError } from '#shared/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import type { Page, PageRequest } from '#shared/paging.ts';
import { newId } from '#shared/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Cardholder, CardholderIndividual, CardholderRepository } from './cardholder.ts';
import type { CreateCardholderParams, ListCardholdersParams } from './schemas.ts';
import { serializeCardholder } from './serializers.ts';
import { createdWindow } from './repository.ts';

export interface CardholderServicePorts {
  repository: CardholderRepository;
  events: EventEmitter;
  clock?: () => number;
}

function individualOf(given: NonNullable<CreateCardholderParams['individual']>): CardholderIndividual {
  const terms = given.card_issuing?.user_terms_acceptance;
  return {
    card_issuing: given.card_issuing
      ? { user_terms_acceptance: terms ? { date: terms.date ?? null, ip: terms.ip ?? null, user_agent: terms.user_agent ?? null } : null }
      : null,
    dob: given.dob ? { day: given.dob.day, month: given.dob.month, year: given.dob.year } : null,
    first_name: given.first_name ?? null,
    last_name: given.last_name ?? null,
    verification: null,
  };
}

/** Issuing cardholders: created, retrieved and listed, with `issuing_cardholder.created`. */
export function cardholderService({ repository, events, clock = Date.now }: CardholderServicePorts) {
  return {
    async create(origin: EventOrigin, params: CreateCardholderParams): Promise<Cardholder> {
      const type = params.type ?? 'individual';
      // The details of the other type would be silently meaningless.
      if (type === 'individual' && params.company) {
        throw new InvalidRequestError('company can only be given for a cardholder of type company.', 'parameter_invalid', 'company');
      }
      if (type === 'company' && params.individual) {
        throw new InvalidRequestError('individual can only be given for a cardholder of type individual.', 'parameter_invalid', 'individual');
      }
      const now = clock();
      const { address } = params.billing;
      const cardholder: Cardholder = {
        id: newId('ich', now),
        scope: origin.scope,
        created: now,
        name: params.name,
        type,
        status: params.status ?? 'active',
        email: params.email ?? null,
        phoneNumber: params.phone_number ?? null,
        billingAddress: {
          city: address.city,
          country: address.country,
          line1: address.line1,
          line2: address.line2 ?? null,
          postal_code: address.postal_code,
          state: address.state ?? null,
        },
        company: type === 'company' ? { tax_id_provided: Boolean(params.company?.tax_id) } : null,
        individual: params.individual ? individualOf(params.individual) : null,
        preferredLocales: params.preferred_locales ?? null,
        metadata: Object.fromEntries(Object.entries(params.metadata ?? {}).filter(([, value]) => value !== '')),
        version: 1,
      };
      const outbox = events.prepare(origin, [
        snapshotInput('issuing_cardholder.created', serializeCardholder(cardholder), `/v1/issuing/cardholders/${cardholder.id}`),
      ]);
      await repository.create(cardholder, { outbox });
      await events.dispatch(outbox);
      return cardholder;
    },

    async retrieve(scope: Scope, id: string): Promise<Cardholder> {
      const cardholder = await repository.get(scope, id);
      if (!cardholder) throw new NotFoundError('cardholder', id);
      return cardholder;
    },

    list(scope: Scope, page: PageRequest, params: ListCardholdersParams): Promise<Page<Cardholder>> {
      return repository.list(scope, {
        page,
        where: { email: params.email, phoneNumber: params.phone_number, status: params.status, type: params.type },
        created: createdWindow(params.created),
      });
    },
  };
}
