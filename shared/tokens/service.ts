import { systemClock } from '#shared/core/clock.ts';
import { CardError, InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import { newId } from '#shared/core/ids.ts';
import type { Scope } from '#shared/platform/types.ts';
import { checkBankAccount, defaultCurrency } from './bank-account-numbers.ts';
import { cardBrand, cvcLength, passesLuhn, testCardOutcome, testCards } from './card-numbers.ts';
import { fingerprint } from './fingerprint.ts';
import type { BankAccountParams, CardParams, CreateTokenParams } from './schemas.ts';
import { accountTokenData, personTokenData } from './sensitive.ts';
import type { AccountSecretStore } from '#shared/platform/account-secrets.ts';
import { v1TokenTypes, type Token, type TokenBankAccount, type TokenCard, type TokenRepository, type V1Token } from './token.ts';

export interface TokenServicePorts {
  repository: TokenRepository;
  fingerprintKeys: AccountSecretStore;
  /** How long a token can be retrieved and used after its creation. */
  ttlMillis: number;
  clock?: () => number;
}

const variants = ['card', 'bank_account', 'cvc_update', 'person', 'pii', 'account'] as const;

/** Years after this one that an expiry may name. */
const maxExpiryYearsAhead = 50;

/** Checks a card's number, expiry and CVC as the reference does (402 card errors naming the field). */
function checkCard(card: CardParams, livemode: boolean, now: number) {
  const number = card.number.replace(/ /g, '');
  if (!/^\d{12,19}$/.test(number)) throw new CardError('Your card number is invalid.', 'invalid_number', 'card[number]');
  if (!passesLuhn(number)) throw new CardError('Your card number is incorrect.', 'incorrect_number', 'card[number]');

  const month = /^\d{1,2}$/.test(String(card.exp_month).trim()) ? Number(String(card.exp_month).trim()) : NaN;
  if (!(month >= 1 && month <= 12)) throw new CardError("Your card's expiration month is invalid.", 'invalid_expiry_month', 'card[exp_month]');
  const yearText = String(card.exp_year).trim();
  const today = new Date(now);
  const thisYear = today.getUTCFullYear();
  // Two-digit years are this century's, as card faces print them.
  const year = /^\d{4}$/.test(yearText) ? Number(yearText) : /^\d{2}$/.test(yearText) ? 2000 + Number(yearText) : NaN;
  if (!(year >= thisYear && year <= thisYear + maxExpiryYearsAhead)) {
    throw new CardError("Your card's expiration year is invalid.", 'invalid_expiry_year', 'card[exp_year]');
  }
  if (year === thisYear && month < today.getUTCMonth() + 1) {
    throw new CardError("Your card's expiration month is invalid.", 'invalid_expiry_month', 'card[exp_month]');
  }

  const brand = cardBrand(number);
  if (card.cvc !== undefined && !new RegExp(`^\\d{${cvcLength(brand)}}$`).test(card.cvc)) {
    throw new CardError("Your card's security code is invalid.", 'invalid_cvc', 'card[cvc]');
  }

  const testCard = testCards.get(number);
  if (!livemode && !testCard) {
    throw new CardError(
      'Your card was declined. Your request was in test mode, but used a non test (live) card. Use one of the documented test card numbers, such as 4242424242424242.',
      'card_declined',
      'card[number]',
      'test_mode_live_card',
    );
  }
  if (livemode && testCard) {
    throw new CardError(
      'Your card was declined. Your request was in live mode, but used a known test card.',
      'card_declined',
      'card[number]',
      'live_mode_test_card',
    );
  }
  return { number, month, year, brand, testCard };
}

/** v1 tokens: card, bank account, CVC update, person, PII and account data exchanged for a single-use id. */
export function tokenService({ repository, fingerprintKeys, ttlMillis, clock = systemClock }: TokenServicePorts) {
  async function cardOf(scope: Scope, card: CardParams, now: number): Promise<TokenCard> {
    const { number, month, year, brand, testCard } = checkCard(card, scope.livemode, now);
    return {
      id: newId('card', now),
      brand,
      last4: number.slice(-4),
      expMonth: month,
      expYear: year,
      funding: testCard?.funding ?? 'unknown',
      country: testCard?.country ?? null,
      fingerprint: fingerprint(await fingerprintKeys.keyFor(scope.accountId), 'card', number),
      cvcProvided: card.cvc !== undefined,
      outcome: testCard ? testCardOutcome(number, card.cvc !== undefined) : null,
      name: card.name ?? null,
      currency: card.currency ?? null,
      preferredNetwork: card.networks?.preferred ?? null,
      address: {
        city: card.address_city ?? null,
        country: card.address_country ?? null,
        line1: card.address_line1 ?? null,
        line2: card.address_line2 ?? null,
        state: card.address_state ?? null,
        zip: card.address_zip ?? null,
      },
    };
  }

  async function bankAccountOf(scope: Scope, params: BankAccountParams, now: number): Promise<TokenBankAccount> {
    if (params.payment_method !== undefined) {
      throw new InvalidRequestError(`No such PaymentMethod: '${params.payment_method}'`, 'resource_missing', 'bank_account[payment_method]');
    }
    const currency = params.currency ?? defaultCurrency(params.country);
    if (currency === undefined) {
      throw new InvalidRequestError(
        `Missing required param: bank_account[currency] (there is no default currency for bank accounts in ${params.country}).`,
        'parameter_missing',
        'bank_account[currency]',
      );
    }
    const checked = checkBankAccount(params.country, params.account_number, params.routing_number, !scope.livemode);
    if ('code' in checked) throw new InvalidRequestError(checked.message, checked.code, `bank_account[${checked.field}]`);
    const key = await fingerprintKeys.keyFor(scope.accountId);
    return {
      id: newId('ba', now),
      country: params.country,
      currency,
      last4: checked.accountNumber.slice(-4),
      routingNumber: checked.routingNumber,
      accountHolderName: params.account_holder_name ?? null,
      accountHolderType: params.account_holder_type ?? null,
      accountType: params.account_type ?? null,
      fingerprint: fingerprint(key, 'bank_account', `${params.country}\u0000${checked.routingNumber ?? ''}\u0000${checked.accountNumber}`),
    };
  }

  return {
    /**
     * Creates a token of the one variant the parameters carry. Only what the token object shows (and,
     * for person and account data, the non-sensitive fields plus `*_provided` flags) is stored.
     */
    async create(scope: Scope, params: CreateTokenParams, clientIp: string | null): Promise<V1Token> {
      const given = variants.filter((variant) => params[variant] !== undefined);
      if (params.customer !== undefined) {
        throw new InvalidRequestError(
          `No such customer payment source to tokenize: customer '${params.customer}' has no saved cards or bank accounts here.`,
          'resource_missing',
          'customer',
        );
      }
      if (given.length === 0) {
        throw new InvalidRequestError(
          `You must supply one of ${variants.join(', ')} to create a token, e.g. card[number], card[exp_month] and card[exp_year].`,
          'parameter_missing',
        );
      }
      if (given.length > 1) {
        throw new InvalidRequestError(
          `A token is created from exactly one of ${variants.join(', ')}, but this request has ${given.join(' and ')}.`,
          'parameter_invalid',
          given[1],
        );
      }
      const now = clock();
      // Bank account tokens are `btok_…`, as the reference's (its SDK's examples attach a `btok_…` source).
      const base = {
        id: newId(params.bank_account !== undefined ? 'btok' : 'tok', now),
        scope,
        created: now,
        expiresAt: now + ttlMillis,
        clientIp,
        used: false,
      };
      let token: V1Token;
      if (params.card !== undefined) {
        if (typeof params.card === 'string') throw new InvalidRequestError(`No such card: '${params.card}'`, 'resource_missing', 'card');
        token = { ...base, type: 'card', card: await cardOf(scope, params.card, now) };
      } else if (params.bank_account !== undefined) {
        if (typeof params.bank_account === 'string') {
          throw new InvalidRequestError(`No such bank account: '${params.bank_account}'`, 'resource_missing', 'bank_account');
        }
        token = { ...base, type: 'bank_account', bankAccount: await bankAccountOf(scope, params.bank_account, now) };
      } else if (params.cvc_update !== undefined) {
        if (!/^\d{3,4}$/.test(params.cvc_update.cvc)) throw new CardError("Your card's security code is invalid.", 'invalid_cvc', 'cvc_update[cvc]');
        token = { ...base, type: 'cvc_update', cvcUpdate: { cvcProvided: true } };
      } else if (params.pii !== undefined) {
        token = { ...base, type: 'pii', pii: { id_number_provided: true } };
      } else if (params.person !== undefined) {
        token = { ...base, type: 'person', person: personTokenData(params.person) };
      } else {
        token = { ...base, type: 'account', account: accountTokenData(params.account!) };
      }
      await repository.create(token);
      return token;
    },

    /** A v1 token; v2 account and person tokens have their own endpoints, so here they are not found. */
    async retrieve(scope: Scope, id: string): Promise<V1Token> {
      const token: Token | undefined = await repository.get(scope, id, clock());
      if (!token || !(v1TokenTypes as readonly string[]).includes(token.type)) throw new NotFoundError('token', id);
      return token as V1Token;
    },
  };
}
