import { systemClock } from '#shared/core/clock.ts';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventOrigin } from '#shared/events/event.ts';
import { changeAndEmit } from '#shared/events/versioned-change.ts';
import { newId } from '#shared/core/ids.ts';
import { mergeMetadata } from '#shared/wire/metadata.ts';
import { withOptimisticRetries } from '#shared/platform/owned-resource.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { AuthorizationRepository } from './authorization.ts';
import { currencyOn, merchantDataOf, purchaseDetailsOf, requireTestMode } from './authorization-service.ts';
import type { CardRepository, IssuingCard } from './card.ts';
import type { ListTransactionsParams, RefundTransactionParams, UnlinkedTransactionParams, UpdateTransactionParams } from './schemas.ts';
import {
  checkRefundRoom,
  checkTransactionRoom,
  refundRoomBytes,
  renderedBytes,
  transactionCreated,
  transactionsOf,
  transactionUpdated,
  type IssuingTransaction,
  type TransactionRepository,
} from './transaction.ts';

export interface TransactionServicePorts {
  repository: TransactionRepository;
  authorizations: Pick<AuthorizationRepository, 'get'>;
  cards: Pick<CardRepository, 'get'>;
  events: EventEmitter;
  clock?: () => number;
}

/**
 * The merchant amount a refund of `amount` gives back: the capture's proportion of what is refunded in
 * all, less what earlier refunds gave, so the refunds' merchant amounts always add up to the capture's
 * (the refund that completes it gets the remainder) and rounding never gives back more than was taken.
 */
export function refundMerchantAmount(capture: IssuingTransaction, amount: number): number {
  if (capture.currency === capture.merchantCurrency) return amount;
  const captured = -capture.amount;
  const merchant = -capture.merchantAmount;
  const refunded = capture.refundedAmount + amount;
  const total = refunded === captured ? merchant : Math.round((refunded * merchant) / captured);
  return Math.max(0, total - capture.refundedMerchantAmount);
}

/**
 * The `refund` transaction giving back `amount` of a capture: a credit, so positive, in the capture's
 * currencies and proportion, at the same merchant.
 */
export function refundTransaction(capture: IssuingTransaction, amount: number, now: number): IssuingTransaction {
  return {
    ...capture,
    id: newId('ipi', now),
    created: now,
    type: 'refund',
    amount,
    amountDetails: null,
    merchantAmount: refundMerchantAmount(capture, amount),
    networkData: { ...capture.networkData, processing_date: new Date(now).toISOString().slice(0, 10) },
    purchaseDetails: null,
    metadata: {},
    refundedAmount: 0,
    refundedMerchantAmount: 0,
    refundOf: capture.id,
    version: 1,
  };
}

/**
 * A transaction on `card` without an authorization (`authorization: null`): a force capture (a debit, so
 * negative) or an unlinked refund (a credit, positive), in the card's currency at the merchant given.
 */
export function unlinkedTransaction(card: IssuingCard, type: IssuingTransaction['type'], params: UnlinkedTransactionParams, now: number): IssuingTransaction {
  const currency = currencyOn(card, params.currency);
  const amount = type === 'capture' ? -params.amount : params.amount;
  return {
    id: newId('ipi', now),
    scope: card.scope,
    created: now,
    type,
    authorizationId: null,
    cardId: card.id,
    cardholderId: card.cardholderId,
    amount,
    amountDetails: null,
    currency,
    merchantAmount: amount,
    merchantCurrency: currency,
    merchantData: merchantDataOf(params.merchant_data),
    networkData: { authorization_code: null, processing_date: new Date(now).toISOString().slice(0, 10), transaction_id: null },
    purchaseDetails: purchaseDetailsOf(params.purchase_details, { fleet: null, fuel: null }),
    wallet: null,
    metadata: {},
    refundedAmount: 0,
    refundedMerchantAmount: 0,
    refundOf: null,
    version: 1,
  };
}

/**
 * Issuing transactions (`ipi_…`): captures make them (see the authorization service's `capture`); here
 * they are read, listed, given metadata (`issuing_transaction.updated`), and refunded by the test helper,
 * which also makes force captures and unlinked refunds (transactions without an authorization).
 */
export function transactionService({ repository, authorizations, cards, events, clock = systemClock }: TransactionServicePorts) {
  async function existing(scope: Scope, id: string): Promise<IssuingTransaction> {
    const transaction = await repository.get(scope, id);
    if (!transaction) throw new NotFoundError('issuing transaction', id);
    return transaction;
  }

  /**
   * A test helper's transaction without an authorization, on a card of the caller's platform and mode
   * whatever its status (the network forces it through: nothing is decided), written with its
   * `issuing_transaction.created`.
   */
  async function createUnlinked(origin: EventOrigin, type: IssuingTransaction['type'], params: UnlinkedTransactionParams): Promise<IssuingTransaction> {
    requireTestMode(origin.scope);
    const card = await cards.get(origin.scope, params.card);
    if (!card) throw new InvalidRequestError(`No such card: '${params.card}'`, 'resource_missing', 'card');
    const transaction = unlinkedTransaction(card, type, params, clock());
    const outbox = events.prepare(origin, [transactionCreated(transaction)]);
    await repository.create(transaction, { outbox });
    await events.dispatch(outbox);
    return transaction;
  }

  return {
    retrieve: existing,

    list(scope: Scope, page: PageRequest, params: ListTransactionsParams): Promise<Page<IssuingTransaction>> {
      return repository.list(scope, {
        page,
        where: { cardId: params.card, cardholderId: params.cardholder, type: params.type },
        created: params.created,
      });
    },

    /**
     * Metadata, with `issuing_transaction.updated`. Metadata that makes a transaction of an authorization
     * larger is checked against the room the authorization keeps for its transactions (reading it and its
     * transactions: a GetItem and a BatchGetItem more); smaller or unchanged metadata never is.
     */
    update(origin: EventOrigin, id: string, params: UpdateTransactionParams): Promise<IssuingTransaction> {
      const apply = (current: IssuingTransaction): IssuingTransaction => ({
        ...current,
        metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata),
      });
      return changeAndEmit(
        { repository, events },
        origin,
        async () => {
          const current = await existing(origin.scope, id);
          const next = apply(current);
          if (current.authorizationId && renderedBytes([next]) > renderedBytes([current])) {
            const authorization = await authorizations.get(origin.scope, current.authorizationId);
            if (authorization) {
              const siblings = await transactionsOf(repository, authorization);
              const after = siblings.map((transaction) => (transaction.id === next.id ? next : transaction));
              checkTransactionRoom(authorization, siblings, after, 'this metadata');
            }
          }
          return current;
        },
        apply,
        (next, current) => [transactionUpdated(next, current)],
      );
    },

    /**
     * The test helper's refund of a capture: `refund_amount` (default: all that is not refunded yet) comes
     * back as a `refund` transaction of the same authorization, with `issuing_transaction.created`. The
     * refund, the capture's refunded total and the authorization's transaction list are one write, so
     * concurrent refunds never give back more than was captured. The capture's object does not change
     * (the reference shows no refunded total on it), so it emits no event of its own.
     */
    async refund(origin: EventOrigin, id: string, params: RefundTransactionParams): Promise<IssuingTransaction> {
      requireTestMode(origin.scope);
      return withOptimisticRetries(async () => {
        const capture = await existing(origin.scope, id);
        if (capture.type !== 'capture') {
          throw new InvalidRequestError(`The transaction ${capture.id} is a ${capture.type}: only a capture can be refunded.`, 'parameter_invalid');
        }
        const refundable = -capture.amount - capture.refundedAmount;
        if (refundable === 0) {
          throw new InvalidRequestError(`The transaction ${capture.id} has already been refunded in full.`, 'charge_already_refunded');
        }
        const amount = params.refund_amount ?? refundable;
        if (amount > refundable) {
          throw new InvalidRequestError(
            `refund_amount (${amount}) exceeds what remains to refund of the transaction ${capture.id} (${refundable}).`,
            'amount_too_large',
            'refund_amount',
          );
        }
        const authorization = capture.authorizationId ? await authorizations.get(origin.scope, capture.authorizationId) : undefined;
        const refund = refundTransaction(capture, amount, clock());
        if (authorization) checkRefundRoom(authorization, refund);
        const outbox = events.prepare(origin, [transactionCreated(refund)]);
        const written = await repository.record(
          {
            authorization: authorization && {
              ...authorization,
              transactionIds: [...authorization.transactionIds, refund.id],
              refundBytes: authorization.refundBytes + refundRoomBytes(refund),
              version: authorization.version + 1,
            },
            created: [refund],
            replaced: [
              {
                ...capture,
                refundedAmount: capture.refundedAmount + amount,
                refundedMerchantAmount: capture.refundedMerchantAmount + refund.merchantAmount,
                version: capture.version + 1,
              },
            ],
          },
          outbox,
        );
        if (!written) return undefined;
        await events.dispatch(outbox);
        return refund;
      });
    },

    /** The test helper's force capture: a `capture` the card makes without an authorization. */
    createForceCapture: (origin: EventOrigin, params: UnlinkedTransactionParams) => createUnlinked(origin, 'capture', params),

    /** The test helper's unlinked refund: a `refund` that gives money back to the card without a capture to refund. */
    createUnlinkedRefund: (origin: EventOrigin, params: UnlinkedTransactionParams) => createUnlinked(origin, 'refund', params),
  };
}
