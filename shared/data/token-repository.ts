import * as z from 'zod';
import { cardOutcomes } from '#shared/tokens/card-numbers.ts';
import type { AccountTokenData, PersonTokenData } from '#shared/tokens/schemas.ts';
import type { Token, TokenRepository, TokenUse } from '#shared/tokens/token.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { Table, TransactItem } from './table.ts';
import { epochSeconds } from './conditions.ts';
import { orNull, scopeItem } from './item-schemas.ts';
import { token as tokenKeys } from './keys.ts';

// Optional fields read as null on items written before they existed.
const nullableString = orNull(z.string());
const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);

const tokenBase = {
  id: z.string(),
  scope: scopeItem,
  created: z.number(),
  /** Stored in seconds (the TTL attribute), read back in milliseconds; tokens from before it never expire. */
  expiresAt: z
    .number()
    .optional()
    .transform((seconds) => (seconds === undefined ? Number.POSITIVE_INFINITY : seconds * 1000)),
  clientIp: nullableString,
  used: z.boolean(),
};

/** A card as tokens and customers' sources store it: what the API object shows, never the number or CVC. */
export const tokenCardItem = z.object({
  id: z.string(),
  brand: z.enum(['Visa', 'MasterCard', 'American Express', 'Discover', 'Diners Club', 'JCB', 'UnionPay', 'Unknown']),
  last4: z.string(),
  expMonth: z.number(),
  expYear: z.number(),
  funding: z.enum(['credit', 'debit', 'prepaid', 'unknown']),
  country: nullableString,
  fingerprint: z.string(),
  cvcProvided: z.boolean(),
  /**
   * Cards stored before outcomes existed read as `succeeds` (their number is gone, so it cannot be told);
   * only test cards were accepted in test mode, and live mode ignores the outcome.
   */
  outcome: z
    .enum(cardOutcomes)
    .nullable()
    .optional()
    .transform((outcome) => (outcome === undefined ? 'succeeds' : outcome)),
  name: nullableString,
  currency: nullableString,
  preferredNetwork: nullableString,
  address: z.object({
    city: nullableString,
    country: nullableString,
    line1: nullableString,
    line2: nullableString,
    state: nullableString,
    zip: nullableString,
  }),
});

/** A bank account as tokens and customers' sources store it: last4 and routing number, never the account number. */
export const tokenBankAccountItem = z.object({
  id: z.string(),
  country: z.string(),
  currency: z.string(),
  last4: z.string(),
  routingNumber: nullableString,
  accountHolderName: nullableString,
  accountHolderType: orNull(z.enum(['company', 'individual'])),
  accountType: orNull(z.enum(['checking', 'futsu', 'savings', 'toza'])),
  fingerprint: z.string(),
});

const v2Data = z.object({ params: z.custom<Record<string, unknown>>(isObject), userAgent: nullableString });

const tokenSchema = z.discriminatedUnion('type', [
  z.object({
    ...tokenBase,
    type: z.literal('card'),
    card: tokenCardItem,
  }),
  z.object({
    ...tokenBase,
    type: z.literal('bank_account'),
    bankAccount: tokenBankAccountItem,
  }),
  z.object({ ...tokenBase, type: z.literal('cvc_update'), cvcUpdate: z.object({ cvcProvided: z.literal(true) }) }),
  z.object({ ...tokenBase, type: z.literal('pii'), pii: z.object({ id_number_provided: z.boolean() }) }),
  // A person's or an account's parameters as validated when the token was made (the request schema's
  // output, sensitive numbers replaced by flags): checked here to be an object.
  z.object({ ...tokenBase, type: z.literal('person'), person: z.custom<PersonTokenData>(isObject) }),
  z.object({ ...tokenBase, type: z.literal('account'), account: z.custom<AccountTokenData>(isObject) }),
  // v2 tokens: their create parameters as validated (id number values dropped), checked here to be an object.
  z.object({ ...tokenBase, type: z.literal('v2_account'), v2: v2Data }),
  z.object({ ...tokenBase, type: z.literal('v2_person'), accountId: z.string(), v2: v2Data }),
]);

/** Tokens (TABLE_DESIGN.md 25, 26): keys, item (`expiresAt` in seconds, the TTL attribute), the schema every read parses. */
export const tokenEntity = {
  key: (scope: Scope, id: string) => ({ PK: tokenKeys.pk(scope, id), SK: tokenKeys.sk() }),
  item: (token: Token) => ({ ...tokenEntity.key(token.scope, token.id), entity: 'token', ...token, expiresAt: epochSeconds(token.expiresAt) }),
  parse: (item: Record<string, unknown>): Token => tokenSchema.parse(item),
  /**
   * Use once (26): the action, in the transaction of the write that uses the token, that marks it used if it
   * exists, is of its type, is unused and unexpired (else the whole write is cancelled, with the token's
   * item as it was, to tell a token used meanwhile from one gone).
   */
  use: (tableName: string, use: TokenUse): TransactItem => ({
    Update: {
      TableName: tableName,
      Key: tokenEntity.key(use.scope, use.id),
      UpdateExpression: 'SET used = :true, usedAt = :now',
      ConditionExpression: 'attribute_exists(PK) AND #type = :type AND used = :false AND (attribute_not_exists(expiresAt) OR expiresAt > :nowSeconds)',
      ExpressionAttributeNames: { '#type': 'type' },
      ExpressionAttributeValues: { ':true': true, ':false': false, ':type': use.type, ':now': use.now, ':nowSeconds': epochSeconds(use.now) },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  }),
};
const fromItem = tokenEntity.parse;

/** TTL deletion is lazy (up to days late): an item past its expiry is treated as gone. */
export const expired = (item: Record<string, unknown>, now: number) => typeof item.expiresAt === 'number' && item.expiresAt <= epochSeconds(now);

/**
 * DynamoDB adapter for tokens. `expiresAt` is the table's TTL attribute (seconds), so unused tokens do not
 * pile up. Using a token up is an action of the transaction that uses it (`tokenEntity.use`, sent by the
 * account and person stores).
 */
export function dynamoTokenRepository(table: Table): TokenRepository {
  const { name } = table;
  return {
    async create(token) {
      await table.put({
        TableName: name,
        Item: tokenEntity.item(token),
        ConditionExpression: 'attribute_not_exists(PK)',
      });
    },
    async get(scope, id, now) {
      const item = await table.get(tokenEntity.key(scope, id));
      return item && !expired(item, now) ? fromItem(item) : undefined;
    },
  };
}
