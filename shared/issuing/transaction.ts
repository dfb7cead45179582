import { InvalidRequestError } from '#shared/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventInput, Outbox } from '#shared/events/event.ts';
import type { OwnedResource } from '#shared/owned-resource.ts';
import type { AmountDetails, Authorization, Fleet, MerchantData } from './authorization.ts';
import type { IssuingRepository } from './repository.ts';
import { serializeTransaction } from './serializers.ts';

/** `purchase_details.fleet`: an authorization's `fleet` without the prompt's `alphanumeric_id`, which the network fills in itself. */
export type PurchaseFleet = Omit<Fleet, 'cardholder_prompt_data'> & {
  cardholder_prompt_data: Omit<NonNullable<Fleet['cardholder_prompt_data']>, 'alphanumeric_id'> | null;
};

/** `purchase_details` in API shape: what the merchant reported with the capture. */
export interface PurchaseDetails {
  fleet: PurchaseFleet | null;
  flight: {
    departure_at: number | null;
    passenger_name: string | null;
    refundable: boolean | null;
    segments: Array<{
      arrival_airport_code: string | null;
      carrier: string | null;
      departure_airport_code: string | null;
      flight_number: string | null;
      service_class: string | null;
      stopover_allowed: boolean | null;
    }> | null;
    travel_agency: string | null;
  } | null;
  fuel: {
    industry_product_code: string | null;
    quantity_decimal: string | null;
    type: string;
    unit: string;
    unit_cost_decimal: string | null;
  } | null;
  lodging: { check_in_at: number | null; nights: number | null } | null;
  receipt: Array<{ description: string | null; quantity: number | null; total: number | null; unit_cost: number | null }> | null;
  reference: string | null;
}

/**
 * An issuing transaction (`ipi_…`): money that moved on a card. Amounts are signed as the reference
 * shows them, from the balance's point of view: a capture takes money out (negative), a refund brings it
 * back (positive).
 */
export interface IssuingTransaction extends OwnedResource {
  created: number;
  type: 'capture' | 'refund';
  authorizationId: string | null;
  cardId: string;
  cardholderId: string | null;
  amount: number;
  amountDetails: AmountDetails | null;
  currency: string;
  merchantAmount: number;
  merchantCurrency: string;
  merchantData: MerchantData;
  networkData: { authorization_code: string | null; processing_date: string | null; transaction_id: string | null };
  purchaseDetails: PurchaseDetails | null;
  wallet: string | null;
  metadata: Record<string, string>;
  /** A capture's part refunded so far (positive, minor units): refunds never give back more than it took. */
  refundedAmount: number;
  /** The capture a refund gives back (not shown: the reference's transaction object has no such field). */
  refundOf: string | null;
}

/**
 * One change of an authorization with the transactions it makes: the authorization replaced on its
 * version (when given), `created` put if absent, `replaced` written on their versions.
 */
export interface TransactionChange {
  authorization?: Authorization;
  created: IssuingTransaction[];
  replaced?: IssuingTransaction[];
}

export interface TransactionRepository extends IssuingRepository<IssuingTransaction> {
  /**
   * Writes a `TransactionChange` with the change's outbox, all or nothing (one DynamoDB transaction): a
   * capture never leaves an authorization closed without its transaction, nor a refund a transaction its
   * capture does not count. False when any object was changed by someone else first (nothing written).
   */
  record(change: TransactionChange, outbox: Outbox): Promise<boolean>;
}

/**
 * Most transactions (captures and refunds) one authorization makes: the authorization shows them all,
 * inline, in its object and its events.
 */
export const maxTransactionsPerAuthorization = 50;

/** Refuses one more transaction on an authorization that already shows as many as it may. */
export function checkTransactionRoom(authorization: Authorization): void {
  if (authorization.transactionIds.length >= maxTransactionsPerAuthorization) {
    throw new InvalidRequestError(
      `The authorization ${authorization.id} already has ${maxTransactionsPerAuthorization} transactions, the most this service keeps for one authorization.`,
      'parameter_invalid',
    );
  }
}

/** An authorization's transactions, oldest first: one batched read, none when it has none. */
export async function transactionsOf(repository: Pick<TransactionRepository, 'get'>, authorization: Authorization): Promise<IssuingTransaction[]> {
  const found = await Promise.all(authorization.transactionIds.map((id) => repository.get(authorization.scope, id)));
  return found.filter((transaction): transaction is IssuingTransaction => transaction !== undefined);
}

const transactionUrl = (transaction: IssuingTransaction) => `/v1/issuing/transactions/${transaction.id}`;

export const transactionCreated = (transaction: IssuingTransaction): EventInput =>
  snapshotInput('issuing_transaction.created', serializeTransaction(transaction), transactionUrl(transaction));

export const transactionUpdated = (transaction: IssuingTransaction, before: IssuingTransaction): EventInput =>
  snapshotInput('issuing_transaction.updated', serializeTransaction(transaction), transactionUrl(transaction), serializeTransaction(before));
