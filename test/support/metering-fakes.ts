import { eventRetentionMillis } from '#shared/data/metering/items.ts';
import type {
  LeaseEntry,
  MeterEventAdjustment,
  MeterEventBatch,
  MeterEventError,
  MeterEventRecord,
  MeterEventSession,
  MeterEventStore,
  MeterWork,
  MeterWorkQueue,
  MinuteUsage,
  RecordChange,
  UsageGroup,
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
  throw new Error(`memoryMeterEventStore does not fake ${method} (the sweeper's and error reporter's side)`);
};

/**
 * Called before and after each write of the fake (`write` names it): a test throws from it to stop the
 * caller there, as a crash or a lost response would (after the write: done, but the caller never knew).
 */
export type WriteFault = (write: string, when: 'before' | 'after') => void;

/**
 * In-memory MeterEventStore for metering's service, processor and `usageLeases`: usage leases and
 * identifier claims (24-hour uniqueness from `created`, fences of stopped requests), event records (gone
 * `eventRetentionMillis` after `created`, as TTL hides them), cancellation requests, adjustments, stream
 * batches (and which are finished), sessions by token hash, the minute usage the lease releases, the usage
 * transactions and the batch marks count, and the errors recorded. The sweeper's and error reporter's
 * methods (claimOverdueWork, dueErrorWindows, markReported) throw. `batches`, `finished`, `sessions` and
 * `errors` are its content; `seedEvent` stores an event as an older version did (legacy `accepted`
 * events); `clock` is when records expire; `fault` sees every write.
 */
export function memoryMeterEventStore(
  clock: () => number,
  fault: WriteFault = () => {},
): MeterEventStore & {
  batches: Map<string, MeterEventBatch>;
  finished: Set<string>;
  sessions: Map<string, MeterEventSession>;
  errors: MeterEventError[];
  seedEvent(event: MeterEventRecord): void;
} {
  const finished = new Set<string>();
  const errors: MeterEventError[] = [];
  /** The batch marks written: batch, meter, customer and minute. */
  const marks = new Set<string>();
  const write = async <T>(name: string, run: () => T): Promise<T> => {
    fault(name, 'before');
    const result = run();
    fault(name, 'after');
    return result;
  };
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

  /** Adds counted changes into their minute (and its `last`, unless the minute holds a later one). */
  const count = (group: UsageGroup, changes: RecordChange[]) => {
    const item = usageItem(group);
    let latest: RecordChange | undefined;
    for (const change of changes) {
      const sign = change.kind === 'cancel' ? -1 : 1;
      item.total += sign * change.value;
      item.events += sign;
      if (change.kind !== 'cancel' && (!latest || change.event.timestamp >= latest.event.timestamp)) latest = change;
    }
    if (changes.length > 0) item.counted = true;
    if (group.meter.formula === 'last' && latest && (!item.last || item.last.timestamp <= latest.event.timestamp)) {
      item.last = { value: latest.value, timestamp: latest.event.timestamp, identifier: latest.event.identifier };
    }
  };
  const recordOf = (event: MeterEventRecord) => identifiers.get(identifierKey(event.scope, event.identifier));
  const completeIfPending = (adjustment: MeterEventAdjustment) => {
    const stored = adjustments.get(identifierKey(adjustment.scope, adjustment.id));
    if (stored?.status !== 'pending') return false;
    adjustments.set(identifierKey(adjustment.scope, adjustment.id), { ...stored, status: 'complete' });
    return true;
  };

  return {
    batches,
    finished,
    sessions,
    errors,

    seedEvent(event) {
      identifiers.set(identifierKey(event.scope, event.identifier), { event, created: event.created });
    },

    takeLease: (lease, entries, now) =>
      write('takeLease', () => {
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
      }),

    releaseLease: (lease, counted, owners) =>
      write('releaseLease', () => {
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
      }),

    async readLease(lease) {
      const item = usageItem(lease);
      return { owner: item.leaseOwner, until: item.leaseUntil, entries: entriesOf(item) };
    },

    claim: (event, owner) =>
      write('claim', () => {
        const key = identifierKey(event.scope, event.identifier);
        const item = identifiers.get(key);
        if (claimable(item, event.created) || (item?.fencedOwners && !item.fencedOwners.has(owner))) {
          // A put: the claim replaces whatever was there, fences included.
          identifiers.set(key, { event, created: event.created, claimedBy: owner });
          return 'claimed';
        }
        return item?.fencedOwners?.has(owner) ? ('fenced' as const) : ('duplicate' as const);
      }),

    settle: (scope, entry) =>
      write('settle', () => {
        const key = identifierKey(scope, entry.identifier);
        const item = identifiers.get(key);
        if (claimable(item, entry.created) || item?.fencedOwners) {
          identifiers.set(key, { created: entry.created, fencedOwners: new Set([...(item?.fencedOwners ?? []), entry.owner]) });
          return 'fenced';
        }
        if (item?.claimedBy !== entry.owner) return 'fenced';
        return item.event?.cancelAdjustmentId ? ('count-without-last' as const) : ('count' as const);
      }),

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

    putBatch: (batch) =>
      write('putBatch', () => {
        batches.set(batch.id, batch);
      }),

    finishBatch: (batch) =>
      write('finishBatch', () => {
        finished.add(batch.id);
      }),

    completeAdjustment: (adjustment) =>
      write('completeAdjustment', () => {
        completeIfPending(adjustment);
      }),

    /** Each group in one transaction: the changes whose condition fails are refused, the rest counted. */
    applyUsage: (groups) =>
      write('applyUsage', () => {
        const refused: RecordChange[] = [];
        for (const group of groups) {
          const counted = group.changes.filter((change) => {
            const item = recordOf(change.event);
            if (change.kind === 'insert') throw new Error('stream events never go through the usage transaction');
            if (
              change.kind === 'cancel' &&
              item?.event?.status === 'processed' &&
              item.event.cancelAdjustmentId === change.adjustment.id &&
              completeIfPending(change.adjustment)
            ) {
              item.event = { ...item.event, status: 'cancelled' };
              return true;
            }
            refused.push(change);
            return false;
          });
          count(group, counted);
        }
        return refused;
      }),

    async countMarked(groups, now) {
      const refused: RecordChange[] = [];
      for (const group of groups) {
        const claimed: RecordChange[] = [];
        for (const change of group.changes) {
          const held = await write('markedClaim', () => {
            const key = identifierKey(change.event.scope, change.event.identifier);
            const item = identifiers.get(key);
            if (claimable(item, now) || item?.fencedOwners) {
              identifiers.set(key, { event: { ...change.event, status: 'processed' }, created: change.event.created });
              return true;
            }
            return change.event.batchId !== null && item?.event?.batchId === change.event.batchId && item.claimedBy === undefined;
          });
          (held ? claimed : refused).push(change);
        }
        if (claimed.length === 0) continue;
        const mark = `${claimed[0]!.event.batchId}|${scopeKey(group.scope)}|${group.meter.id}|${group.customerId}|${group.minute}`;
        await write('markedCount', () => {
          if (marks.has(mark)) return;
          marks.add(mark);
          count(group, claimed);
        });
      }
      return refused;
    },

    forgetLast: (scope, meterId, customerId, minute, identifier) =>
      write('forgetLast', () => {
        const item = usageItem({ scope, meter: { id: meterId, formula: 'last' }, customerId, minute });
        if (item.last?.identifier === identifier) item.last = null;
      }),

    recordErrors: (recorded) =>
      write('recordErrors', () => {
        errors.push(...recorded);
      }),

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

    claimOverdueWork: notFaked('claimOverdueWork'),
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
