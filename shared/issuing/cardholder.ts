import type { Address } from '#shared/customers/customer.ts';
import type { OwnedResource } from '#shared/platform/owned-resource.ts';
import type { IssuingRepository } from './repository.ts';

/** The v1 address shape, the same as a customer's. */
export type IssuingAddress = Address;

/** `individual` in API shape (identity documents are not taken, so `verification` is always null). */
export interface CardholderIndividual {
  card_issuing: { user_terms_acceptance: { date: number | null; ip: string | null; user_agent: string | null } | null } | null;
  dob: { day: number | null; month: number | null; year: number | null } | null;
  first_name: string | null;
  last_name: string | null;
  verification: null;
}

/** An issuing cardholder: who the cards of a card program belong to. */
export interface Cardholder extends OwnedResource {
  created: number;
  name: string;
  type: 'individual' | 'company';
  /** `blocked` is set by the platform only (never by a request). */
  status: 'active' | 'inactive' | 'blocked';
  email: string | null;
  phoneNumber: string | null;
  billingAddress: IssuingAddress;
  company: { tax_id_provided: boolean } | null;
  individual: CardholderIndividual | null;
  preferredLocales: string[] | null;
  metadata: Record<string, string>;
}

export type CardholderRepository = IssuingRepository<Cardholder>;
