import { eventRetentionMillis } from '#shared/data/metering/items.ts';
import type {
  LeaseEntry,
  MeterEventAdjustment,
  MeterEventBatch,
  MeterEventRecord,
  MeterEventSession,
  MeterEventStore,
  MeterWork,
  MeterWorkQueue,
  MinuteUsage,
  UsageLease,
} from '#shared/meter-events/meter-event.ts';
import { uniquenessWindowMillis } from '#shared/meter-events/rules.ts';
import type { Scope } from '#shared/platform/types.ts';

/**
 * In-memory fakes of the metering ports (`shared/meter-events/meter-event.ts`) for unit tests, with the
 * conditions of the DynamoDB adapters in `shared/data/metering/` (leases.ts, event-records.ts, sessions.ts).
 */

const scopeKey = (scope: Scope) => `${scope.accountId}|${scope.livemode}`;

/** The lease a request holds on a minute's usage item, as `dynamoUsageLeaseStore` bounds it (leases.ts). */
const leaseMillis = 5_000;

/** The identifier item of a meter event: the event a claim stored, or only the fence a settle wrote. */
interface IdentifierItem {
  /** Absent on a fence alone. */
  event?: MeterEventRecord;
  created: number;
  claimedBy?: string;
  /** Owners whose claim of this identifier was settled as lost (they may not claim it any more). */
  fencedOwners?: Set<string>;
}

/** One meter, customer and minute: its usage and its lease. */
interface UsageItem {
  minute: number;
  total: number;
  events: number;
  last: { value: number; timestamp: number; identifier: string } | null;
  /** Whether anything was ever counted (a minute only leased holds no usage). */
  counted: boolean;
  leaseOwner?: string;
  leaseUntil?: number;
  /** The entries of each lease holder that has not been settled yet. */
  entries: Map<string, Array<Omit<LeaseEntry, 'owner'>>>;
}

const notFaked = (method: string) => async (): Promise<never> => {
  throw new Error(`memoryMeterEventStore does not fake ${method} (the processor's and sweeper's side)`);
};

/**
 * In-memory MeterEventStore for the synchronous side of metering (`meterEventService`) and `usageLeases`:
 * usage leases and identifier claims (24-hour uniqueness from `created`, fences of stopped requests),
 * event records (gone `eventRetentionMillis` after `created`, as TTL hides them), cancellation requests,
 * adjustments, stream batches, sessions by token hash, and the minute usage the lease releases count.
 * The processor's and sweeper's methods (applyUsage, markInvalid, error windows…) throw.
 * `batches` and `sessions` are its content; `clock` is when records expire.
 */
export function memoryMeterEventStore(
  clock: () => number,
): MeterEventStore & { batches: Map<string, MeterEventBatch>; sessions: Map<string, MeterEventSession> } {
  const identifiers = new Map<string, IdentifierItem>();
  const adjustments = new Map<string, MeterEventAdjustment>();
  const batches = new Map<string, MeterEventBatch>();
  const sessions = new Map<string, MeterEventSession>();
  const usageItems = new Map<string, UsageItem>();

  const identifierKey = (scope: Scope, identifier: string) => `${scopeKey(scope)}|${identifier}`;
  const usagePrefix = (scope: Scope, meterId: string, customerId: string) => `${scopeKey(scope)}|${meterId}|${customerId}|`;
  const usageItem = (lease: Omit<UsageLease, 'owner'>): UsageItem => {
    const key = `${usagePrefix(lease.scope, lease.meter.id, lease.customerId)}${lease.minute}`;
    const item = usageItems.get(key) ?? { minute: lease.minute, total: 0, events: 0, last: null, counted: false, entries: new Map() };
    usageItems.set(key, item);
    return item;
  };
  const entriesOf = (item: UsageItem): LeaseEntry[] => [...item.entries].flatMap(([owner, entries]) => entries.map((entry) => ({ ...entry, owner })));
  /** Free, or last claimed out of the 24-hour window of an event received at `created`. */
  const claimable = (item: IdentifierItem | undefined, created: number) => !item || item.created < created - uniquenessWindowMillis;

  return {
    batches,
    sessions,

    async takeLease(lease, entries, now) {
      const item = usageItem(lease);
      if (item.leaseUntil !== undefined && item.leaseUntil >= now) return undefined;
      const left = entriesOf(item);
      item.leaseOwner = lease.owner;
      item.leaseUntil = now + leaseMillis;
      if (entries.length > 0)
        item.entries.set(
          lease.owner,
          entries.map(({ identifier, created, value, timestamp }) => ({ identifier, created, value, timestamp })),
        );
      return left;
    },

    async releaseLease(lease, counted, owners) {
      const item = usageItem(lease);
      if (item.leaseOwner !== lease.owner) return false;
      let latest: LeaseEntry | undefined;
      for (const { entry, setsLast } of counted) {
        item.total += entry.value;
        if (setsLast && (!latest || entry.timestamp >= latest.timestamp)) latest = entry;
      }
      item.events += counted.length;
      if (counted.length > 0) item.counted = true;
      // A minute holding a later `last` keeps it (the adapter retries its release without setting it).
      if (lease.meter.formula === 'last' && latest && (!item.last || item.last.timestamp <= latest.timestamp)) {
        item.last = { value: latest.value, timestamp: latest.timestamp, identifier: latest.identifier };
      }
      item.leaseOwner = undefined;
      item.leaseUntil = undefined;
      for (const owner of owners) item.entries.delete(owner);
      return true;
    },

    async readLease(lease) {
      const item = usageItem(lease);
      return { owner: item.leaseOwner, until: item.leaseUntil, entries: entriesOf(item) };
    },

    async claim(event, owner) {
      const key = identifierKey(event.scope, event.identifier);
      const item = identifiers.get(key);
      if (claimable(item, event.created) || (item?.fencedOwners && !item.fencedOwners.has(owner))) {
        // A put: the claim replaces whatever was there, fences included.
        identifiers.set(key, { event, created: event.created, claimedBy: owner });
        return 'claimed';
      }
      return item?.fencedOwners?.has(owner) ? 'fenced' : 'duplicate';
    },

    async settle(scope, entry) {
      const key = identifierKey(scope, entry.identifier);
      const item = identifiers.get(key);
      if (claimable(item, entry.created) || item?.fencedOwners) {
        identifiers.set(key, { created: entry.created, fencedOwners: new Set([...(item?.fencedOwners ?? []), entry.owner]) });
        return 'fenced';
      }
      if (item?.claimedBy !== entry.owner) return 'fenced';
      return item.event?.cancelAdjustmentId ? 'count-without-last' : 'count';
    },

    async getEvent(scope, identifier) {
      const item = identifiers.get(identifierKey(scope, identifier));
      return item?.event && item.created + eventRetentionMillis > clock() ? item.event : undefined;
    },

    async requestCancel(event, adjustment) {
      const item = identifiers.get(identifierKey(event.scope, event.identifier));
      const stored = item?.event;
      if (!stored || stored.created !== event.created || stored.cancelAdjustmentId || !['accepted', 'processed'].includes(stored.status)) return false;
      item!.event = { ...stored, cancelAdjustmentId: adjustment.id };
      adjustments.set(identifierKey(adjustment.scope, adjustment.id), adjustment);
      return true;
    },

    async getAdjustment(scope, id) {
      return adjustments.get(identifierKey(scope, id));
    },

    async putBatch(batch) {
      batches.set(batch.id, batch);
    },

    async putSession(session, tokenHash) {
      sessions.set(tokenHash, session);
    },

    async findSession(tokenHash) {
      return sessions.get(tokenHash);
    },

    async usage(scope, meterId, customerId, from, to): Promise<MinuteUsage[]> {
      const prefix = usagePrefix(scope, meterId, customerId);
      return [...usageItems]
        .filter(([key, item]) => key.startsWith(prefix) && item.counted && item.minute >= from && item.minute < to)
        .map(([, item]) => ({
          minute: item.minute,
          total: item.total,
          events: item.events,
          last: item.last && { value: item.last.value, timestamp: item.last.timestamp },
        }))
        .sort((a, b) => a.minute - b.minute);
    },

    finishBatch: notFaked('finishBatch'),
    markInvalid: notFaked('markInvalid'),
    cancelUncounted: notFaked('cancelUncounted'),
    completeAdjustment: notFaked('completeAdjustment'),
    claimOverdueWork: notFaked('claimOverdueWork'),
    applyUsage: notFaked('applyUsage'),
    forgetLast: notFaked('forgetLast'),
    recordErrors: notFaked('recordErrors'),
    dueErrorWindows: notFaked('dueErrorWindows'),
    markReported: notFaked('markReported'),
  };
}

/** A MeterWorkQueue that keeps what is sent in `sent`, one entry per work item, with the delay it was sent with. */
export function recordingMeterWorkQueue(): MeterWorkQueue & { sent: Array<{ work: MeterWork; delaySeconds?: number }> } {
  const sent: Array<{ work: MeterWork; delaySeconds?: number }> = [];
  return {
    sent,
    async send(work, delaySeconds) {
      for (const item of work) sent.push(delaySeconds === undefined ? { work: item } : { work: item, delaySeconds });
    },
  };
}

/** The `customerExists` port over a fixed set of customers of one scope (no other scope has any). */
export const existingCustomers =
  (scope: Scope, ...ids: string[]) =>
  async (asked: Scope, id: string): Promise<boolean> =>
    scopeKey(asked) === scopeKey(scope) && ids.includes(id);
