import { createHash } from 'node:crypto';
import type { Scope } from '#shared/platform/types.ts';

/**
 * Every key string of the single table. No other module writes a key template; TABLE_DESIGN.md
 * documents the entities and access patterns these functions serve.
 */

const mode = (livemode: boolean): string => (livemode ? 'live' : 'test');

/** The partition that holds everything one account owns in one mode. */
export const ownerPk = (scope: Scope): string => `OWNER#${scope.accountId}#${mode(scope.livemode)}`;

/**
 * An owned kind: its objects live in their owner's partition under `<PREFIX>#<id>`, so one begins_with
 * range lists them newest last (ids sort by creation time).
 */
const ownedKind = <P extends string>(prefix: P) => ({
  pk: ownerPk,
  sk: (id: string) => `${prefix}#${id}`,
  skPrefix: () => `${prefix}#`,
});

export const account = {
  pk: (accountId: string) => `ACCOUNT#${accountId}`,
  sk: () => 'ACCOUNT',
};

export const apiKey = {
  pk: (hash: string) => `APIKEY#${hash}`,
  sk: () => 'APIKEY',
  /** GSI1: the keys of one account, oldest first. */
  gsi1pk: (accountId: string) => `ACCOUNT#${accountId}#APIKEYS`,
  gsi1sk: (created: number, hash: string) => `APIKEY#${String(created).padStart(15, '0')}#${hash}`,
};

export const webhookEndpoint = ownedKind('WEBHOOK_ENDPOINT');

/** Per-owner counters that enforce limits atomically (for example the webhook endpoint cap). */
export const counter = {
  pk: ownerPk,
  sk: (name: string) => `COUNTER#${name}`,
};

/** A publishable key's Idempotency-Keys live apart from its account's secret keys' (`PUBLISHABLE#`). */
export const idempotency = {
  pk: (scope: Scope & { publishable?: boolean }, keyHash: string) =>
    `IDEMPOTENCY#${scope.accountId}#${mode(scope.livemode)}#${scope.publishable ? 'PUBLISHABLE#' : ''}${keyHash}`,
  sk: () => 'IDEMPOTENCY',
};

export const eventDestination = ownedKind('EVENT_DESTINATION');

/** Thin (v2) events of one account and mode, in id (= time) order. */
export const thinEvent = {
  pk: (scope: Scope) => `THIN_EVENTS#${scope.accountId}#${mode(scope.livemode)}`,
  sk: (id: string) => `EVENT#${id}`,
  skPrefix: () => 'EVENT#',
  /** GSI1: the thin events of one related object. */
  gsi1pk: (scope: Scope, objectId: string) => `THIN_EVENTS#${scope.accountId}#${mode(scope.livemode)}#OBJECT#${objectId}`,
  gsi1sk: (id: string) => `EVENT#${id}`,
};

/** Snapshot (v1) events of one account and mode, in id (= time) order. */
export const snapshotEvent = {
  pk: (scope: Scope) => `SNAPSHOT_EVENTS#${scope.accountId}#${mode(scope.livemode)}`,
  sk: (id: string) => `EVENT#${id}`,
  skPrefix: () => 'EVENT#',
};

/** Delivery (outbox) records; spread over their own partitions. */
export const delivery = {
  pk: (id: string) => `DELIVERY#${id}`,
  sk: () => 'DELIVERY',
  /** GSI2, sparse (pending deliveries only): what is due, by shard, in due-time order. */
  gsi2pk: (shard: number) => `DELIVERIES_DUE#${shard}`,
  gsi2sk: (dueAt: number, id: string) => `${String(dueAt).padStart(15, '0')}#${id}`,
  /** GSI1: the deliveries to one destination or v1 endpoint (of its owner and mode). */
  gsi1pk: (scope: Scope, destinationId: string) => `DELIVERIES#${scope.accountId}#${mode(scope.livemode)}#${destinationId}`,
  /** GSI1 sort key: by status, then creation time, so a status is one key range and each range reads newest first backwards. */
  gsi1sk: (status: string, created: number, id: string) => `${status}#${String(created).padStart(15, '0')}#${id}`,
  gsi1skPrefix: (status: string) => `${status}#`,
};

/** The record of a change's events still to be fanned out (written with the change, removed by the fan-out). */
export const fanOut = {
  pk: (id: string) => `FAN_OUT#${id}`,
  sk: () => 'FAN_OUT',
  /** GSI2, sparse: fan-outs not done yet, by shard, in due-time order (the sweeper's). */
  gsi2pk: (shard: number) => `FAN_OUTS_DUE#${shard}`,
  gsi2sk: (dueAt: number, id: string) => `${String(dueAt).padStart(15, '0')}#${id}`,
};

/** cloudtwo partner authorizations of a platform, registered by an operator. */
export const cloudtwoAuthorization = {
  pk: (accountId: string) => `ACCOUNT#${accountId}`,
  sk: (subscriptionId: string, resourceGroup: string) => `CLOUDTWO_AUTHORIZATION#${subscriptionId}#${resourceGroup}`,
  skPrefix: () => 'CLOUDTWO_AUTHORIZATION#',
};

export const customer = {
  pk: ownerPk,
  sk: (id: string) => `CUSTOMER#${id}`,
  skPrefix: () => 'CUSTOMER#',
  /**
   * A deleted customer's tombstone, in the same partition but outside the `CUSTOMER#` range that lists and
   * search read: deleted customers, however many, cost a live list page nothing.
   */
  tombstoneSk: (id: string) => `DELETED_CUSTOMER#${id}`,
  /**
   * GSI1: the customers of one owner, mode and exact (case-sensitive) email, by the email's SHA-256: a
   * bounded key whatever the email holds (512 characters of UTF-8 would not fit GSI1PK's 2 KB otherwise).
   */
  gsi1pk: (scope: Scope, email: string) =>
    `CUSTOMER_EMAIL#${scope.accountId}#${mode(scope.livemode)}#${createHash('sha256').update(email, 'utf8').digest('base64url')}`,
  /** GSI1 sort key: the same string as SK, so newest first, cursors and `created` windows work as on the table. */
  gsi1sk: (id: string) => `CUSTOMER#${id}`,
};

/** `card_1AbC…` → `1AbC…#card`: ids of every prefix then sort by creation time together (the part after `_` encodes it). */
const timeOrdered = (id: string): string => {
  const at = id.indexOf('_');
  return at < 0 ? id : `${id.slice(at + 1)}#${id.slice(0, at)}`;
};

/** A customer's payment source (card or bank account), in the owner's partition next to the customer, in creation order. */
export const customerSource = {
  pk: ownerPk,
  sk: (customerId: string, sourceId: string) => `CUSTOMER_SOURCE#${customerId}#${timeOrdered(sourceId)}`,
  skPrefix: (customerId: string) => `CUSTOMER_SOURCE#${customerId}#`,
};

/** Issuing cardholders, cards, authorizations and transactions live in their owner's partition (ids sort by creation). */
export const issuingCardholder = ownedKind('ISSUING_CARDHOLDER');

export const issuingCard = ownedKind('ISSUING_CARD');

export const issuingAuthorization = ownedKind('ISSUING_AUTHORIZATION');

export const issuingTransaction = ownedKind('ISSUING_TRANSACTION');

/**
 * A token (v1, or a v2 account or person token), in a partition of its own: tokens come at checkout rates,
 * not configuration rates, and are only ever read by id (retrieve, use).
 */
export const token = {
  pk: (scope: Scope, id: string) => `TOKEN#${scope.accountId}#${mode(scope.livemode)}#${id}`,
  sk: () => 'TOKEN',
};

/**
 * The account's secret (HMAC keys for card and bank account fingerprints, idempotency fingerprints and v2
 * page tokens), created on first use, in a partition of its own: a read-only function may create one (IAM
 * `dynamodb:LeadingKeys` on `ACCOUNT_SECRET#*`) without being able to touch the account record.
 */
export const accountSecret = {
  pk: (accountId: string) => `ACCOUNT_SECRET#${accountId}`,
  sk: () => 'SECRET',
  prefix: () => 'ACCOUNT_SECRET#',
  /** Where secrets created before they had a partition of their own are, in the account's partition. */
  legacy: (accountId: string) => ({ PK: `ACCOUNT#${accountId}`, SK: 'FINGERPRINT_KEY' }),
};

/**
 * The stack's own secret, one item for the whole table, created on first use: the key queue messages are
 * sealed with (each queue through its own derived key), so a worker acts only on messages the service wrote.
 */
export const serviceSecret = {
  pk: () => 'SERVICE_SECRET',
  sk: () => 'SECRET',
};

export const meter = {
  pk: ownerPk,
  sk: (id: string) => `METER#${id}`,
  skPrefix: () => 'METER#',
  /** One item per event name and owner: makes event names unique and finds a meter by its event name. */
  eventNameSk: (eventName: string) => `METER_EVENT_NAME#${eventName}`,
};

/**
 * A meter event, by the identifier that makes it unique for 24 hours: one partition per identifier, so
 * the uniqueness check is a conditional put that never contends with other events. Holds the event,
 * its processing status and a requested cancellation.
 */
export const meterEvent = {
  pk: (scope: Scope, identifier: string) => `METER_EVENT#${scope.accountId}#${mode(scope.livemode)}#${identifier}`,
  sk: () => 'METER_EVENT',
};

/** One request to the meter event stream (up to 100 events), kept until processed. */
export const meterEventBatch = {
  pk: (id: string) => `METER_EVENT_BATCH#${id}`,
  sk: () => 'BATCH',
  /** A large batch's place in the due index, kept apart so that the index holds a small item, not the batch. */
  dueSk: () => 'DUE',
  /** The mark that this batch's events of one customer, meter and minute were added to that minute's usage. */
  appliedSk: (usagePk: string, minute: number) => `APPLIED#${usagePk}#${String(minute).padStart(15, '0')}`,
};

export const meterEventAdjustment = {
  pk: (scope: Scope, id: string) => `METER_EVENT_ADJUSTMENT#${scope.accountId}#${mode(scope.livemode)}#${id}`,
  sk: () => 'ADJUSTMENT',
};

/** A meter event session, by the SHA-256 of its token. */
export const meterEventSession = {
  pk: (tokenHash: string) => `METER_EVENT_SESSION#${tokenHash}`,
  sk: () => 'SESSION',
};

/**
 * Usage of one meter and customer, one item per minute of event time: the partition a summary query
 * reads. Written once per processed batch and group, never once per event.
 */
export const meterUsage = {
  pk: (scope: Scope, meterId: string, customerId: string) => `METER_USAGE#${scope.accountId}#${mode(scope.livemode)}#${meterId}#${customerId}`,
  sk: (minuteStart: number) => `MINUTE#${String(minuteStart).padStart(15, '0')}`,
  minutePrefix: () => 'MINUTE#',
  /** The rollup of one hour of event time (or only its late marker), in the same partition as its minutes. */
  hourSk: (hourStart: number) => `HOUR#${String(hourStart).padStart(15, '0')}`,
  hourOf: (hourSk: string) => Number(hourSk.slice('HOUR#'.length)),
  /** The partition's roll watermark (and its scheduled roll): sorts after every `hourSk`. */
  watermarkSk: () => 'HOUR#~',
  prefix: () => 'METER_USAGE#',
  /** The scope, meter and customer a usage partition key names (ids hold no `#`). */
  partition(pk: string): { scope: Scope; meterId: string; customerId: string } | undefined {
    const [kind, accountId, itemMode, meterId, customerId, ...rest] = pk.split('#');
    if (kind !== 'METER_USAGE' || !accountId || !meterId || !customerId || rest.length > 0) return undefined;
    return { scope: { accountId, livemode: itemMode === 'live' }, meterId, customerId };
  },
  /** The scope, meter, customer and minute a usage item's keys name. */
  parse(pk: string, sk: string): { scope: Scope; meterId: string; customerId: string; minute: number } | undefined {
    const partition = meterUsage.partition(pk);
    const minute = Number(sk.slice('MINUTE#'.length));
    if (!partition || !sk.startsWith('MINUTE#') || !Number.isInteger(minute)) return undefined;
    return { ...partition, minute };
  },
};

/** Errors found while processing, per meter (or `none` for events naming no meter) and validation window. */
export const meterErrorWindow = {
  pk: (scope: Scope, meterId: string | null) => `METER_ERRORS#${scope.accountId}#${mode(scope.livemode)}#${meterId ?? 'none'}`,
  sk: (windowStart: number) => `WINDOW#${String(windowStart).padStart(15, '0')}`,
};

/**
 * GSI2, sparse: meter work not finished yet (accepted events, stream batches, cancellations, error windows
 * to report), by shard and due time. The meter sweeper re-enqueues what a crash left behind; the report
 * job finds windows to report.
 */
export const meterWorkDue = {
  gsi2pk: (kind: 'work' | 'report', shard: number) => `METER_${kind === 'work' ? 'WORK' : 'REPORTS'}_DUE#${shard}`,
  gsi2sk: (dueAt: number, id: string) => `${String(dueAt).padStart(15, '0')}#${id}`,
};

/** GSI2, sparse: usage partitions whose scheduled roll is due (their watermark items), by shard and due time. */
export const meterRollDue = {
  gsi2pk: (shard: number) => `METER_ROLLS_DUE#${shard}`,
};

/**
 * Billing objects (subscriptions, invoices) that fall due: GSI2, sparse. An object on the stack's clock is
 * in a shard of `BILLING_DUE#`, swept as time passes; one on a test clock is in that clock's own partition,
 * which only the clock's advance reads, in due-time order.
 */
export const billingDue = {
  gsi2pk: (shard: number) => `BILLING_DUE#${shard}`,
  clockGsi2pk: (scope: Scope, testClock: string) => `TEST_CLOCK_DUE#${scope.accountId}#${mode(scope.livemode)}#${testClock}`,
  gsi2sk: (dueAt: number, kind: string, id: string) => `${String(dueAt).padStart(15, '0')}#${kind}#${id}`,
};

/**
 * Subscriptions on the stack's clock with billing thresholds, not ended: GSI1, sparse, by shard (the due
 * index's hash and count), read whole by the threshold evaluator each run. Test clock subscriptions are not
 * in it: their clock's advance evaluates them (its due partition lists them).
 */
export const billingThresholds = {
  gsi1pk: (shard: number) => `BILLING_THRESHOLDS#${shard}`,
  gsi1sk: (subscriptionId: string) => subscriptionId,
};

/**
 * A v1 billing alert, in its owner's partition, beside the record of each firing (`one_time`: one per alert
 * and customer, ever; its conditional put is what makes the firing happen once) and the counter that caps a
 * meter and customer's alerts. GSI2, sparse: the alerts still waiting for their threshold, by shard, which
 * the evaluator reads each run.
 */
export const billingAlert = {
  ...ownedKind('BILLING_ALERT'),
  triggerSk: (alertId: string, customerId: string) => `BILLING_ALERT_TRIGGER#${alertId}#${customerId}`,
  /** The name of the counter (`counter.sk`) of a meter and customer's alerts not archived. */
  counterName: (meterId: string, customerId: string) => `billing_alerts#${meterId}#${customerId}`,
  gsi2pk: (shard: number) => `BILLING_ALERTS_PENDING#${shard}`,
  gsi2sk: (since: number, id: string) => `${String(since).padStart(15, '0')}#${id}`,
};

/** A v2 account, in the partition of the platform that created it. */
export const v2Account = {
  pk: ownerPk,
  sk: (id: string) => `V2_ACCOUNT#${id}`,
  skPrefix: () => 'V2_ACCOUNT#',
};

/** A person of a v2 account, in the account's own partition (its scope is the account's). */
export const accountPerson = ownedKind('PERSON');

/**
 * One second of a rate limit's count: `bucket` names what is limited (a key, or a platform's meter events)
 * and its shard; the item expires soon after its second.
 */
export const rateWindow = {
  pk: (bucket: string, second: number) => `RATE#${bucket}#${second}`,
  /** What every rate window's partition key starts with (read-only functions may write only these). */
  prefix: () => 'RATE#',
  sk: () => 'RATE',
};

/** The leases that bound how many requests change one v2 account at once (slot 0 … limit - 1). */
export const accountUpdateSlot = {
  pk: (owner: Scope, accountId: string) => `ACCOUNT_UPDATE_SLOTS#${owner.accountId}#${mode(owner.livemode)}#${accountId}`,
  sk: (slot: number) => `SLOT#${slot}`,
};

/** An account link, by the SHA-256 of the secret in its URL (the secret itself is never stored). */
export const accountLink = {
  pk: (secretHash: string) => `ACCOUNT_LINK#${secretHash}`,
  sk: () => 'LINK',
};

export const product = ownedKind('PRODUCT');

export const price = ownedKind('PRICE');

/** The claim of a price lookup key (unique per owner and mode), naming the price that holds it. */
export const priceLookupKey = {
  pk: ownerPk,
  sk: (key: string) => `PRICE_LOOKUP_KEY#${key}`,
};

export const subscription = ownedKind('SUBSCRIPTION');

/** A test clock, in its owner's partition; `COUNTER#test_clocks` caps them per owner and mode. */
export const testClock = ownedKind('TEST_CLOCK');

/**
 * A subscription item's pointer to its subscription (the items live inside the subscription's item): how
 * `GET /v1/subscription_items/:id` finds it. Written and removed in the subscription's own transactions.
 */
export const subscriptionItem = ownedKind('SUBSCRIPTION_ITEM');

export const invoice = ownedKind('INVOICE');

export const invoiceItem = ownedKind('INVOICE_ITEM');
