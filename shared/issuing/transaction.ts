import { InvalidRequestError } from '#shared/core/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventInput, Outbox } from '#shared/events/event.ts';
import type { OwnedResource } from '#shared/platform/owned-resource.ts';
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
  /** The merchant amount its refunds gave back so far (positive): the refunds' `merchant_amount` add up to the capture's. */
  refundedMerchantAmount: number;
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
 * How many bytes an authorization's transactions may take as it shows them (`transactions`, inline in its
 * object and in every `issuing_authorization.updated`, twice in a capture's: in the object and in
 * `previous_attributes`). Captures (with their `purchase_details`) and the metadata of any of its
 * transactions share `transactionBytesPerAuthorization`; refunds, as they are created, have a room of
 * their own (`refundBytesPerAuthorization`), so a capture can be refunded whatever the captures took.
 * Together with `maxRequestHistory` this keeps an authorization's event well under DynamoDB's 400 KB item
 * limit, so what releases its hold (expire, reverse, metadata) always fits: only growth is refused.
 */
export const transactionBytesPerAuthorization = 96 * 1024;
export const refundBytesPerAuthorization = 32 * 1024;

/** The bytes `transactions` take rendered as an authorization shows them. */
export const renderedBytes = (transactions: readonly IssuingTransaction[]): number =>
  transactions.reduce((sum, transaction) => sum + Buffer.byteLength(JSON.stringify(serializeTransaction(transaction)), 'utf8'), 0);

/** What a refund takes of the refunds' room: its size as created (metadata given later counts with the captures'). */
export const refundRoomBytes = (refund: IssuingTransaction): number => renderedBytes([{ ...refund, metadata: {} }]);

const full = (authorization: Authorization, what: string, limit: number) =>
  new InvalidRequestError(
    `The transactions of the authorization ${authorization.id} are full: ${what} would take more than the ${limit / 1024} KB this service keeps for them (the authorization shows every transaction inline). Its hold can still be released (expire or reverse it).`,
    'authorization_transactions_full',
  );

/**
 * Refuses a change that makes an authorization's transactions (`after`, all of them as they would be)
 * larger than they were (`before`) and over `transactionBytesPerAuthorization`, refunds' own bytes aside.
 * A change that does not grow them is never refused.
 */
export function checkTransactionRoom(
  authorization: Authorization,
  before: readonly IssuingTransaction[],
  after: readonly IssuingTransaction[],
  what: string,
): void {
  const grown = renderedBytes(after);
  if (grown <= renderedBytes(before)) return;
  const refunds = after.filter((transaction) => transaction.type === 'refund').reduce((sum, refund) => sum + refundRoomBytes(refund), 0);
  if (grown - refunds > transactionBytesPerAuthorization) throw full(authorization, what, transactionBytesPerAuthorization);
}

/** Refuses a refund beyond the room an authorization keeps for its refunds (`refundBytes` so far). */
export function checkRefundRoom(authorization: Authorization, refund: IssuingTransaction): void {
  if (authorization.refundBytes + refundRoomBytes(refund) > refundBytesPerAuthorization) {
    throw full(authorization, 'another refund', refundBytesPerAuthorization);
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
