import type { OwnedResourceStore } from '#shared/owned-resource.ts';
import type { Scope } from '#shared/platform/types.ts';

export interface Address {
  city: string | null;
  country: string | null;
  line1: string | null;
  line2: string | null;
  postal_code: string | null;
  state: string | null;
}

export interface Shipping {
  address: Address;
  name: string;
  phone: string | null;
}

/** A v1 customer as the service keeps it (the fields of the API object that this service manages). */
export interface Customer {
  id: string;
  scope: Scope;
  created: number;
  name: string | null;
  email: string | null;
  description: string | null;
  phone: string | null;
  address: Address | null;
  shipping: Shipping | null;
  /** Integer minor units; negative is credit. */
  balance: number;
  invoicePrefix: string;
  nextInvoiceSequence: number;
  preferredLocales: string[];
  taxExempt: 'exempt' | 'none' | 'reverse';
  metadata: Record<string, string>;
  version: number;
}

export type CustomerRepository = OwnedResourceStore<Customer>;
