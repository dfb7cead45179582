import { systemClock } from '#shared/core/clock.ts';
import { randomInt } from 'node:crypto';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { snapshotInput } from '#shared/events/changes.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventInput, EventOrigin } from '#shared/events/event.ts';
import { mergeMetadata } from '#shared/wire/metadata.ts';
import { withOptimisticRetries } from '#shared/platform/owned-resource.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';
import { unixSeconds } from '#shared/wire/timestamps.ts';
import { newId } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import {
  decide,
  isEstimatedAmountCategory,
  merchantAmountFor,
  type Authorization,
  type AuthorizationRepository,
  type Fleet,
  type Fuel,
  type MerchantData,
  type RequestHistoryEntry,
} from './authorization.ts';
import type { CardRepository, IssuingCard } from './card.ts';
import type { CardholderRepository } from './cardholder.ts';
import { merchantCategoryCodes } from './merchant-categories.ts';
import type {
  CaptureAuthorizationParams,
  CreateAuthorizationParams,
  FinalizeAuthorizationAmountParams,
  FleetParams,
  FuelParams,
  IncrementAuthorizationParams,
  ListAuthorizationsParams,
  MerchantDataParams,
  PurchaseDetailsParams,
  ReverseAuthorizationParams,
  UpdateAuthorizationParams,
} from './schemas.ts';
import { serializeAuthorization } from './serializers.ts';
import {
  checkTransactionRoom,
  transactionCreated,
  transactionsOf,
  type IssuingTransaction,
  type PurchaseDetails,
  type PurchaseFleet,
  type TransactionRepository,
} from './transaction.ts';

export interface AuthorizationServicePorts {
  repository: AuthorizationRepository;
  /** Where captures write their transactions, together with the authorization (`record`). */
  transactions: Pick<TransactionRepository, 'get' | 'record'>;
  cards: Pick<CardRepository, 'get'>;
  cardholders: Pick<CardholderRepository, 'get'>;
  events: EventEmitter;
  clock?: () => number;
}

/** An authorization with the transactions it shows (`transactions`, oldest first). */
export interface AuthorizationWithTransactions {
  authorization: Authorization;
  transactions: IssuingTransaction[];
}

/** Where a test authorization happens when the request names no merchant category. */
const defaultMerchantCategory = 'miscellaneous_general_merchandise';
const maxAmount = 99_999_999;

/**
 * Most `request_history` entries an authorization gets from actions that leave it pending (increments,
 * partial captures and reversals, finalize_amount): the history is in every event twice (object and
 * `previous_attributes`), so it is bounded like the transactions (see `transactionBytesPerAuthorization`).
 * What ends the authorization (expire, a full reversal, a closing capture) is never refused for it.
 */
export const maxRequestHistory = 50;

function checkHistoryRoom(authorization: Authorization, action: string): void {
  if (authorization.requestHistory.length >= maxRequestHistory) {
    throw new InvalidRequestError(
      `The authorization ${authorization.id} already has ${maxRequestHistory} requests in its request_history, the most this service keeps: it can no longer be ${action}. Its hold can still be released (expire it or reverse it in full) or captured with close_authorization=true.`,
      'authorization_request_history_full',
    );
  }
}

/** Test helpers simulate card network traffic, which only exists in test mode. */
export function requireTestMode(scope: Scope): void {
  if (scope.livemode) {
    throw new InvalidRequestError(
      'Test helpers are only available in test mode, but this request used a live mode key. Use a test mode secret key (sk_test_…).',
      'livemode_mismatch',
    );
  }
}

function requirePending(authorization: Authorization, action: string): void {
  if (authorization.status !== 'pending') {
    throw new InvalidRequestError(
      `The authorization ${authorization.id} is ${authorization.status}: only a pending authorization can be ${action}.`,
      'authorization_not_pending',
    );
  }
}

/** The currency of money moving on `card`: the card's own, which the request may name but not change. */
export function currencyOn(card: IssuingCard, given: string | undefined): string {
  const currency = given ?? card.currency;
  if (currency !== card.currency) {
    throw new InvalidRequestError(
      `currency must be the card's currency (${card.currency}): the service does no currency conversion.`,
      'parameter_invalid',
      'currency',
    );
  }
  return currency;
}

/** `merchant_data` from request parameters: a general merchant with a random network id unless given. */
export function merchantDataOf(given: MerchantDataParams | undefined): MerchantData {
  const category = given?.category ?? defaultMerchantCategory;
  return {
    category,
    category_code: merchantCategoryCodes[category]!,
    city: given?.city ?? null,
    country: given?.country ?? null,
    name: given?.name ?? null,
    network_id: given?.network_id ?? String(randomInt(1_000_000_000, 10_000_000_000)),
    postal_code: given?.postal_code ?? null,
    state: given?.state ?? null,
    tax_id: null,
    terminal_id: given?.terminal_id ?? null,
    url: given?.url ?? null,
  };
}

/**
 * `fleet` from request parameters over what the authorization already has (null at creation): fields
 * the request gives replace, the others stay. Finalizing with only the dispensed quantity keeps the fuel
 * type the pump reported at authorization.
 */
export function fleetOf(given: FleetParams, base: Fleet | null = null): Fleet {
  const prompt = given.cardholder_prompt_data;
  const basePrompt = base?.cardholder_prompt_data ?? null;
  const breakdown = given.reported_breakdown;
  const baseBreakdown = base?.reported_breakdown ?? null;
  const decimalOf = (value: string | undefined, fallback: string | null | undefined) => value ?? fallback ?? null;
  return {
    cardholder_prompt_data:
      prompt || basePrompt
        ? {
            // Not a parameter: networks fill it in for prompts of their own.
            alphanumeric_id: basePrompt?.alphanumeric_id ?? null,
            driver_id: prompt?.driver_id ?? basePrompt?.driver_id ?? null,
            odometer: prompt?.odometer ?? basePrompt?.odometer ?? null,
            unspecified_id: prompt?.unspecified_id ?? basePrompt?.unspecified_id ?? null,
            user_id: prompt?.user_id ?? basePrompt?.user_id ?? null,
            vehicle_number: prompt?.vehicle_number ?? basePrompt?.vehicle_number ?? null,
          }
        : null,
    purchase_type: given.purchase_type ?? base?.purchase_type ?? null,
    reported_breakdown:
      breakdown || baseBreakdown
        ? {
            fuel:
              breakdown?.fuel || baseBreakdown?.fuel
                ? { gross_amount_decimal: decimalOf(breakdown?.fuel?.gross_amount_decimal, baseBreakdown?.fuel?.gross_amount_decimal) }
                : null,
            non_fuel:
              breakdown?.non_fuel || baseBreakdown?.non_fuel
                ? { gross_amount_decimal: decimalOf(breakdown?.non_fuel?.gross_amount_decimal, baseBreakdown?.non_fuel?.gross_amount_decimal) }
                : null,
            tax:
              breakdown?.tax || baseBreakdown?.tax
                ? {
                    local_amount_decimal: decimalOf(breakdown?.tax?.local_amount_decimal, baseBreakdown?.tax?.local_amount_decimal),
                    national_amount_decimal: decimalOf(breakdown?.tax?.national_amount_decimal, baseBreakdown?.tax?.national_amount_decimal),
                  }
                : null,
          }
        : null,
    service_type: given.service_type ?? base?.service_type ?? null,
  };
}

/** `fuel` from request parameters over what the authorization already has, as `fleetOf`. */
export function fuelOf(given: FuelParams, base: Fuel | null = null): Fuel {
  return {
    industry_product_code: given.industry_product_code ?? base?.industry_product_code ?? null,
    quantity_decimal: given.quantity_decimal ?? base?.quantity_decimal ?? null,
    type: given.type ?? base?.type ?? null,
    unit: given.unit ?? base?.unit ?? null,
    unit_cost_decimal: given.unit_cost_decimal ?? base?.unit_cost_decimal ?? null,
  };
}

/** `purchase_details.fleet`: the authorization's `fleet` without the prompt the network fills in itself. */
function purchaseFleetOf({ cardholder_prompt_data: prompt, ...fleet }: Fleet): PurchaseFleet {
  if (!prompt) return { cardholder_prompt_data: null, ...fleet };
  const { alphanumeric_id: _networkFilled, ...cardholderPrompt } = prompt;
  return { cardholder_prompt_data: cardholderPrompt, ...fleet };
}

/**
 * What a capture's transaction shows of the purchase: the capture's `purchase_details`, with `fleet` and
 * `fuel` over those the authorization holds (given at creation or by finalize_amount). Null when there
 * is nothing to show. The reference types a reported fuel's `type` and `unit` as always present: unknown
 * ones read `other`, a value of both enumerations.
 */
export function purchaseDetailsOf(given: PurchaseDetailsParams | undefined, authorization: Pick<Authorization, 'fleet' | 'fuel'>): PurchaseDetails | null {
  const fleet = given?.fleet ? fleetOf(given.fleet, authorization.fleet) : authorization.fleet;
  const fuel = given?.fuel ? fuelOf(given.fuel, authorization.fuel) : authorization.fuel;
  if (!given && !fleet && !fuel) return null;
  const flight = given?.flight;
  return {
    fleet: fleet && purchaseFleetOf(fleet),
    flight: flight
      ? {
          departure_at: flight.departure_at ?? null,
          passenger_name: flight.passenger_name ?? null,
          refundable: flight.refundable ?? null,
          segments:
            flight.segments?.map((segment) => ({
              arrival_airport_code: segment.arrival_airport_code ?? null,
              carrier: segment.carrier ?? null,
              departure_airport_code: segment.departure_airport_code ?? null,
              flight_number: segment.flight_number ?? null,
              service_class: segment.service_class ?? null,
              stopover_allowed: segment.stopover_allowed ?? null,
            })) ?? null,
          travel_agency: flight.travel_agency ?? null,
        }
      : null,
    fuel: fuel && {
      industry_product_code: fuel.industry_product_code,
      quantity_decimal: fuel.quantity_decimal,
      type: fuel.type ?? 'other',
      unit: fuel.unit ?? 'other',
      unit_cost_decimal: fuel.unit_cost_decimal,
    },
    lodging: given?.lodging ? { check_in_at: given.lodging.check_in_at ?? null, nights: given.lodging.nights ?? null } : null,
    receipt:
      given?.receipt?.map((line) => ({
        description: line.description ?? null,
        quantity: line.quantity === undefined ? null : Number(line.quantity),
        total: line.total ?? null,
        unit_cost: line.unit_cost ?? null,
      })) ?? null,
    reference: given?.reference ?? null,
  };
}

/**
 * The `capture` transaction of `captured` (in the authorization's currency) on an authorization: a debit,
 * so `amount` and `merchant_amount` are negative. The ATM fee and cashback go with its first capture.
 */
export function captureTransaction(
  authorization: Authorization,
  captured: number,
  details: PurchaseDetailsParams | undefined,
  now: number,
): IssuingTransaction {
  return {
    id: newId('ipi', now),
    scope: authorization.scope,
    created: now,
    type: 'capture',
    authorizationId: authorization.id,
    cardId: authorization.cardId,
    cardholderId: authorization.cardholderId,
    amount: -captured,
    amountDetails: authorization.transactionIds.length === 0 ? authorization.amountDetails : null,
    currency: authorization.currency,
    merchantAmount: -merchantAmountFor(authorization, captured),
    merchantCurrency: authorization.merchantCurrency,
    merchantData: authorization.merchantData,
    networkData: {
      authorization_code: authorization.authorizationCode,
      processing_date: new Date(now).toISOString().slice(0, 10),
      transaction_id: authorization.networkData.transaction_id,
    },
    purchaseDetails: purchaseDetailsOf(details, authorization),
    wallet: authorization.wallet,
    metadata: {},
    refundedAmount: 0,
    refundedMerchantAmount: 0,
    refundOf: null,
    version: 1,
  };
}

/**
 * A `request_history` entry for a test-helper action on an approved authorization. `amount` is the amount
 * of that request: the increment, the reversal, the capture, the final amount, or what an expiry released.
 */
function actionEntry(authorization: Authorization, amount: number, now: number): RequestHistoryEntry {
  return {
    amount,
    amount_details: null,
    approved: true,
    authorization_code: authorization.authorizationCode,
    created: unixSeconds(now),
    currency: authorization.currency,
    merchant_amount: merchantAmountFor(authorization, amount),
    merchant_currency: authorization.merchantCurrency,
    network_risk_score: null,
    reason: 'card_active',
    reason_message: null,
    requested_at: unixSeconds(now),
  };
}

const authorizationUrl = (authorization: Authorization) => `/v1/issuing/authorizations/${authorization.id}`;

const created = (authorization: Authorization) =>
  snapshotInput('issuing_authorization.created', serializeAuthorization(authorization, []), authorizationUrl(authorization));

const updated = (next: AuthorizationWithTransactions, before: AuthorizationWithTransactions) =>
  snapshotInput(
    'issuing_authorization.updated',
    serializeAuthorization(next.authorization, next.transactions),
    authorizationUrl(next.authorization),
    serializeAuthorization(before.authorization, before.transactions),
  );

/** A change of an authorization: its next state, and the transactions it makes (a capture's). */
interface AuthorizationChange {
  authorization: Authorization;
  created?: IssuingTransaction[];
}

/**
 * Issuing authorizations and the test helpers that move them, as the card network would:
 *
 * - create: approved (`pending`) unless the card or cardholder cannot be used (then declined and `closed`);
 * - capture: `closed` (the held amount is released and the captured amount recorded in `request_history`);
 *   with `close_authorization=false` the captured amount leaves the hold and it stays `pending`; each
 *   capture makes a `capture` transaction (`issuing_transaction.created`), written with the authorization;
 * - expire: `expired`; increment: the hold grows; reverse: the hold shrinks, and a full reversal makes it
 *   `reversed`;
 * - finalize_amount: on an estimated-amount authorization only (see `isEstimatedAmountCategory`), once,
 *   while pending: the amount becomes the final amount and fleet and fuel data are recorded (over those
 *   given at creation).
 *
 * Every action appends to `request_history` and emits `issuing_authorization.updated`, which shows the
 * authorization's transactions as its GET does. `update` (metadata) is not a test helper.
 */
export function authorizationService({ repository, transactions, cards, cardholders, events, clock = systemClock }: AuthorizationServicePorts) {
  async function existing(scope: Scope, id: string): Promise<Authorization> {
    const authorization = await repository.get(scope, id);
    if (!authorization) throw new NotFoundError('issuing authorization', id);
    return authorization;
  }

  const withTransactions = async (authorization: Authorization): Promise<AuthorizationWithTransactions> => ({
    authorization,
    transactions: await transactionsOf(transactions, authorization),
  });

  /**
   * A change of the current authorization, written with the transactions it makes and its events in one
   * transaction (on the version read; a concurrent writer makes it start over on a fresh read).
   */
  function change(
    origin: EventOrigin,
    id: string,
    apply: (current: Authorization, now: number, transactions: IssuingTransaction[]) => AuthorizationChange,
  ): Promise<AuthorizationWithTransactions> {
    return withOptimisticRetries(async () => {
      const before = await withTransactions(await existing(origin.scope, id));
      const current = before.authorization;
      const { authorization, created: made = [] } = apply(current, clock(), before.transactions);
      const next: AuthorizationWithTransactions = {
        authorization: { ...authorization, transactionIds: [...current.transactionIds, ...made.map(({ id }) => id)], version: current.version + 1 },
        transactions: [...before.transactions, ...made],
      };
      const inputs: EventInput[] = [updated(next, before), ...made.map(transactionCreated)];
      const outbox = events.prepare(origin, inputs);
      if (!(await transactions.record({ authorization: next.authorization, created: made }, outbox))) return undefined;
      await events.dispatch(outbox);
      return next;
    });
  }

  async function answerPendingRequest(scope: Scope, id: string, answer: 'approve' | 'decline'): Promise<AuthorizationWithTransactions> {
    const authorization = await existing(scope, id);
    throw new InvalidRequestError(
      `The authorization ${authorization.id} has no pending request to ${answer}: this service approves or declines each authorization when it is created, so its pending_request is always null (real-time authorization is not modelled).`,
      'authorization_no_pending_request',
    );
  }

  /** A test-helper action: test mode only. */
  function act(
    origin: EventOrigin,
    id: string,
    apply: (current: Authorization, now: number, transactions: IssuingTransaction[]) => AuthorizationChange,
  ): Promise<AuthorizationWithTransactions> {
    requireTestMode(origin.scope);
    return change(origin, id, apply);
  }

  return {
    async create(origin: EventOrigin, params: CreateAuthorizationParams): Promise<AuthorizationWithTransactions> {
      requireTestMode(origin.scope);
      const { scope } = origin;
      const card = await cards.get(scope, params.card);
      if (!card) throw new InvalidRequestError(`No such card: '${params.card}'`, 'resource_missing', 'card');
      const cardholder = await cardholders.get(scope, card.cardholderId);

      const currency = currencyOn(card, params.currency);
      if (params.amount === undefined && params.amount_details === undefined) {
        throw new InvalidRequestError('Missing required param: amount.', 'parameter_missing', 'amount');
      }
      const amountDetails = params.amount_details
        ? { atm_fee: params.amount_details.atm_fee ?? null, cashback_amount: params.amount_details.cashback_amount ?? null }
        : null;
      const parts = (amountDetails?.atm_fee ?? 0) + (amountDetails?.cashback_amount ?? 0);
      const amount = params.amount ?? parts;
      if (parts > amount) {
        throw new InvalidRequestError(
          'amount_details (atm_fee and cashback_amount) are parts of amount and cannot exceed it.',
          'parameter_invalid',
          'amount_details',
        );
      }
      const merchantCurrency = params.merchant_currency ?? currency;
      let merchantAmount = amount;
      if (merchantCurrency !== currency) {
        if (params.merchant_amount === undefined) {
          throw new InvalidRequestError(
            'merchant_amount is required when merchant_currency differs from the authorization currency.',
            'parameter_missing',
            'merchant_amount',
          );
        }
        merchantAmount = params.merchant_amount;
        if ((amount === 0) !== (merchantAmount === 0)) {
          throw new InvalidRequestError(
            'amount and merchant_amount give the exchange rate of the authorization: they must both be 0 or both be positive.',
            'parameter_invalid',
            'merchant_amount',
          );
        }
      } else if (params.merchant_amount !== undefined && params.merchant_amount !== amount) {
        throw new InvalidRequestError(
          'merchant_amount must equal amount when merchant_currency is the authorization currency.',
          'parameter_invalid',
          'merchant_amount',
        );
      }

      const now = clock();
      const decision = decide(card, cardholder, new Date(now));
      const merchantData = merchantDataOf(params.merchant_data);
      const method = params.authorization_method ?? 'online';
      const verification = params.verification_data;
      const authorizationCode = decision.approved ? `S${String(randomInt(0, 1_000_000)).padStart(6, '0')}` : null;
      const authorization: Authorization = {
        id: newId('iauth', now),
        scope,
        created: now,
        cardId: card.id,
        cardholderId: card.cardholderId,
        status: decision.approved ? 'pending' : 'closed',
        approved: decision.approved,
        amount,
        currency,
        merchantAmount,
        merchantCurrency,
        amountDetails,
        authorizationMethod: method,
        cardPresence: method === 'online' ? 'not_present' : 'present',
        merchantData,
        networkData: { acquiring_institution_id: params.network_data?.acquiring_institution_id ?? null, system_trace_audit_number: null, transaction_id: null },
        verificationData: {
          address_line1_check: verification?.address_line1_check ?? 'not_provided',
          address_postal_code_check: verification?.address_postal_code_check ?? 'not_provided',
          authentication_exemption: verification?.authentication_exemption ?? null,
          cvc_check: verification?.cvc_check ?? 'not_provided',
          expiry_check: verification?.expiry_check ?? 'not_provided',
          postal_code: null,
          three_d_secure: verification?.three_d_secure ?? null,
        },
        wallet: params.wallet ?? null,
        fleet: params.fleet ? fleetOf(params.fleet) : null,
        fuel: params.fuel ? fuelOf(params.fuel) : null,
        requestHistory: [
          {
            amount,
            amount_details: amountDetails,
            approved: decision.approved,
            authorization_code: authorizationCode,
            created: unixSeconds(now),
            currency,
            merchant_amount: merchantAmount,
            merchant_currency: merchantCurrency,
            network_risk_score: null,
            reason: decision.reason,
            reason_message: null,
            requested_at: unixSeconds(now),
          },
        ],
        metadata: {},
        authorizationCode,
        isAmountControllable: params.is_amount_controllable ?? false,
        estimatedAmount: decision.approved && isEstimatedAmountCategory(merchantData.category),
        amountFinalized: false,
        transactionIds: [],
        refundBytes: 0,
        version: 1,
      };
      const outbox = events.prepare(origin, [created(authorization)]);
      await repository.create(authorization, { outbox });
      await events.dispatch(outbox);
      return { authorization, transactions: [] };
    },

    /** Metadata, with `issuing_authorization.updated`; in either mode and whatever the status. */
    update: (origin: EventOrigin, id: string, params: UpdateAuthorizationParams) =>
      change(origin, id, (current) => ({
        authorization: { ...current, metadata: params.metadata === undefined ? current.metadata : mergeMetadata(current.metadata, params.metadata) },
      })),

    /**
     * The reference's (deprecated) answer to a real-time authorization request: only for an authorization
     * whose `pending_request` is set. This service decides every authorization when it is created, so none
     * ever has one: after the id (and so the owner and mode) is checked, approve and decline refuse.
     */
    approve: (scope: Scope, id: string) => answerPendingRequest(scope, id, 'approve'),

    decline: (scope: Scope, id: string) => answerPendingRequest(scope, id, 'decline'),

    capture: (origin: EventOrigin, id: string, params: CaptureAuthorizationParams) =>
      act(origin, id, (current, now, transactions) => {
        requirePending(current, 'captured');
        const captured = params.capture_amount ?? current.amount;
        const close = params.close_authorization ?? true;
        // A closing capture may differ from the hold (tips, over-capture); a partial one comes out of it.
        if (!close && captured > current.amount) {
          throw new InvalidRequestError(
            `capture_amount (${captured}) exceeds the amount still held (${current.amount}); only a closing capture may exceed it.`,
            'amount_too_large',
            'capture_amount',
          );
        }
        const remaining = close ? current.amount : current.amount - captured;
        if (remaining > 0 && !close) checkHistoryRoom(current, 'captured in part');
        const transaction = captureTransaction(current, captured, params.purchase_details, now);
        checkTransactionRoom(current, transactions, [...transactions, transaction], 'this capture');
        return {
          authorization: {
            ...current,
            status: close || remaining === 0 ? 'closed' : 'pending',
            amount: remaining,
            merchantAmount: merchantAmountFor(current, remaining),
            requestHistory: [...current.requestHistory, actionEntry(current, captured, now)],
          },
          created: [transaction],
        };
      }),

    expire: (origin: EventOrigin, id: string) =>
      act(origin, id, (current, now) => {
        requirePending(current, 'expired');
        return { authorization: { ...current, status: 'expired', requestHistory: [...current.requestHistory, actionEntry(current, current.amount, now)] } };
      }),

    increment: (origin: EventOrigin, id: string, params: IncrementAuthorizationParams) =>
      act(origin, id, (current, now) => {
        requirePending(current, 'incremented');
        checkHistoryRoom(current, 'incremented');
        const amount = current.amount + params.increment_amount;
        if (amount > maxAmount) {
          throw new InvalidRequestError(`The incremented amount would exceed ${maxAmount}.`, 'amount_too_large', 'increment_amount');
        }
        return {
          authorization: {
            ...current,
            amount,
            merchantAmount: merchantAmountFor(current, amount),
            isAmountControllable: params.is_amount_controllable ?? current.isAmountControllable,
            requestHistory: [...current.requestHistory, actionEntry(current, params.increment_amount, now)],
          },
        };
      }),

    reverse: (origin: EventOrigin, id: string, params: ReverseAuthorizationParams) =>
      act(origin, id, (current, now) => {
        requirePending(current, 'reversed');
        const reversed = params.reverse_amount ?? current.amount;
        if (reversed > current.amount) {
          throw new InvalidRequestError(
            `reverse_amount (${reversed}) exceeds the authorized amount (${current.amount}).`,
            'amount_too_large',
            'reverse_amount',
          );
        }
        const amount = current.amount - reversed;
        if (amount > 0) checkHistoryRoom(current, 'reversed in part');
        return {
          authorization: {
            ...current,
            status: amount === 0 ? 'reversed' : 'pending',
            amount,
            merchantAmount: merchantAmountFor(current, amount),
            requestHistory: [...current.requestHistory, actionEntry(current, reversed, now)],
          },
        };
      }),

    finalizeAmount: (origin: EventOrigin, id: string, params: FinalizeAuthorizationAmountParams) =>
      act(origin, id, (current, now) => {
        if (!current.estimatedAmount) {
          throw new InvalidRequestError(
            `The authorization ${current.id} was not made on an estimated amount, so its amount cannot be finalized. Only approved authorizations at automated fuel dispensers (merchant_data[category]=automated_fuel_dispensers) or electric vehicle chargers (electric_vehicle_charging) are.`,
            'authorization_amount_not_estimated',
          );
        }
        if (current.amountFinalized) {
          throw new InvalidRequestError(`The amount of the authorization ${current.id} has already been finalized.`, 'authorization_amount_already_finalized');
        }
        requirePending(current, 'finalized');
        checkHistoryRoom(current, 'finalized');
        return {
          authorization: {
            ...current,
            amount: params.final_amount,
            merchantAmount: merchantAmountFor(current, params.final_amount),
            fleet: params.fleet ? fleetOf(params.fleet, current.fleet) : current.fleet,
            fuel: params.fuel ? fuelOf(params.fuel, current.fuel) : current.fuel,
            amountFinalized: true,
            requestHistory: [...current.requestHistory, actionEntry(current, params.final_amount, now)],
          },
        };
      }),

    async retrieve(scope: Scope, id: string): Promise<AuthorizationWithTransactions> {
      return withTransactions(await existing(scope, id));
    },

    async list(scope: Scope, page: PageRequest, params: ListAuthorizationsParams): Promise<Page<AuthorizationWithTransactions>> {
      const found = await repository.list(scope, {
        page,
        where: { cardId: params.card, cardholderId: params.cardholder, status: params.status },
        created: params.created,
      });
      // The transactions of the whole page go out as one BatchGetItem (Table.get coalesces them).
      return { items: await Promise.all(found.items.map(withTransactions)), hasMore: found.hasMore };
    },
  };
}
