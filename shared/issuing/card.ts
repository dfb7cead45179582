import type { OwnedResource } from '#shared/platform/owned-resource.ts';
import type { IssuingRepository } from './repository.ts';

/** An issuing card. The full number and CVC are not kept: only what the card object shows. */
export interface IssuingCard extends OwnedResource {
  created: number;
  cardholderId: string;
  currency: string;
  type: 'virtual' | 'physical';
  /** `canceled` is final: a canceled card is never active again. */
  status: 'active' | 'inactive' | 'canceled';
  /** Why it was canceled, when the request said (`lost` or `stolen`). */
  cancellationReason: 'lost' | 'stolen' | null;
  brand: 'Visa';
  last4: string;
  expMonth: number;
  expYear: number;
  secondLine: string | null;
  metadata: Record<string, string>;
}

export type CardRepository = IssuingRepository<IssuingCard>;
