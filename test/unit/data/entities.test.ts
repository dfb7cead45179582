import { describe, expect, it } from 'vitest';
import { accountSecretEntity } from '#shared/data/account-secret-store.ts';
import { serviceSecretEntity } from '#shared/data/service-secret-store.ts';
import { cloudtwoAuthorizationEntity } from '#shared/data/event-destination-repository.ts';
import { deliveryEntity } from '#shared/data/delivery-store.ts';
import { fanOutEntity } from '#shared/data/event-outbox.ts';
import { snapshotEventEntity, snapshotEventListQuery, thinEventEntity, thinEventListQuery } from '#shared/data/event-repository.ts';
import { createHash } from 'node:crypto';
import { idBoundAt, newId } from '#shared/core/ids.ts';
import { customer as customerKeys } from '#shared/data/keys.ts';
import { ownerPageQuery } from '#shared/data/owner-page.ts';
import type { Subscription } from '#shared/subscriptions/subscription.ts';
import { idempotencyEntity } from '#shared/data/idempotency-store.ts';
import type { Delivery, FanOut, SnapshotEvent, ThinEvent } from '#shared/events/event.ts';
import { accountEntity, apiKeyEntity } from '#shared/data/platform-store.ts';
import type { ApiKeyRecord } from '#shared/platform/types.ts';
import { tokenEntity } from '#shared/data/token-repository.ts';
import { usageLeaseEntity } from '#shared/data/metering/leases.ts';
import { registerUsageRoll, usageRollupEntity } from '#shared/data/metering/rollups.ts';
import { errorWindowEntity } from '#shared/data/metering/error-windows.ts';
import { meterEventRecordEntity } from '#shared/data/metering/event-records.ts';
import { rateWindowEntity } from '#shared/data/rate-counter.ts';
import { updateSlotEntity } from '#shared/data/account-repository.ts';
import { accountLinkEntity } from '#shared/data/account-link-repository.ts';
import type { AccountLink } from '#shared/account-links/account-link.ts';
import { ownedEntity } from '#shared/data/owned-resources.ts';
import { issuingTransactionEntity } from '#shared/data/issuing-repository.ts';
import type { Authorization } from '#shared/issuing/authorization.ts';
import type { IssuingTransaction } from '#shared/issuing/transaction.ts';
import { catalogueEntity, subscriptionEntity } from '#shared/data/billing-repositories.ts';
import { thresholdIndexEntry, thresholdIndexQuery } from '#shared/data/due-index.ts';
import { invoiceEntity } from '#shared/data/invoice-repository.ts';
import { billingAlertEntity } from '#shared/data/billing-alert-repository.ts';
import type { BillingAlert } from '#shared/billing-alerts/alert.ts';
import type { Invoice, InvoiceItem } from '#shared/invoices/invoice.ts';
import { customerSourceEntity } from '#shared/data/customer-repository.ts';
import { testClockEntity } from '#shared/data/test-clock-repository.ts';
import { billingDueQueries } from '#shared/data/billing-due-index.ts';
import type { TestClock } from '#shared/test-clocks/test-clock.ts';
import type { Customer, CustomerSource } from '#shared/customers/customer.ts';
import type { Price, Product } from '#shared/catalogue/catalogue.ts';
import type { Token } from '#shared/tokens/token.ts';

const key: ApiKeyRecord = { hash: 'h1', accountId: 'acct_1', livemode: false, kind: 'secret', hint: 'sk_test_…abcd', created: 5 };

describe('entity access patterns (offline: the commands each pattern sends, and the items they parse)', () => {
  it('creates an API key once, findable by hash and listed by account through GSI1 in creation order', () => {
    const put = apiKeyEntity.create('t', key);
    expect(put).toMatchObject({ TableName: 't', ConditionExpression: 'attribute_not_exists(PK)', Item: { PK: 'APIKEY#h1', SK: 'APIKEY', entity: 'api_key' } });
    expect(put.Item!.GSI1PK).toBe(apiKeyEntity.listByAccount('t', 'acct_1').ExpressionAttributeValues![':pk']);
    expect(apiKeyEntity.listByAccount('t', 'acct_1')).toMatchObject({ IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk' });
  });

  it("expires a key without touching the table's TTL attribute (the record must stay to answer 'expired')", () => {
    const update = apiKeyEntity.expire('t', 'h1', 99);
    expect(update.UpdateExpression).toBe('SET keyExpiresAt = :at');
    expect(JSON.stringify(update)).not.toContain('expiresAt =');
    expect(update.ConditionExpression).toBe('attribute_exists(PK)');
  });

  it('parses what the table answers: keys and bookkeeping dropped, the stored expiry read back, a malformed item refused', () => {
    const item = { ...apiKeyEntity.create('t', key).Item, keyExpiresAt: 99 };
    expect(apiKeyEntity.parse(item)).toEqual({ ...key, expiresAt: 99 });
    expect(() => apiKeyEntity.parse({ ...item, kind: 'other' })).toThrow();
    const account = accountEntity.create('t', { id: 'acct_2', platformId: null, features: { accountsV2: true }, created: 1 }).Item!;
    expect(accountEntity.parse(account)).toEqual({ id: 'acct_2', platformId: null, features: { accountsV2: true }, created: 1 });
    // An account stored before features existed reads as having none
    expect(accountEntity.parse({ PK: 'ACCOUNT#acct_3', id: 'acct_3', created: 1 })).toEqual({
      id: 'acct_3',
      platformId: null,
      features: { accountsV2: false },
      created: 1,
    });
  });

  it("keeps a cloudtwo authorization's expiry out of the TTL attribute, and reads it back", () => {
    const authorization = { subscriptionId: 'sub', resourceGroupName: 'rg', expiresAt: 123 };
    const put = cloudtwoAuthorizationEntity.put('t', 'acct_1', authorization);
    expect(put.Item).not.toHaveProperty('expiresAt');
    expect(cloudtwoAuthorizationEntity.parse(put.Item!)).toEqual(authorization);
    expect(cloudtwoAuthorizationEntity.listByAccount('t', 'acct_1').ExpressionAttributeValues).toMatchObject({ ':pk': put.Item!.PK });
  });

  it('writes an account secret once and reads the bytes back', () => {
    const secret = Buffer.alloc(32, 7).toString('base64');
    const put = accountSecretEntity.create('t', 'acct_1', secret);
    expect(put).toMatchObject({ ConditionExpression: 'attribute_not_exists(PK)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
    expect(accountSecretEntity.parse(put.Item!)).toEqual(Buffer.alloc(32, 7));
    expect(() => accountSecretEntity.parse({ PK: 'x' })).toThrow();
  });

  it('writes the service secret once, in a partition of its own, and reads the bytes back', () => {
    const put = serviceSecretEntity.create('t', Buffer.alloc(32, 9).toString('base64'));
    expect(put).toMatchObject({
      Item: { PK: 'SERVICE_SECRET', SK: 'SECRET' },
      ConditionExpression: 'attribute_not_exists(PK)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    expect(serviceSecretEntity.parse(put.Item!)).toEqual(Buffer.alloc(32, 9));
    expect(() => serviceSecretEntity.parse({ PK: 'SERVICE_SECRET' })).toThrow();
  });

  it('claims an idempotency key when free, expired or abandoned, and gets the holder back with a refusal (no second read)', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const claim = { scope, key: 'k', fingerprint: 'f', requestId: 'req', lockedUntil: 2_000, expiresAt: 86_400_000 };
    const put = idempotencyEntity.claim('t', claim, 1_000);
    expect(put.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(put.ConditionExpression).toContain('lockedUntil < :now');
    const open = () => ({ status: 200, body: '{}', headers: {} }) as never;
    expect(idempotencyEntity.parse(put.Item, 1_000, open)).toEqual({ state: 'in_progress', fingerprint: 'f' });
    // Past its TTL (deleted lazily) it is absent; a completed one opens its sealed response
    expect(idempotencyEntity.parse(put.Item, 86_400_000, open)).toEqual({ state: 'absent' });
    expect(idempotencyEntity.parse({ ...put.Item, state: 'complete', sealedResponse: 'x' }, 1_000, open)).toMatchObject({
      state: 'complete',
      response: { status: 200 },
    });
    expect(() => idempotencyEntity.parse({ ...put.Item, state: 'complete' }, 1_000, open)).toThrow();
    // A publishable key's record of the same key lives apart from the secret key's
    const publishable = idempotencyEntity.claim('t', { ...claim, scope: { ...scope, publishable: true } }, 1_000);
    expect(publishable.Item!.PK).toMatch(/^IDEMPOTENCY#acct_1#test#PUBLISHABLE#[0-9a-f]{64}$/);
    expect(publishable.Item!.PK.replace('PUBLISHABLE#', '')).toBe(put.Item!.PK);
  });

  it('writes a create’s receipt into its transaction only where the key is free or expired, pointing at the event that answers it', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const receipt = {
      scope,
      key: 'k',
      fingerprint: 'f',
      requestId: 'req_1',
      statusCode: 200,
      serviceVersion: '2025-03-31.basil',
      event: { scope, id: 'evt_1' },
      now: 1_000,
      expiresAt: 86_401_000,
    };
    const put = idempotencyEntity.receipt('t', receipt).Put!;
    expect(put.Item).toMatchObject({ PK: idempotencyEntity.key(scope, 'k').PK, state: 'answered', eventId: 'evt_1', requestId: 'req_1', expiresAt: 86_401 });
    expect(put.Item).not.toHaveProperty('sealedResponse');
    // Free as a claim finds it free: absent, expired, or a claim released or left by a request that died
    expect(put.ConditionExpression).toBe(idempotencyEntity.claim('t', { ...receipt, lockedUntil: 0 }, 1_000).ConditionExpression);
    expect(put.ExpressionAttributeValues).toEqual({ ':nowSeconds': 1, ':inProgress': 'in_progress', ':now': 1_000 });
    // Parsed, it still has to be answered from its event (the store reads it)
    expect(idempotencyEntity.parse(put.Item, 2_000, () => ({}) as never)).toMatchObject({ state: 'answered', eventId: 'evt_1', statusCode: 200 });

    // A response kept without a claim may overwrite only a free key, or (a success) its own receipt
    const kept = { scope, key: 'k', fingerprint: 'f', requestId: 'req_1', expiresAt: 86_401_000 };
    expect(idempotencyEntity.keep('t', kept, 'sealed', 2_000, false).ConditionExpression).toBe(put.ConditionExpression);
    const keep = idempotencyEntity.keep('t', kept, 'sealed', 2_000, true);
    expect(keep.ConditionExpression).toBe(`${put.ConditionExpression} OR requestId = :requestId`);
    expect(keep.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
    expect(keep.Item).toMatchObject({ state: 'complete', sealedResponse: 'sealed' });
  });

  it('writes a fan-out record due for the sweeper, fans it out once, and claims it for a sweep only if unchanged', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const fanOut: FanOut = {
      id: 'fan_1',
      platform: scope,
      source: '@self',
      events: [
        { ref: { kind: 'snapshot', scope, id: 'evt_s' }, type: 'customer.created', creates: 'cus_1' },
        { ref: { kind: 'thin', scope, id: 'evt_t' }, type: 'v1.customer.created', creates: 'cus_1' },
      ],
      created: 5_000,
    };
    const item = fanOutEntity.item(fanOut);
    expect(item).toMatchObject({ ...fanOutEntity.key('fan_1'), entity: 'fan_out', sweeps: 0, GSI2SK: expect.stringMatching(/^0+5000#fan_1$/) });
    expect(fanOutEntity.parse(item)).toEqual({ ...fanOut, sweeps: 0 });
    expect(() => fanOutEntity.parse({ ...item, events: [{ ref: { kind: 'other' } }] })).toThrow();

    const delivery = { id: 'dlv_1', destination: { kind: 'webhook_endpoint', scope, id: 'we_1' }, event: fanOut.events[0]!.ref } as Delivery;
    const actions = fanOutEntity.complete('t', fanOut, [delivery], new Map([['evt_s', 1]]));
    // The record's delete first (its failed condition tells that another worker did it), then the delivery, then pending_webhooks
    expect(actions[0]).toEqual({ Delete: { TableName: 't', Key: fanOutEntity.key('fan_1'), ConditionExpression: 'attribute_exists(PK)' } });
    expect(actions[1]!.Put!.Item).toMatchObject({ id: 'dlv_1', entity: 'delivery' });
    expect(actions[1]!.Put!.ConditionExpression).toBe('attribute_not_exists(PK)');
    // Added, not set: a delivery an interrupted run wrote may have settled (and subtracted) already; the event is linked to its deliveries (47)
    expect(actions[2]!.Update).toMatchObject({
      UpdateExpression: 'ADD pendingWebhooks :pending, deliveryIds :ids',
      ExpressionAttributeValues: { ':pending': 1, ':ids': new Set(['dlv_1']) },
    });
    // A thin event with deliveries is linked too; the final step of a fan-out written ahead (35c) links those written ahead
    const thinDelivery = { ...delivery, id: 'dlv_2', event: fanOut.events[1]!.ref } as Delivery;
    const both = fanOutEntity.complete('t', fanOut, [], new Map([['evt_s', 1]]), [delivery, thinDelivery]);
    expect(both.map((action) => action.Update?.Key ?? action.Delete?.Key)).toEqual([
      fanOutEntity.key('fan_1'),
      snapshotEventEntity.key(scope, 'evt_s'),
      thinEventEntity.key(scope, 'evt_t'),
    ]);
    expect(both[2]!.Update).toMatchObject({ UpdateExpression: 'ADD deliveryIds :ids', ConditionExpression: 'attribute_exists(PK)' });
    const chunk = fanOutEntity.writeDeliveries('t', fanOut, [delivery]);
    expect(chunk[0]).toEqual({ ConditionCheck: { TableName: 't', Key: fanOutEntity.key('fan_1'), ConditionExpression: 'attribute_exists(PK)' } });
    expect(chunk[1]!.Put).toMatchObject({ ConditionExpression: 'attribute_not_exists(PK)', Item: { id: 'dlv_1' } });
    expect(fanOutEntity.complete('t', fanOut, [], new Map([['evt_s', 0]]))).toHaveLength(1);

    expect(fanOutEntity.reschedule('t', { ...fanOut, sweeps: 2 }, 9_000)).toMatchObject({
      ConditionExpression: 'sweeps = :seen',
      ExpressionAttributeValues: { ':seen': 2, ':gsi2sk': expect.stringMatching(/^0+9000#fan_1$/) },
    });
    expect(fanOutEntity.park('t', 'fan_1').UpdateExpression).toBe('SET parked = :true REMOVE GSI2PK, GSI2SK');
  });

  it('reads a delivery back as written, an older one without `explicit` as not explicit, and refuses a malformed one', () => {
    const scope = { accountId: 'acct_1', livemode: true };
    const delivery: Delivery = {
      id: 'dlv_1',
      event: { kind: 'thin', scope, id: 'evt_1' },
      destination: { kind: 'event_destination', scope, id: 'ed_1', version: 3 },
      explicit: false,
      status: 'pending',
      attempts: [{ at: 1, outcome: 'failed', status: 500, durationMs: 12, error: 'HTTP 500' }],
      nextAttemptAt: 2,
      created: 1,
    };
    const item = deliveryEntity.item(delivery);
    expect(item).toMatchObject({ ...deliveryEntity.key('dlv_1'), entity: 'delivery', GSI2SK: expect.stringMatching(/^0+2#dlv_1$/) });
    expect(deliveryEntity.parse(item)).toEqual(delivery);
    const { explicit: _explicit, ...older } = item;
    expect(deliveryEntity.parse(older).explicit).toBe(false);
    expect(() => deliveryEntity.parse({ ...item, status: 'lost' })).toThrow();

    // An attempt is recorded only over the attempts the worker saw; a retry moves the due entry, the last outcome removes it
    const attempt = { at: 3, outcome: 'failed' as const, status: 502, durationMs: 9, error: 'HTTP 502' };
    const retry = deliveryEntity.recordAttempt('t', delivery, { status: 'pending', nextAttemptAt: 60_000, attempt, settleSnapshotEvent: null });
    expect(retry.ConditionExpression).toBe('#status = :pending AND size(attempts) = :seen');
    expect(retry.ExpressionAttributeValues).toMatchObject({ ':seen': 1, ':attempt': [attempt], ':gsi2sk': expect.stringMatching(/^0+60000#dlv_1$/) });
    const done = deliveryEntity.recordAttempt('t', delivery, { status: 'delivered', nextAttemptAt: null, attempt, settleSnapshotEvent: null });
    expect(done.UpdateExpression).toMatch(/ REMOVE GSI2PK, GSI2SK$/);
    expect(deliveryEntity.settle('t', delivery, true).ExpressionAttributeValues).toEqual({ ':minusOne': -1, ':failed': 1 });
    expect(deliveryEntity.reschedule('t', delivery, 9_000)).toMatchObject({
      ConditionExpression: '#status = :pending AND nextAttemptAt = :from',
      ExpressionAttributeValues: { ':from': 2, ':to': 9_000, ':gsi2sk': expect.stringMatching(/^0+9000#dlv_1$/) },
    });
  });

  it('lists a destination’s deliveries through GSI1 by status, moving a delivery with its status, and keeps excerpts and cancel reasons', () => {
    const scope = { accountId: 'acct_1', livemode: true };
    const delivery: Delivery = {
      id: 'dlv_1',
      event: { kind: 'snapshot', scope, id: 'evt_1' },
      eventType: 'customer.created',
      destination: { kind: 'webhook_endpoint', scope, id: 'we_1', version: 1 },
      explicit: false,
      status: 'pending',
      attempts: [],
      nextAttemptAt: 7,
      created: 5,
    };
    // Written in its destination's partition, under its status
    expect(deliveryEntity.item(delivery)).toMatchObject({ GSI1PK: 'DELIVERIES#acct_1#live#we_1', GSI1SK: `pending#${'5'.padStart(15, '0')}#dlv_1` });
    // Its attempt moves it to the status it ends in, with the excerpt and the cancel reason kept
    const attempt = { at: 8, outcome: 'failed' as const, status: 500, durationMs: 3, error: 'HTTP 500', responseExcerpt: 'down' };
    const failed = deliveryEntity.recordAttempt('t', delivery, { status: 'failed', nextAttemptAt: null, attempt, settleSnapshotEvent: { failed: true } });
    expect(failed.UpdateExpression).toContain('GSI1PK = :gsi1pk, GSI1SK = :gsi1sk');
    expect(failed.ExpressionAttributeValues).toMatchObject({ ':gsi1sk': `failed#${'5'.padStart(15, '0')}#dlv_1`, ':attempt': [attempt] });
    const cancelled = deliveryEntity.recordAttempt('t', delivery, {
      status: 'cancelled',
      nextAttemptAt: null,
      attempt: null,
      settleSnapshotEvent: { failed: false },
      cancelReason: 'destination_disabled',
    });
    expect(cancelled.ExpressionAttributeValues).toMatchObject({ ':reason': 'destination_disabled', ':gsi1sk': expect.stringMatching(/^cancelled#/) });
    const stored = { ...deliveryEntity.item(delivery), status: 'cancelled', cancelReason: 'destination_disabled', attempts: [attempt] };
    expect(deliveryEntity.parse(stored)).toMatchObject({ cancelReason: 'destination_disabled', attempts: [attempt], eventType: 'customer.created' });

    // One query per page: the destination's partition backwards, one status's range when filtered, after the position handed out
    const unfiltered = deliveryEntity.listByDestination('t', { scope, id: 'we_1' }, {});
    expect(unfiltered).toMatchObject({ IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ScanIndexForward: false, ExclusiveStartKey: undefined });
    const position = deliveryEntity.positionOf({ ...delivery, status: 'failed' });
    const next = deliveryEntity.listByDestination('t', { scope, id: 'we_1' }, { status: 'failed', after: position });
    expect(next).toMatchObject({
      KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :status)',
      ExpressionAttributeValues: { ':pk': 'DELIVERIES#acct_1#live#we_1', ':status': 'failed#' },
      ExclusiveStartKey: { GSI1PK: 'DELIVERIES#acct_1#live#we_1', GSI1SK: position, ...deliveryEntity.key('dlv_1') },
    });
    // A position that is not one, or one of another status than the filter, is a bad page token
    for (const after of ['failed#1#dlv_1', 'x', `pending#${'5'.padStart(15, '0')}#dlv_1`]) {
      expect(() => deliveryEntity.listByDestination('t', { scope, id: 'we_1' }, { status: 'failed', after })).toThrow(/page token/);
    }

    // A resend: the event linked (and for a snapshot event counted pending) if it is there under the limit, the delivery put
    const [link, put] = deliveryEntity.createResend('t', { ...delivery, resend: true, explicit: true });
    expect(link!.Update).toMatchObject({
      Key: snapshotEventEntity.key(scope, 'evt_1'),
      UpdateExpression: 'ADD deliveryIds :id, pendingWebhooks :one',
      ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(deliveryIds) OR size(deliveryIds) < :max)',
      ExpressionAttributeValues: { ':id': new Set(['dlv_1']), ':max': 100 },
    });
    expect(put!.Put).toMatchObject({ ConditionExpression: 'attribute_not_exists(PK)', Item: { id: 'dlv_1', resend: true } });
    const thinLink = deliveryEntity.createResend('t', { ...delivery, event: { kind: 'thin', scope, id: 'evt_2' } })[0]!.Update!;
    expect([thinLink.Key, thinLink.UpdateExpression]).toEqual([thinEventEntity.key(scope, 'evt_2'), 'ADD deliveryIds :id']);
  });

  it('reads thin and snapshot events back as the outbox wrote them, related by object through GSI1, and refuses a malformed one', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const thin: ThinEvent = {
      id: 'evt_1',
      scope,
      platformId: 'acct_p',
      type: 'v2.core.account.updated',
      created: 1_000,
      relatedObject: { id: 'acct_1', type: 'v2.core.account', url: '/v2/core/accounts/acct_1' },
      changes: null,
      data: null,
      reason: { id: 'req_1', idempotencyKey: null },
      snapshotEventId: null,
    };
    const thinItem = thinEventEntity.item(thin);
    expect(thinItem).toMatchObject({ ...thinEventEntity.key(scope, 'evt_1'), entity: 'thin_event', GSI1SK: 'EVENT#evt_1' });
    expect(thinItem.expiresAt).toBeGreaterThan(1);
    expect(thinEventEntity.parse(thinItem)).toEqual(thin);
    expect(() => thinEventEntity.parse({ ...thinItem, scope: 'acct_1' })).toThrow();
    // Its deliveries are a string set in the table (none: no attribute), a list when read back
    expect(thinEventEntity.item({ ...thin, deliveryIds: ['dlv_1'] }).deliveryIds).toEqual(new Set(['dlv_1']));
    expect(thinItem).not.toHaveProperty('deliveryIds');
    expect(thinEventEntity.parse({ ...thinItem, deliveryIds: new Set(['dlv_1', 'dlv_2']) }).deliveryIds).toEqual(['dlv_1', 'dlv_2']);

    const snapshot: SnapshotEvent = {
      id: 'evt_2',
      scope,
      platformId: 'acct_p',
      type: 'customer.created',
      created: 1_000,
      apiVersion: '2026-10-28.endive',
      object: { id: 'cus_1', object: 'customer' },
      previousAttributes: null,
      request: null,
      pendingWebhooks: 2,
      failedWebhooks: 0,
    };
    const snapshotItem = snapshotEventEntity.item(snapshot);
    expect(snapshotItem).toMatchObject({ ...snapshotEventEntity.key(scope, 'evt_2'), entity: 'snapshot_event' });
    expect(snapshotEventEntity.parse(snapshotItem)).toEqual(snapshot);
    // The object is kept as deflated JSON, so it reads back in the order it was rendered; an item written
    // before, with a map, still reads
    expect(snapshotItem.object).toBeInstanceOf(Uint8Array);
    expect(Object.keys(snapshotEventEntity.parse(snapshotItem).object)).toEqual(Object.keys(snapshot.object));
    expect(snapshotEventEntity.parse({ ...snapshotItem, object: snapshot.object }).object).toEqual(snapshot.object);
    const { failedWebhooks: _failed, ...older } = snapshotItem;
    expect(snapshotEventEntity.parse(older).failedWebhooks).toBe(0);
    expect(() => snapshotEventEntity.parse({ ...snapshotItem, object: 'cus_1' })).toThrow();
  });

  it("stores a token's expiry as the TTL attribute in seconds, reads it back in milliseconds, and refuses an unknown type", () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const token: Token = {
      id: 'tok_1',
      scope,
      created: 1_000,
      expiresAt: 601_000,
      clientIp: null,
      used: false,
      type: 'bank_account',
      bankAccount: {
        id: 'ba_1',
        country: 'US',
        currency: 'usd',
        last4: '6789',
        routingNumber: '110000000',
        accountHolderName: null,
        accountHolderType: 'individual',
        accountType: null,
        fingerprint: 'f1',
      },
    };
    const item = tokenEntity.item(token);
    expect(item).toMatchObject({ ...tokenEntity.key(scope, 'tok_1'), entity: 'token', expiresAt: 601 });
    expect(tokenEntity.parse({ ...item, usedAt: 5 })).toEqual(token);
    const { accountHolderName: _name, ...olderAccount } = token.type === 'bank_account' ? token.bankAccount : ({} as never);
    expect(tokenEntity.parse({ ...item, bankAccount: olderAccount })).toEqual(token);
    expect(() => tokenEntity.parse({ ...item, type: 'cheque' })).toThrow();
    const use = tokenEntity.use('t', { scope, id: 'tok_1', type: 'person', now: 61_000, param: 'person_token' }).Update!;
    expect(use).toMatchObject({ TableName: 't', Key: tokenEntity.key(scope, 'tok_1'), UpdateExpression: 'SET used = :true, usedAt = :now' });
    expect(use.ConditionExpression).toContain('#type = :type AND used = :false');
    expect(use.ConditionExpression).toContain('expiresAt > :nowSeconds');
    expect(use.ExpressionAttributeValues).toMatchObject({ ':type': 'person', ':nowSeconds': 61 });
    const { expiresAt: _expiresAt, ...fromBeforeExpiry } = item;
    expect(tokenEntity.parse(fromBeforeExpiry).expiresAt).toBe(Number.POSITIVE_INFINITY);
    const { bankAccount: _bankAccount, ...base }: Record<string, unknown> = item;
    const person = { ...base, type: 'person', person: { first_name: 'Ada', id_number_provided: false } };
    expect(tokenEntity.parse(person)).toMatchObject({ type: 'person', person: { first_name: 'Ada' } });
    expect(() => tokenEntity.parse({ ...person, person: 'Ada' })).toThrow();
    const personToken = { ...base, id: 'perstok_1', type: 'v2_person', accountId: 'acct_2', v2: { params: { given_name: 'Ada' }, userAgent: null } };
    expect(tokenEntity.parse(personToken)).toMatchObject({ type: 'v2_person', accountId: 'acct_2', v2: { params: { given_name: 'Ada' } } });
    expect(() => tokenEntity.parse({ ...personToken, accountId: undefined })).toThrow();
    expect(tokenEntity.parse({ ...base, type: 'v2_account', v2: { params: {} } })).toMatchObject({ v2: { params: {}, userAgent: null } });
  });

  it("builds an owned kind's writes: the cap counter first when capped, the put if absent, replace on the version before, delete with the count back", () => {
    const scope = { accountId: 'acct_1', livemode: false };
    type Thing = { id: string; scope: typeof scope; version: number; name: string };
    const keys = { pk: (owner: typeof scope) => `OWNER#${owner.accountId}`, sk: (id: string) => `THING#${id}`, skPrefix: () => 'THING#' };
    const parse = (item: Record<string, unknown>) => item as Thing;
    const capped = ownedEntity<Thing>({ entity: 'thing', keys, counterName: 'things', parse });
    const uncapped = ownedEntity<Thing>({ entity: 'thing', keys, parse });
    const thing: Thing = { id: 'th_1', scope, version: 1, name: 'one' };

    const [count, put] = capped.create('t', thing, 16);
    expect(count!.Update).toMatchObject({ UpdateExpression: 'ADD #count :delta', ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit' });
    expect(count!.Update!.ExpressionAttributeValues).toEqual({ ':delta': 1, ':limit': 16 });
    expect(put!.Put).toMatchObject({
      ConditionExpression: 'attribute_not_exists(PK)',
      Item: { PK: 'OWNER#acct_1', SK: 'THING#th_1', entity: 'thing', name: 'one' },
    });
    expect(uncapped.create('t', thing, 16)).toEqual([put]);

    expect(capped.replace('t', { ...thing, version: 3 })[0]!.Put).toMatchObject({
      ConditionExpression: 'attribute_exists(PK) AND version = :previous',
      ExpressionAttributeValues: { ':previous': 2 },
    });
    const removal = capped.delete('t', scope, 'th_1');
    expect(removal[0]!.Delete).toEqual({ TableName: 't', Key: capped.key(scope, 'th_1'), ConditionExpression: 'attribute_exists(PK)' });
    expect(removal[1]!.Update!.ExpressionAttributeValues).toEqual({ ':delta': -1 });
    expect(removal[1]!.Update).not.toHaveProperty('ConditionExpression');
    expect(uncapped.delete('t', scope, 'th_1')).toHaveLength(1);
  });

  it('writes a capture or refund as one change: the authorization and the capture on their versions, the new transaction if absent', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const authorization = { id: 'iauth_1', scope, version: 4, transactionIds: ['ipi_1', 'ipi_2'] } as unknown as Authorization;
    const capture = { id: 'ipi_1', scope, version: 2, type: 'capture', refundedAmount: 300 } as unknown as IssuingTransaction;
    const refund = { id: 'ipi_2', scope, version: 1, type: 'refund' } as unknown as IssuingTransaction;

    const actions = issuingTransactionEntity.record('t', { authorization, created: [refund], replaced: [capture] });
    expect(actions.map((action) => [action.Put!.Item!.SK, action.Put!.ConditionExpression, action.Put!.ExpressionAttributeValues])).toEqual([
      ['ISSUING_AUTHORIZATION#iauth_1', 'attribute_exists(PK) AND version = :previous', { ':previous': 3 }],
      ['ISSUING_TRANSACTION#ipi_1', 'attribute_exists(PK) AND version = :previous', { ':previous': 1 }],
      ['ISSUING_TRANSACTION#ipi_2', 'attribute_not_exists(PK)', undefined],
    ]);
    expect(actions.every((action) => action.Put!.Item!.PK === 'OWNER#acct_1#test')).toBe(true);
    expect(actions[2]!.Put!.Item).toMatchObject({ entity: 'issuing_transaction', type: 'refund' });
    expect(issuingTransactionEntity.record('t', { created: [refund] })).toHaveLength(1);

    // Read back without keys; an authorization stored before transactions existed shows none, and no refund room used
    const { authorizations, transactions } = issuingTransactionEntity;
    // (a capture stored before refunded merchant amounts were kept has refunded none)
    expect(transactions.parse(actions[1]!.Put!.Item!)).toEqual({ ...capture, refundedMerchantAmount: 0 });
    const { transactionIds: _, ...older } = authorization;
    expect(authorizations.parse({ ...authorizations.item(older as Authorization) })).toEqual({ ...older, transactionIds: [], refundBytes: 0 });
    expect(() => transactions.parse({ id: 'ipi_3' })).toThrow();
  });

  it('lists events by key range from the created window (ids encode time), through GSI1 for one object, filtered on types and expiry', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const byObject = thinEventListQuery(
      't',
      scope,
      { limit: 10, objectId: 'acct_x', after: 'evt_9', types: ['v2.core.account.updated', 'v2.core.account[*'] },
      86_400_000,
    );
    expect(byObject).toMatchObject({ IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK BETWEEN :lo AND :hi', ScanIndexForward: false });
    expect(byObject.ExclusiveStartKey).toEqual({
      ...thinEventEntity.key(scope, 'evt_9'),
      GSI1PK: byObject.ExpressionAttributeValues![':pk'],
      GSI1SK: 'EVENT#evt_9',
    });
    expect(byObject.FilterExpression).toBe('expiresAt > :now AND (#type IN (:type0) OR begins_with(#type, :prefix0))');
    expect(byObject.ExpressionAttributeValues).toMatchObject({ ':now': 86_400, ':type0': 'v2.core.account.updated', ':prefix0': 'v2.core.account[' });

    const window = snapshotEventListQuery(
      't',
      scope,
      { page: { limit: 10, endingBefore: 'evt_5' }, created: { from: 1_000, to: 2_000 }, deliverySuccess: false },
      0,
    );
    const { ':lo': lo, ':hi': hi } = window.ExpressionAttributeValues as Record<string, string>;
    expect(lo < `EVENT#${newId('evt', 1_000)}` && `EVENT#${newId('evt', 2_000)}` < hi && hi < `EVENT#${newId('evt', 2_001)}`).toBe(true);
    expect(window).toMatchObject({ ScanIndexForward: true, ExclusiveStartKey: snapshotEventEntity.key(scope, 'evt_5') });
    expect(window.FilterExpression).toBe('expiresAt > :now AND (pendingWebhooks > :zero OR failedWebhooks > :zero)');
  });

  it('takes a rate window only while the count fits, and keeps it a minute past its second', () => {
    const take = rateWindowEntity.take('t', 'KEY#h1', 1_000, 25, 5);
    expect(take).toMatchObject({
      ConditionExpression: 'attribute_not_exists(#count) OR #count <= :room',
      UpdateExpression: 'ADD #count :count SET expiresAt = :expires',
    });
    expect(take.ExpressionAttributeValues).toEqual({ ':count': 5, ':room': 20, ':expires': 1_060 });
  });

  it('takes an account update slot when absent or its lease ran out, and gives it back only for its owner', () => {
    const scope = { accountId: 'acct_p', livemode: false };
    const take = updateSlotEntity.take('t', scope, 'acct_1', 3, 'req_1', 50_000, 10_000);
    expect(take).toMatchObject({ ConditionExpression: 'attribute_not_exists(PK) OR leasedUntil < :now', ExpressionAttributeValues: { ':now': 50_000 } });
    expect(take.Item).toMatchObject({ ...updateSlotEntity.key(scope, 'acct_1', 3), owner: 'req_1', leasedUntil: 60_000, expiresAt: 60 + 3600 });
    expect(updateSlotEntity.giveBack('t', scope, 'acct_1', 3, 'req_1')).toMatchObject({
      ConditionExpression: '#owner = :owner',
      ExpressionAttributeValues: { ':owner': 'req_1', ':released': 0 },
    });
  });

  it("opens an account link once while fresh and unexpired, completes it by the opening session only, and keeps the link's expiry out of the TTL", () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const link: AccountLink = {
      account: 'acct_1',
      scope,
      platformId: 'acct_p',
      useCase: {
        type: 'account_onboarding',
        configurations: ['merchant'],
        refresh_url: 'https://example.com/refresh',
        return_url: null,
        collection_options: { fields: 'currently_due', future_requirements: 'omit' },
      },
      created: 1_000,
      expiresAt: 301_000,
      state: 'fresh',
      sessionHash: null,
      sessionExpiresAt: null,
    };
    const create = accountLinkEntity.create('t', link, 'hash1');
    expect(create).toMatchObject({ ConditionExpression: 'attribute_not_exists(PK)', Item: { ...accountLinkEntity.key('hash1'), linkExpiresAt: 301_000 } });
    expect(create.Item!.expiresAt).toBe(301 + 86_400);
    expect(accountLinkEntity.parse(create.Item!)).toEqual(link);
    const open = accountLinkEntity.open('t', 'hash1', { hash: 's1', expiresAt: 900_000 }, 2_000);
    expect(open).toMatchObject({ ConditionExpression: '#state = :fresh AND linkExpiresAt > :now', ExpressionAttributeValues: { ':ttl': 900 + 86_400 } });
    expect(accountLinkEntity.complete('t', 'hash1', 's1', 3_000)).toMatchObject({
      ConditionExpression: '#state = :opened AND sessionHash = :session',
      ExpressionAttributeValues: { ':session': 's1' },
    });
  });

  it('takes a usage lease with its entries, releases it counting them (a later `last` kept), and claims or fences identifiers', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const lease = { scope, meter: { id: 'mtr_1', formula: 'last' as const }, customerId: 'cus_1', minute: 60_000, owner: 'req_1' };
    const entry = { owner: 'req_1', identifier: 'id1', created: 61_000, value: 5, timestamp: 60_500 };
    const later = { ...entry, identifier: 'id2', value: 7, timestamp: 60_900 };

    const take = usageLeaseEntity.take('t', lease, [entry], 61_000);
    expect(take).toMatchObject({ ConditionExpression: 'attribute_not_exists(leaseUntil) OR leaseUntil < :now', ReturnValues: 'ALL_OLD' });
    expect(take.ExpressionAttributeNames).toEqual({ '#entry': 'entry#req_1' });
    expect(take.ExpressionAttributeValues).toMatchObject({
      ':until': 66_000,
      ':entries': [{ identifier: 'id1', created: 61_000, value: 5, timestamp: 60_500 }],
    });
    expect(usageLeaseEntity.take('t', lease, [], 61_000).UpdateExpression).toBe('SET leaseOwner = :owner, leaseUntil = :until');

    const counted = [
      { entry, setsLast: true },
      { entry: later, setsLast: true },
    ];
    const release = usageLeaseEntity.release('t', lease, counted, ['req_1', 'req_0', 'req_1'], true);
    expect(release.UpdateExpression).toBe(
      'SET entity = :entity, minuteStart = :minute, lastValue = :lastValue, lastTimestamp = :lastTimestamp, lastIdentifier = :lastIdentifier ADD #total :total, #events :events REMOVE leaseOwner, leaseUntil, #e0, #e1',
    );
    expect(release.ConditionExpression).toBe('leaseOwner = :owner AND (attribute_not_exists(lastTimestamp) OR lastTimestamp <= :lastTimestamp)');
    expect(release.ExpressionAttributeValues).toMatchObject({ ':total': 12, ':events': 2, ':lastValue': 7, ':lastIdentifier': 'id2' });
    const withoutLast = usageLeaseEntity.release('t', lease, counted, ['req_1'], false);
    expect(withoutLast.ConditionExpression).toBe('leaseOwner = :owner');
    expect(withoutLast.UpdateExpression).not.toContain('lastValue');
    expect(usageLeaseEntity.release('t', lease, [], ['req_1'], true).UpdateExpression).toBe('REMOVE leaseOwner, leaseUntil, #e0');

    const event = {
      eventName: 'api_call',
      identifier: 'id1',
      payload: {},
      timestamp: 60_500,
      scope,
      platformId: 'acct_p',
      created: 86_500_000,
      source: 'api' as const,
      batchId: null,
      status: 'processed' as const,
      meterId: 'mtr_1',
      cancelAdjustmentId: null,
    };
    const claim = usageLeaseEntity.claim('t', event, 'req_1');
    expect(claim.Item).toMatchObject({ claimedBy: 'req_1', entity: 'meter_event' });
    expect(claim.ExpressionAttributeValues).toEqual({ ':cutoff': 86_500_000 - 86_400_000, ':owner': 'req_1' });
    const fence = usageLeaseEntity.fence('t', scope, entry);
    expect(fence.ExpressionAttributeValues).toMatchObject({ ':fence': 'meter_event_fence', ':owners': new Set(['req_1']) });
  });

  it("counts a meter's errors per code into an unreported window, due at its end, and reads the window back most frequent code first", () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const error = (code: string, identifier: string) => ({ scope, platformId: 'acct_p', meterId: 'mtr_1', code, message: `${code}!`, identifier });
    const group = [error('meter_event_no_customer_defined', 'a'), error('meter_event_invalid_value', 'b'), error('meter_event_invalid_value', 'c')];
    const count = errorWindowEntity.count('t', 'METER_ERRORS#x', group, 3_600_000, 3_600_000, new Set());
    expect(count.ConditionExpression).toBe(
      'attribute_not_exists(reportedAt) AND (attribute_not_exists(#s0) OR size(#s0) < :max) AND (attribute_not_exists(#s1) OR size(#s1) < :max)',
    );
    expect(count.ExpressionAttributeNames).toMatchObject({
      '#c0': 'count_meter_event_no_customer_defined',
      '#c1': 'count_meter_event_invalid_value',
      '#s1': 'samples_meter_event_invalid_value',
    });
    expect(count.ExpressionAttributeValues).toMatchObject({
      ':count': 3,
      ':c0': 1,
      ':c1': 2,
      ':end': 7_200_000,
      ':gsi2sk': expect.stringMatching(/^0+7200000#/),
      ':max': 5,
    });
    // The samples come in the count's own write
    expect(count.ExpressionAttributeValues![':s1']).toEqual([
      { message: 'meter_event_invalid_value!', identifier: 'b' },
      { message: 'meter_event_invalid_value!', identifier: 'c' },
    ]);
    // A code whose samples are full is counted without them, and without a condition on them
    const full = errorWindowEntity.fullCodes({ samples_meter_event_invalid_value: Array.from({ length: 5 }, () => ({})), samples_other: [{}] });
    expect([...full]).toEqual(['meter_event_invalid_value']);
    const countOnly = errorWindowEntity.count('t', 'METER_ERRORS#x', group, 3_600_000, 3_600_000, full);
    expect(countOnly.ConditionExpression).toBe('attribute_not_exists(reportedAt) AND (attribute_not_exists(#s0) OR size(#s0) < :max)');
    expect(countOnly.ExpressionAttributeNames).toMatchObject({ '#s0': 'samples_meter_event_no_customer_defined' });
    expect(countOnly.UpdateExpression).not.toContain('#s1');
    const noneSampled = errorWindowEntity.count('t', 'METER_ERRORS#x', group, 3_600_000, 3_600_000, new Set(group.map((error) => error.code)));
    expect(noneSampled.ConditionExpression).toBe('attribute_not_exists(reportedAt)');
    expect(noneSampled.ExpressionAttributeValues).not.toHaveProperty(':max');

    const window = errorWindowEntity.parse({
      ...count.ExpressionAttributeValues,
      scope,
      platformId: 'acct_p',
      meterId: 'mtr_1',
      windowStart: 3_600_000,
      windowEnd: 7_200_000,
      errorCount: 3,
      count_meter_event_no_customer_defined: 1,
      count_meter_event_invalid_value: 2,
      samples_meter_event_invalid_value: count.ExpressionAttributeValues![':s1'],
    });
    expect(window.byCode.map(({ code, count, samples }) => [code, count, samples.length])).toEqual([
      ['meter_event_invalid_value', 2, 2],
      ['meter_event_no_customer_defined', 1, 0],
    ]);
    expect(errorWindowEntity.markReported('t', window, 9)).toMatchObject({ ConditionExpression: 'attribute_not_exists(reportedAt) AND errorCount = :seen' });
    expect(() => errorWindowEntity.parse({ scope, platformId: 'acct_p', windowStart: 1 })).toThrow();
  });

  it('requests a cancellation only of a counting event with none attached, stores batches due (a large one with a due item), and sweeps only what it read', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const event = {
      eventName: 'api_call',
      identifier: 'id1',
      payload: {},
      timestamp: 1,
      scope,
      platformId: 'acct_p',
      created: 5,
      source: 'api' as const,
      batchId: null,
      status: 'processed' as const,
      meterId: 'mtr_1',
      cancelAdjustmentId: null,
    };
    const adjustment = {
      id: 'mtradj_1',
      scope,
      platformId: 'acct_p',
      created: 9,
      eventName: 'api_call',
      type: 'cancel' as const,
      cancelIdentifier: 'id1',
      status: 'pending' as const,
    };
    const [attach, put] = meterEventRecordEntity.requestCancel('t', event, adjustment);
    expect(attach!.Update!.ConditionExpression).toBe('created = :created AND attribute_not_exists(cancelAdjustmentId) AND #status IN (:accepted, :processed)');
    expect(put!.Put!.Item).toMatchObject({ entity: 'meter_event_adjustment', id: 'mtradj_1', GSI2SK: expect.stringMatching(/^0+9#/) });

    const small = {
      id: 'mtrbatch_1',
      scope,
      platformId: 'acct_p',
      created: 7,
      events: [{ eventName: 'api_call', identifier: 'a', payload: {}, timestamp: 1 }],
    };
    expect(meterEventRecordEntity.batchItems(small)).toEqual([
      expect.objectContaining({ entity: 'meter_event_batch', GSI2SK: expect.stringMatching(/^0+7#/) }),
    ]);
    const large = { ...small, events: Array.from({ length: 20 }, (_, i) => ({ ...small.events[0]!, identifier: `identifier-${i}` })) };
    const [batch, due] = meterEventRecordEntity.batchItems(large);
    expect(batch).not.toHaveProperty('GSI2PK');
    expect(due).toMatchObject({ entity: 'meter_event_batch_due', GSI2SK: expect.stringMatching(/^0+7#/) });
    expect(due).not.toHaveProperty('events');

    const item = { PK: 'METER_BATCH#mtrbatch_1', SK: 'DUE', GSI2SK: 'seen' };
    expect(meterEventRecordEntity.reschedule('t', item, 60_000)).toMatchObject({
      ConditionExpression: 'GSI2SK = :seen',
      ExpressionAttributeValues: { ':seen': 'seen', ':one': 1 },
    });
    expect(meterEventRecordEntity.park('t', item, 60_000).UpdateExpression).toBe('SET parkedAt = :now REMOVE GSI2PK, GSI2SK');
    expect(meterEventRecordEntity.legacyCancelled('t', { ...event, status: 'accepted', cancelAdjustmentId: adjustment.id }).ConditionExpression).toBe(
      'created = :created AND #status = :accepted AND cancelAdjustmentId = :adjustment',
    );
    // Legacy (legacy-accepted-events): the batch the sweep writes for an old `accepted` event, due when the sweep says, in the transaction that deletes the record.
    const converted = meterEventRecordEntity.legacyToBatch('t', { ...event, status: 'accepted' }, small, 90_000);
    expect(converted.map((action) => Object.keys(action)[0])).toEqual(['Put', 'Delete']);
    expect(converted[0]!.Put!.Item).toMatchObject({ entity: 'meter_event_batch', GSI2SK: expect.stringMatching(/^0+90000#/) });
    expect(converted[1]!.Delete!.ConditionExpression).toBe('created = :created AND #status = :accepted AND attribute_not_exists(cancelAdjustmentId)');
  });

  it('writes a catalogue change as one transaction: each new price counted on its existing product, deletes and lookup keys conditional on what was read', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const product = { id: 'prod_1', scope, version: 3, name: 'Gold', priceCount: 0 } as Product;
    const price = (id: string, owner: string) => ({ id, scope, version: 1, product: owner, currency: 'usd' }) as Price;
    const actions = catalogueEntity.commit('t', {
      scope,
      newProducts: [{ ...product, id: 'prod_new', version: 1, priceCount: 1 }],
      newPrices: [price('price_a', 'prod_1'), price('price_b', 'prod_1'), price('price_c', 'prod_new')],
      changedPrices: [{ ...price('price_old', 'prod_1'), version: 2 }],
      lookupKeys: [
        { key: 'gold', from: null, to: 'price_a' },
        { key: 'silver', from: 'price_old', to: 'price_b' },
        { key: 'bronze', from: 'price_old', to: null },
      ],
    });
    expect(actions.map((action) => Object.keys(action)[0])).toEqual(['Put', 'Update', 'Put', 'Put', 'Put', 'Put', 'Put', 'Put', 'Delete']);
    // The existing product counts its two new prices and moves its version; the new one was written with its count.
    expect(actions[1]!.Update).toMatchObject({
      Key: { PK: 'OWNER#acct_1#test', SK: 'PRODUCT#prod_1' },
      UpdateExpression: 'ADD priceCount :count, version :one',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':count': 2, ':one': 1 },
    });
    expect(actions[0]!.Put).toMatchObject({ ConditionExpression: 'attribute_not_exists(PK)', Item: { SK: 'PRODUCT#prod_new', priceCount: 1 } });
    expect(actions[5]!.Put).toMatchObject({ ConditionExpression: 'attribute_exists(PK) AND version = :previous', Item: { SK: 'PRICE#price_old' } });
    expect(actions[6]!.Put).toEqual({
      TableName: 't',
      Item: { PK: 'OWNER#acct_1#test', SK: 'PRICE_LOOKUP_KEY#gold', entity: 'price_lookup_key', priceId: 'price_a' },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
    expect(actions[7]!.Put).toMatchObject({ ConditionExpression: 'priceId = :from', ExpressionAttributeValues: { ':from': 'price_old' } });
    expect(actions[8]!.Delete).toMatchObject({ Key: { SK: 'PRICE_LOOKUP_KEY#bronze' }, ConditionExpression: 'priceId = :from' });

    // What a change relies on without writing it (a default price, an archived price's product) is checked at its version
    expect(catalogueEntity.commit('t', { scope, unchangedProducts: [product], unchangedPrices: [price('price_a', 'prod_1')] })).toEqual([
      {
        ConditionCheck: {
          TableName: 't',
          Key: { PK: 'OWNER#acct_1#test', SK: 'PRODUCT#prod_1' },
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': 3 },
        },
      },
      {
        ConditionCheck: {
          TableName: 't',
          Key: { PK: 'OWNER#acct_1#test', SK: 'PRICE#price_a' },
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': 1 },
        },
      },
    ]);

    const [removal] = catalogueEntity.commit('t', { scope, deletedProduct: product });
    expect(removal!.Delete).toEqual({
      TableName: 't',
      Key: { PK: 'OWNER#acct_1#test', SK: 'PRODUCT#prod_1' },
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': 3 },
    });
    // Items from before prices were counted (or had options) read as such.
    const stored = catalogueEntity.products.item({ ...product, marketingFeatures: [], packageDimensions: null, shippable: null } as Product);
    const { priceCount: _count, marketingFeatures: _features, ...legacy } = stored as unknown as Record<string, unknown>;
    expect(
      catalogueEntity.products.parse({
        ...legacy,
        created: 1,
        updated: 1,
        active: true,
        description: null,
        metadata: {},
        unitLabel: null,
        url: null,
        statementDescriptor: null,
        taxCode: null,
        images: [],
        defaultPrice: null,
      }),
    ).toMatchObject({ priceCount: null, marketingFeatures: [] });
  });

  it("writes a customer's source change as one transaction: the token used up first, the customer on its version, the source new; sources sort by time across kinds", () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const customer = { id: 'cus_1', scope, version: 4, sourceCount: 1, defaultSource: 'card_1B' } as Customer;
    const card = { id: 'card_1C', scope, version: 1, customer: 'cus_1', created: 5, metadata: {}, object: 'card' } as unknown as CustomerSource;
    const old = { ...card, id: 'ba_1A', object: 'bank_account' } as unknown as CustomerSource;
    const [consume, replace, attach, detach] = customerSourceEntity.change('t', {
      customer,
      token: { scope, id: 'tok_1', type: 'card', now: 61_000, param: 'source' },
      attach: card,
      detach: [old],
    });
    expect(consume!.Update).toMatchObject({
      Key: { PK: 'TOKEN#acct_1#test#tok_1', SK: 'TOKEN' },
      ConditionExpression: 'attribute_exists(PK) AND #type = :type AND used = :false AND (attribute_not_exists(expiresAt) OR expiresAt > :nowSeconds)',
      ExpressionAttributeValues: { ':type': 'card', ':nowSeconds': 61 },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    expect(consume!.Update).not.toHaveProperty('ReturnValues');
    expect(replace!.Put).toMatchObject({ ConditionExpression: 'attribute_exists(PK) AND version = :previous', ExpressionAttributeValues: { ':previous': 3 } });
    expect(attach!.Put).toMatchObject({
      ConditionExpression: 'attribute_not_exists(PK)',
      Item: { PK: 'OWNER#acct_1#test', SK: 'CUSTOMER_SOURCE#cus_1#1C#card', entity: 'customer_source', customer: 'cus_1' },
    });
    expect(detach!.Delete).toMatchObject({ Key: { SK: 'CUSTOMER_SOURCE#cus_1#1A#ba' }, ConditionExpression: 'attribute_exists(PK)' });
    // A bank account made before a card sorts before it: a list is in creation order whatever the kind.
    expect(customerSourceEntity.key(scope, 'cus_1', 'ba_1A').SK < customerSourceEntity.key(scope, 'cus_1', 'card_1C').SK).toBe(true);
    expect(customerSourceEntity.change('t', { customer: { ...customer, version: 1 }, isNew: true })[0]!.Put!.ConditionExpression).toBe(
      'attribute_not_exists(PK)',
    );

    const [removal, tombstone, ...sources] = customerSourceEntity.deleteWithSources('t', { ...customer, created: 7 }, [card, old], 9_000);
    // The customer leaves its key on the version read (and with it the email index), first, as the guarded action
    expect(removal!.Delete).toEqual({
      TableName: 't',
      Key: { PK: 'OWNER#acct_1#test', SK: 'CUSTOMER#cus_1' },
      ConditionExpression: 'version = :version AND attribute_not_exists(deleted)',
      ExpressionAttributeValues: { ':version': 4 },
    });
    // Its tombstone goes beside it, outside the CUSTOMER# range lists and search read: no email index keys
    expect(tombstone!.Put).toEqual({
      TableName: 't',
      Item: {
        PK: 'OWNER#acct_1#test',
        SK: 'DELETED_CUSTOMER#cus_1',
        entity: 'customer',
        id: 'cus_1',
        scope,
        deleted: true,
        created: 7,
        deletedAt: 9_000,
        version: 5,
      },
    });
    expect(tombstone!.Put!.Item!.SK.startsWith(customerKeys.skPrefix())).toBe(false);
    expect(customerSourceEntity.parseFound(tombstone!.Put!.Item!)).toEqual({ id: 'cus_1', scope, deleted: true, created: 7, deletedAt: 9_000, version: 5 });
    expect(sources.map((action) => action.Delete!.Key!.SK)).toEqual(['CUSTOMER_SOURCE#cus_1#1C#card', 'CUSTOMER_SOURCE#cus_1#1A#ba']);
    expect(customerSourceEntity.replace('t', { ...card, version: 2 }).Put).toMatchObject({ ExpressionAttributeValues: { ':previous': 1 } });
    // Customers stored before sources existed read as having none.
    const {
      defaultSource: _default,
      sourceCount: _count,
      ...legacy
    } = customerSourceEntity.customers.item({
      ...customer,
      created: 1,
      name: null,
      email: null,
      description: null,
      phone: null,
      address: null,
      shipping: null,
      balance: 0,
      invoicePrefix: 'ABC',
      nextInvoiceSequence: 1,
      preferredLocales: [],
      taxExempt: 'none',
      metadata: {},
    } as Customer);
    expect(customerSourceEntity.customers.parse(legacy)).toMatchObject({ defaultSource: null, sourceCount: 0 });
  });

  it('lists customers without tombstones, by email through GSI1 (a hashed, case-sensitive key), and by creation window as a sort-key range', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    // Given a customer with an email: its item carries the GSI1 keys of its owner, mode and exact email
    const stored: Record<string, unknown> = {
      ...customerSourceEntity.customers.item({ id: 'cus_1Abc', scope, version: 1, email: 'Ada@example.com' } as Customer),
    };
    expect(stored.GSI1PK).toBe(`CUSTOMER_EMAIL#acct_1#test#${createHash('sha256').update('Ada@example.com').digest('base64url')}`);
    expect(stored.GSI1SK).toBe('CUSTOMER#cus_1Abc');
    expect(customerSourceEntity.customers.item({ id: 'cus_1Abc', scope, version: 1, email: null } as Customer)).not.toHaveProperty('GSI1PK');
    expect(customerKeys.gsi1pk(scope, 'ada@example.com')).not.toBe(customerKeys.gsi1pk(scope, 'Ada@example.com'));
    expect(customerKeys.gsi1pk({ ...scope, livemode: true }, 'Ada@example.com')).not.toBe(customerKeys.gsi1pk(scope, 'Ada@example.com'));

    // When a plain page is listed: the owner's customers, tombstones filtered out, one page's worth read first
    const plain = ownerPageQuery('t', customerSourceEntity.listQuery(scope, { limit: 10 }))!;
    expect(plain).toMatchObject({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': 'OWNER#acct_1#test', ':prefix': 'CUSTOMER#' },
      FilterExpression: 'attribute_not_exists(#a0)',
      ExpressionAttributeNames: { '#a0': 'deleted' },
      ScanIndexForward: false,
    });
    expect(plain).not.toHaveProperty('IndexName');

    // When filtered by email and a creation window after a cursor: GSI1, a BETWEEN of id bounds, the cursor with both key pairs
    const from = Date.UTC(2025, 0, 1);
    const byEmail = ownerPageQuery(
      't',
      customerSourceEntity.listQuery(
        scope,
        { limit: 10, startingAfter: newId('cus', from + 5000) },
        { email: 'Ada@example.com', created: { from, to: from + 9999 } },
      ),
    )!;
    expect(byEmail).toMatchObject({
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK BETWEEN :lo AND :hi',
      ExpressionAttributeValues: {
        ':pk': customerKeys.gsi1pk(scope, 'Ada@example.com'),
        ':lo': `CUSTOMER#${idBoundAt('cus', from)}`,
        ':hi': `CUSTOMER#${idBoundAt('cus', from + 9999, true)}`,
      },
      FilterExpression: 'attribute_not_exists(#a0)',
    });
    expect(byEmail.ExclusiveStartKey).toMatchObject({ PK: 'OWNER#acct_1#test', GSI1PK: customerKeys.gsi1pk(scope, 'Ada@example.com') });
    expect(byEmail.ExclusiveStartKey!.SK).toBe(byEmail.ExclusiveStartKey!.GSI1SK);

    // Then an empty window, or a cursor past its end, reads nothing at all
    expect(ownerPageQuery('t', customerSourceEntity.listQuery(scope, { limit: 10 }, { created: { from: from + 2000, to: from + 1000 } }))).toBeUndefined();
    expect(
      ownerPageQuery('t', customerSourceEntity.listQuery(scope, { limit: 10, startingAfter: newId('cus', from - 1) }, { created: { from } })),
    ).toBeUndefined();
    // and a cursor above the window starts from its top
    expect(
      ownerPageQuery(
        't',
        customerSourceEntity.listQuery(scope, { limit: 10, startingAfter: newId('cus', from + 20_000) }, { created: { from, to: from + 9999 } }),
      )!.ExclusiveStartKey,
    ).toBeUndefined();
  });

  it('makes a subscription claim its live customer in its transaction, so none is made for a deleted customer', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const [claim, put, pointer] = subscriptionEntity.create('t', {
      id: 'sub_1',
      scope,
      version: 1,
      customer: 'cus_1',
      items: [{ id: 'si_1' }],
      due: { at: null, testClock: null },
    } as unknown as Subscription);
    expect(pointer!.Put).toEqual({
      TableName: 't',
      Item: { PK: 'OWNER#acct_1#test', SK: 'SUBSCRIPTION_ITEM#si_1', entity: 'subscription_item', subscription: 'sub_1' },
    });
    expect(claim!.Update).toEqual({
      TableName: 't',
      Key: { PK: 'OWNER#acct_1#test', SK: 'CUSTOMER#cus_1' },
      UpdateExpression: 'SET version = version + :one',
      ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(deleted)',
      ExpressionAttributeValues: { ':one': 1 },
    });
    expect(put!.Put).toMatchObject({ Item: { SK: 'SUBSCRIPTION#sub_1' }, ConditionExpression: 'attribute_not_exists(PK)' });
  });
  it("puts a test clock in the stack's billing queue at its due time, deletes it on its version with the count back, and rewrites its customers only while it is not advancing", () => {
    const scope = { accountId: 'acct_clock', livemode: false };
    const clock: TestClock = {
      id: 'clock_1',
      scope,
      version: 3,
      created: 1_000,
      deletesAfter: 9_000,
      frozenTime: 1_893_456_000_000,
      name: null,
      status: 'ready',
      targetFrozenTime: null,
      failedRuns: 0,
      customers: ['cus_a'],
      due: { at: 9_000, testClock: null },
      platformId: 'acct_clock',
      apiVersion: '2026-10-28.endive',
    };

    const item = testClockEntity.item(clock);
    const [counter, put] = testClockEntity.create('t', clock, 100);
    const [remove, uncount] = testClockEntity.deleteAt('t', clock);
    const customers = customerSourceEntity.clockCustomers('t', scope, 'clock_1', 3, ['cus_a', 'cus_b']);

    expect(item).toMatchObject({
      PK: 'OWNER#acct_clock#test',
      SK: 'TEST_CLOCK#clock_1',
      GSI2PK: expect.stringMatching(/^BILLING_DUE#\d+$/),
      GSI2SK: '000000000009000#test_clock#clock_1',
    });
    expect(testClockEntity.parse(Object.fromEntries(Object.entries(item)))).toEqual(clock);
    expect(counter?.Update).toMatchObject({ Key: { SK: 'COUNTER#test_clocks' }, ExpressionAttributeValues: { ':limit': 100 } });
    expect(put?.Put?.ConditionExpression).toBe('attribute_not_exists(PK)');
    expect(remove?.Delete).toMatchObject({ ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': 3 } });
    expect(uncount?.Update).toMatchObject({ Key: { SK: 'COUNTER#test_clocks' }, ExpressionAttributeValues: { ':delta': -1 } });
    expect(customers.Update).toMatchObject({
      Key: { PK: 'OWNER#acct_clock#test', SK: 'TEST_CLOCK#clock_1' },
      ConditionExpression: 'version = :version AND #status <> :advancing',
      ExpressionAttributeValues: { ':customers': ['cus_a', 'cus_b'], ':next': 4, ':version': 3, ':advancing': 'advancing' },
    });
  });

  it("writes a new customer on a test clock with the clock's customer list in its transaction, and reads a clock's partition earliest first", () => {
    const scope = { accountId: 'acct_clock', livemode: false };
    const customer = {
      ...customerSourceEntity.customers.parse({
        id: 'cus_on',
        scope,
        version: 1,
        created: 1,
        name: null,
        email: null,
        description: null,
        phone: null,
        address: null,
        shipping: null,
        balance: 0,
        invoicePrefix: 'ABC',
        nextInvoiceSequence: 1,
        preferredLocales: [],
        taxExempt: 'none',
        metadata: {},
        defaultSource: null,
        testClock: 'clock_1',
      }),
    };

    const actions = customerSourceEntity.change('t', { customer, isNew: true, clock: { id: 'clock_1', version: 2, customers: ['cus_on'] } });
    const attached = testClockEntity.createWithCustomer(
      't',
      {
        id: 'clock_2',
        scope,
        version: 1,
        created: 1,
        deletesAfter: 2,
        frozenTime: 3_000,
        name: null,
        status: 'ready',
        targetFrozenTime: null,
        failedRuns: 0,
        customers: ['cus_on'],
        due: { at: 2, testClock: null },
        platformId: 'acct_clock',
        apiVersion: '2026-10-28.endive',
      },
      { ...customer, testClock: 'clock_2', version: 2 },
      100,
    );
    const query = billingDueQueries.earliestOnClock('t', scope, 'clock_1', 5_000);
    const onClock = billingDueQueries.allOnClock('t', scope, 'clock_1', 'subscription');

    expect(customer.testClock).toBe('clock_1');
    expect(actions.map((action) => Object.keys(action)[0])).toEqual(['Put', 'Update']);
    expect(actions[1]?.Update?.Key).toEqual({ PK: 'OWNER#acct_clock#test', SK: 'TEST_CLOCK#clock_1' });
    expect(query).toMatchObject({
      IndexName: 'GSI2',
      ExpressionAttributeValues: { ':pk': 'TEST_CLOCK_DUE#acct_clock#test#clock_1', ':by': '000000000005000#~#' },
      Limit: 1,
    });
    expect(query).not.toHaveProperty('ScanIndexForward', false);
    // Every subscription on the clock (53c): its whole due partition, the subscriptions filtered from its invoices
    expect(onClock).toEqual({
      TableName: 't',
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk',
      FilterExpression: 'entity = :entity',
      ExpressionAttributeValues: { ':pk': 'TEST_CLOCK_DUE#acct_clock#test#clock_1', ':entity': 'subscription' },
    });
    // A clock created with an existing customer: the cap first, the clock if absent, the customer on its version
    expect(attached.map((action) => Object.keys(action)[0])).toEqual(['Update', 'Put', 'Put']);
    expect(attached[2]?.Put).toMatchObject({ Item: { SK: 'CUSTOMER#cus_on', testClock: 'clock_2' }, ExpressionAttributeValues: { ':previous': 1 } });
  });

  it('puts a subscription in the sparse threshold index while it has thresholds, on the stack’s clock, not ended, and reads it shard by shard (33d)', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const base = { id: 'sub_t', scope, version: 2, items: [], due: { at: null, testClock: null }, testClock: null, endedAt: null } as unknown as Subscription;
    const [withThresholds] = subscriptionEntity.subscriptions.replace('t', { ...base, billingThresholds: { amountGte: 1000, resetBillingCycleAnchor: false } });
    expect(withThresholds!.Put!.Item).toMatchObject({ GSI1PK: expect.stringMatching(/^BILLING_THRESHOLDS#\d+$/), GSI1SK: 'sub_t' });
    expect(withThresholds!.Put!.Item).toEqual(expect.objectContaining(thresholdIndexEntry('sub_t')));
    const itemOnly = { ...base, items: [{ id: 'si_1', billingThresholds: { usageGte: 5 } }] } as unknown as Subscription;
    expect(subscriptionEntity.subscriptions.replace('t', itemOnly)[0]!.Put!.Item).toHaveProperty('GSI1PK');
    for (const outside of [
      { ...base, billingThresholds: null },
      { ...base, billingThresholds: { amountGte: 1000, resetBillingCycleAnchor: false }, testClock: 'clock_1' },
      { ...base, billingThresholds: { amountGte: 1000, resetBillingCycleAnchor: false }, endedAt: 5 },
    ] as Subscription[])
      expect(subscriptionEntity.subscriptions.replace('t', outside)[0]!.Put!.Item).not.toHaveProperty('GSI1PK');
    expect(thresholdIndexQuery('t', 3)).toEqual({
      TableName: 't',
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': 'BILLING_THRESHOLDS#3' },
    });
    expect(thresholdIndexQuery('t', 3, { PK: 'x' })).toMatchObject({ ExclusiveStartKey: { PK: 'x' } });
  });

  it("adds and removes subscription items' pointers in the subscription's versioned write (33c)", () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const [put, added, removed] = subscriptionEntity.replaceItems(
      't',
      { id: 'sub_1', scope, version: 4, items: [], due: { at: null, testClock: null } } as unknown as Subscription,
      {
        added: ['si_new'],
        removed: ['si_old'],
      },
    );
    expect(put!.Put).toMatchObject({
      Item: { SK: 'SUBSCRIPTION#sub_1' },
      ConditionExpression: 'attribute_exists(PK) AND version = :previous',
      ExpressionAttributeValues: { ':previous': 3 },
    });
    expect(added!.Put!.Item).toEqual({ PK: 'OWNER#acct_1#test', SK: 'SUBSCRIPTION_ITEM#si_new', entity: 'subscription_item', subscription: 'sub_1' });
    expect(removed!.Delete).toEqual({ TableName: 't', Key: { PK: 'OWNER#acct_1#test', SK: 'SUBSCRIPTION_ITEM#si_old' } });
    expect(subscriptionEntity.itemPointerKey(scope, 'si_new')).toEqual({ PK: 'OWNER#acct_1#test', SK: 'SUBSCRIPTION_ITEM#si_new' });
  });

  it("writes a subscription change's proration invoice items, and deletes pending ones on their versions, in the subscription's versioned write (33c, 60b)", () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const made = { id: 'ii_new', scope, version: 1, proration: true, pending: true } as InvoiceItem;
    const gone = { id: 'ii_old', scope, version: 3 } as InvoiceItem;
    const [put, created, deleted] = subscriptionEntity.replaceItems(
      't',
      { id: 'sub_1', scope, version: 4, items: [], due: { at: null, testClock: null } } as unknown as Subscription,
      { added: [], removed: [], invoiceItems: [made], deletedInvoiceItems: [gone] },
    );
    expect(put!.Put).toMatchObject({ Item: { SK: 'SUBSCRIPTION#sub_1' }, ExpressionAttributeValues: { ':previous': 3 } });
    expect(created!.Put).toMatchObject({ Item: { PK: 'OWNER#acct_1#test', SK: 'INVOICE_ITEM#ii_new', entity: 'invoice_item' } });
    expect(created!.Put!.ConditionExpression).toContain('attribute_not_exists');
    expect(deleted!.Delete).toMatchObject({
      Key: { PK: 'OWNER#acct_1#test', SK: 'INVOICE_ITEM#ii_old' },
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': 3 },
    });
  });

  it('writes an invoice change as one transaction conditional on what was read, with the invoice in the due index while something is due', () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const draft = { id: 'in_1', scope, version: 1, customer: 'cus_1', due: { at: 5_000, testClock: null } } as Invoice;
    const joined = { id: 'ii_1', scope, version: 2, invoice: 'in_1', pending: false } as InvoiceItem;
    const customer = { id: 'cus_1', scope, version: 7 } as Customer;
    const [put, item, check] = invoiceEntity.commit('t', { newInvoice: draft, items: [joined], customerRead: customer });
    expect(put!.Put).toMatchObject({
      Item: { PK: 'OWNER#acct_1#test', SK: 'INVOICE#in_1', entity: 'invoice' },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
    expect(put!.Put!.Item!.GSI2SK).toMatch(/^0+5000#invoice#in_1$/);
    expect(put!.Put!.Item!.GSI2PK).toMatch(/^BILLING_DUE#\d+$/);
    expect(item!.Put).toMatchObject({
      Item: { SK: 'INVOICE_ITEM#ii_1' },
      ConditionExpression: 'attribute_exists(PK) AND version = :previous',
      ExpressionAttributeValues: { ':previous': 1 },
    });
    expect(check!.ConditionCheck).toMatchObject({ Key: { SK: 'CUSTOMER#cus_1' }, ExpressionAttributeValues: { ':version': 7 } });
    // On a test clock the entry is in the clock's partition; with nothing due, in none.
    const onClock = invoiceEntity.commit('t', { invoice: { ...draft, version: 2, due: { at: 5_000, testClock: 'clock_1' } } })[0]!;
    expect(onClock.Put!.Item!.GSI2PK).toBe('TEST_CLOCK_DUE#acct_1#test#clock_1');
    const settled = invoiceEntity.commit('t', { invoice: { ...draft, version: 2, due: { at: null, testClock: null } } })[0]!;
    expect(settled.Put!.Item!.GSI2PK).toBeUndefined();
    const [gone] = invoiceEntity.commit('t', { deletedInvoice: draft });
    expect(gone!.Delete).toMatchObject({
      Key: { SK: 'INVOICE#in_1' },
      ConditionExpression: 'version = :version',
      ExpressionAttributeValues: { ':version': 1 },
    });
  });
  it("caps a meter and customer's billing alerts with a counter, keeps pending alerts in the due index, and fires one once in a transaction conditional on the trigger record and the version", () => {
    const scope = { accountId: 'acct_1', livemode: false };
    const alert: BillingAlert = {
      id: 'alrt_1',
      scope,
      version: 3,
      platformId: 'acct_1',
      created: 5_000,
      title: 'At ten',
      status: 'active',
      usageThreshold: { meterId: 'mtr_1', formula: 'sum', gte: 10, customerId: 'cus_1', recurrence: 'one_time' },
      triggeredAt: null,
    };
    const [cap, put] = billingAlertEntity.create('t', alert, 25);
    expect(cap!.Update).toMatchObject({
      Key: { PK: 'OWNER#acct_1#test', SK: 'COUNTER#billing_alerts#mtr_1#cus_1' },
      ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
      ExpressionAttributeValues: { ':delta': 1, ':limit': 25 },
    });
    expect(put!.Put).toMatchObject({
      Item: { PK: 'OWNER#acct_1#test', SK: 'BILLING_ALERT#alrt_1', entity: 'billing_alert' },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
    expect(put!.Put!.Item!.GSI2PK).toMatch(/^BILLING_ALERTS_PENDING#\d+$/);
    expect(put!.Put!.Item!.GSI2SK).toMatch(/^0+5000#alrt_1$/);
    // Inactive, fired or archived alerts leave the index; an archive gives its place under the cap back and leaves the list
    expect(billingAlertEntity.replace('t', { ...alert, status: 'inactive', version: 4 }, 'active')).toHaveLength(1);
    expect(billingAlertEntity.replace('t', { ...alert, status: 'inactive', version: 4 }, 'active')[0]!.Put!.Item!.GSI2PK).toBeUndefined();
    expect(billingAlertEntity.item({ ...alert, triggeredAt: 6_000 })).not.toHaveProperty('GSI2PK');
    const [archived, freed] = billingAlertEntity.replace('t', { ...alert, status: 'archived', version: 4 }, 'inactive');
    expect(archived!.Put).toMatchObject({
      Item: { archived: 'true' },
      ConditionExpression: 'attribute_exists(PK) AND version = :previous',
      ExpressionAttributeValues: { ':previous': 3 },
    });
    expect(freed!.Update).toMatchObject({ Key: { SK: 'COUNTER#billing_alerts#mtr_1#cus_1' }, ExpressionAttributeValues: { ':delta': -1 } });
    expect(freed!.Update!.ConditionExpression).toBeUndefined();

    const [record, mark] = billingAlertEntity.trigger('t', alert, { alertId: 'alrt_1', customerId: 'cus_1', value: 12, at: 7_000 });
    expect(record!.Put).toMatchObject({
      Item: { PK: 'OWNER#acct_1#test', SK: 'BILLING_ALERT_TRIGGER#alrt_1#cus_1', entity: 'billing_alert_trigger', value: 12, at: 7_000 },
      ConditionExpression: 'attribute_not_exists(PK)',
    });
    expect(mark!.Update).toMatchObject({
      Key: { PK: 'OWNER#acct_1#test', SK: 'BILLING_ALERT#alrt_1' },
      UpdateExpression: 'SET triggeredAt = :at, version = :next REMOVE GSI2PK, GSI2SK',
      ConditionExpression: '#status = :active AND version = :read',
      ExpressionAttributeValues: { ':at': 7_000, ':next': 4, ':active': 'active', ':read': 3 },
    });
  });

  it('marks a late change’s hour before its write and only then, keeps rollups newest-first and the watermark monotone, and registers a partition for the daily roll (E20a, E20b)', () => {
    const partition = { scope: { accountId: 'acct_1', livemode: false }, meterId: 'mtr_1', customerId: 'cus_1' };
    const hour = 1_800_000_000_000 - (1_800_000_000_000 % 3_600_000);
    const pk = 'METER_USAGE#acct_1#test#mtr_1#cus_1';
    // Given a change of a minute of that hour: on time up to five minutes after the hour ended, late from then on
    expect(usageRollupEntity.markLate('t', partition, hour + 60_000, hour + 3_600_000 + 299_999)).toBeUndefined();
    expect(usageRollupEntity.markLate('t', partition, hour + 60_000, hour + 3_600_000 + 300_000)).toEqual({
      TableName: 't',
      Key: { PK: pk, SK: `HOUR#${String(hour).padStart(15, '0')}` },
      UpdateExpression: 'SET entity = :entity, dirtyAt = :at',
      ConditionExpression: 'attribute_not_exists(dirtyAt) OR dirtyAt < :at',
      ExpressionAttributeValues: { ':entity': 'meter_usage_hour', ':at': hour + 3_600_000 + 300_000 },
    });
    // A rollup replaces only an older one and leaves the marker; without a `last` it removes the old one
    const rollup = usageRollupEntity.writeRollup('t', partition, { hour, total: 9, events: 3, last: { value: 4, timestamp: hour + 5 } }, 77);
    expect(rollup).toMatchObject({
      Key: { PK: pk, SK: `HOUR#${String(hour).padStart(15, '0')}` },
      UpdateExpression: 'SET entity = :entity, #total = :total, #events = :events, asOf = :asOf, lastValue = :lastValue, lastTimestamp = :lastTimestamp',
      ConditionExpression: 'attribute_not_exists(asOf) OR asOf < :asOf',
    });
    expect(usageRollupEntity.writeRollup('t', partition, { hour, total: 0, events: 0, last: null }, 77).UpdateExpression).toBe(
      'SET entity = :entity, #total = :total, #events = :events, asOf = :asOf REMOVE lastValue, lastTimestamp',
    );
    // The watermark sorts after every hour of the partition and never moves back
    expect(usageRollupEntity.watermarkKey(partition).SK > usageRollupEntity.hourKey(partition, 999_999_999_999_999).SK).toBe(true);
    expect(usageRollupEntity.advance('t', partition, hour)).toMatchObject({
      UpdateExpression: 'SET entity = :entity, rolledThrough = :to',
      ConditionExpression: 'attribute_not_exists(rolledThrough) OR rolledThrough < :to',
    });
    // Registered: due a day later in a shard of the rolls' due index unless scheduled already, until a day past the period
    const registration = registerUsageRoll({ name: 't', clock: () => 1_000 }, partition, 5_000).Update!;
    expect(registration.Key).toEqual({ PK: pk, SK: 'HOUR#~' });
    expect(registration.UpdateExpression).toBe(
      'SET entity = :entity, rollUntil = :until, GSI2PK = if_not_exists(GSI2PK, :pk), GSI2SK = if_not_exists(GSI2SK, :sk)',
    );
    expect(registration.ExpressionAttributeValues).toMatchObject({
      ':until': 5_000 + 86_400_000,
      ':sk': `${String(1_000 + 86_400_000).padStart(15, '0')}#${pk}`,
    });
    expect(registration.ExpressionAttributeValues![':pk']).toMatch(/^METER_ROLLS_DUE#\d+$/);
    // A sweep claims a due roll only if no other sweep moved it since, and lapses it only if nobody registered it again
    expect(usageRollupEntity.claim('t', { PK: pk, SK: 'HOUR#~' }, 'read-sk', 0)).toMatchObject({ ConditionExpression: 'GSI2SK = :read' });
    expect(usageRollupEntity.lapse('t', partition, 9)).toMatchObject({ UpdateExpression: 'REMOVE GSI2PK, GSI2SK', ConditionExpression: 'rollUntil <= :now' });
  });
});
