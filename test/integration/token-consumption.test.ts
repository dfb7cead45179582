import { beforeAll, describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { dynamoTokenRepository } from '#shared/data/token-repository.ts';
import type { Scope } from '#shared/platform/types.ts';
import { tokenConsumer, type TokenConsumer } from '#shared/tokens/consume.ts';
import { token as tokenKeys } from '#shared/data/keys.ts';
import { api, newPlatform, sdk, stackTable } from '../support/stack.ts';

describe('consuming account and person tokens (the port v2 accounts and persons call)', () => {
  let client: Stripe;
  let secretKey: string;
  let scope: Scope;
  let consumer: TokenConsumer;
  beforeAll(async () => {
    const platform = await newPlatform();
    client = sdk(platform.publishable_key);
    secretKey = platform.secret_key;
    scope = { accountId: platform.account, livemode: false };
    consumer = tokenConsumer({ repository: dynamoTokenRepository(stackTable()) });
  });

  it('lets exactly one of 20 concurrent consumers use a token; the others get token_already_used', async () => {
    // Given a fresh person token
    const token = await client.tokens.create({ person: { first_name: 'Jenny' } });

    // When 20 requests consume it at once
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => consumer.consume(scope, token.id, 'person', 'person_token')));

    // Then one gets its data and 19 are refused as reuse
    const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const lost = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(19);
    for (const { reason } of lost) {
      expect(reason).toMatchObject({
        code: 'token_already_used',
        param: 'person_token',
        message: `You cannot use a Service token more than once: ${token.id}.`,
      });
    }
    expect(await sdk(secretKey).tokens.retrieve(token.id)).toMatchObject({ id: token.id, used: true });
  });

  it('returns the stored account data in v1 names, identity numbers only as flags', async () => {
    const token = await client.tokens.create({
      account: {
        business_type: 'individual',
        individual: {
          first_name: 'Jenny',
          last_name: 'Rosen',
          email: 'jenny@example.test',
          phone: '+14155550100',
          dob: { day: 14, month: 3, year: 1985 },
          address: { line1: '1 Main St', city: 'San Francisco', state: 'CA', postal_code: '94107', country: 'us' },
          id_number: '000000000',
          ssn_last_4: '0000',
          relationship: { title: 'CEO', owner: true, percent_ownership: 100 },
          metadata: { ref: 'a1' },
        },
        tos_shown_and_accepted: true,
      },
    });

    const consumed = await consumer.consume(scope, token.id, 'account', 'account_token');

    expect(consumed).toEqual({
      id: token.id,
      type: 'account',
      created: expect.any(Number),
      livemode: false,
      clientIp: '127.0.0.1',
      account: {
        business_type: 'individual',
        individual: {
          first_name: 'Jenny',
          last_name: 'Rosen',
          email: 'jenny@example.test',
          phone: '+14155550100',
          dob: { day: 14, month: 3, year: 1985 },
          address: { line1: '1 Main St', city: 'San Francisco', state: 'CA', postal_code: '94107', country: 'US' },
          ssn_last_4: '0000',
          relationship: { title: 'CEO', owner: true, percent_ownership: 100 },
          metadata: { ref: 'a1' },
          id_number_provided: true,
          id_number_secondary_provided: false,
          ssn_last_4_provided: true,
        },
        tos_shown_and_accepted: true,
      },
    });
    expect(Math.abs(consumed.created - token.created * 1000)).toBeLessThan(1000);
  });

  it('returns a person token with its relationship and documents', async () => {
    const token = await client.tokens.create({
      person: {
        first_name: 'Ada',
        dob: { day: 10, month: 12, year: 1985 },
        relationship: { representative: true, executive: true, title: 'CTO' },
        documents: { passport: { files: ['file_1'] } },
      },
    });
    await expect(consumer.consume(scope, token.id, 'person', 'person_token')).resolves.toMatchObject({
      type: 'person',
      person: {
        first_name: 'Ada',
        dob: { day: 10, month: 12, year: 1985 },
        relationship: { representative: true, executive: true, title: 'CTO' },
        documents: { passport: { files: ['file_1'] } },
        id_number_provided: false,
      },
    });
  });

  it('tells an unknown token, another mode or account, and a token of the wrong type apart', async () => {
    const person = await client.tokens.create({ person: { first_name: 'Jenny' } });
    const card = await client.tokens.create({ card: { number: '4242424242424242', exp_month: '8', exp_year: String(new Date().getUTCFullYear() + 2) } });

    await expect(consumer.consume(scope, 'tok_doesnotexist', 'account', 'account_token')).rejects.toMatchObject({
      code: 'resource_missing',
      param: 'account_token',
      message: "No such token: 'tok_doesnotexist'",
    });
    await expect(consumer.consume({ ...scope, livemode: true }, person.id, 'person', 'person_token')).rejects.toMatchObject({ code: 'resource_missing' });
    await expect(consumer.consume({ accountId: 'acct_other', livemode: false }, person.id, 'person', 'person_token')).rejects.toMatchObject({
      code: 'resource_missing',
    });
    await expect(consumer.consume(scope, person.id, 'account', 'account_token')).rejects.toMatchObject({
      code: 'parameter_invalid',
      param: 'account_token',
      message: `Invalid account_token: '${person.id}' is a person token, but account_token takes an account token.`,
    });
    await expect(consumer.consume(scope, card.id, 'person', 'person_token')).rejects.toMatchObject({ code: 'parameter_invalid', param: 'person_token' });

    // None of the refusals used the tokens up.
    expect(await sdk(secretKey).tokens.retrieve(person.id)).toMatchObject({ used: false });
    expect(await sdk(secretKey).tokens.retrieve(card.id)).toMatchObject({ used: false });
    await expect(consumer.consume(scope, person.id, 'person', 'person_token')).resolves.toMatchObject({ id: person.id });
  });

  it('expires a token 10 minutes after creation: the TTL removes it, and reads refuse it before TTL gets there', async () => {
    const token = await client.tokens.create({ person: { first_name: 'Late' } });
    const table = stackTable();
    const key = { PK: tokenKeys.pk(scope, token.id), SK: tokenKeys.sk() };
    const item = await table.get(key);
    expect(item?.expiresAt).toBe(token.created + 600);

    // When its expiry passes (DynamoDB deletes expired items lazily, up to days later)
    await table.update({
      TableName: table.name,
      Key: key,
      UpdateExpression: 'SET expiresAt = :past',
      ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
    });

    // Then it can be neither retrieved nor used
    const retrieved = await api('GET', `/v1/tokens/${token.id}`, { key: secretKey });
    expect(retrieved.status).toBe(404);
    await expect(consumer.consume(scope, token.id, 'person', 'person_token')).rejects.toMatchObject({ code: 'resource_missing', param: 'person_token' });
  });
});
