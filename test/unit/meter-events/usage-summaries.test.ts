import { describe, expect, it } from 'vitest';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import type { PageRequest } from '#shared/wire/paging.ts';
import type { MinuteUsage } from '#shared/meter-events/meter-event.ts';
import { minuteUsageReader, serializeUsageSummary, type SummaryQuery, usageSummaries } from '#shared/meter-events/summaries.ts';
import type { Meter } from '#shared/meters/meter.ts';
import type { Scope } from '#shared/platform/types.ts';
import { meterFixture } from '../../support/fakes.ts';

const scope: Scope = { accountId: 'acct_1', livemode: false };
const hour = 60 * 60 * 1000;
const day = 24 * hour;
const at = (dayOfMonth: number, hours: number, minutes = 0) => Date.UTC(2027, 0, dayOfMonth, hours, minutes);

const meter = (overrides: Partial<Meter> = {}): Meter => meterFixture({ scope, created: at(1, 0), updated: at(1, 0), ...overrides });

const usage = (minute: number, total: number, events: number, last: MinuteUsage['last'] = null): MinuteUsage => ({ minute, total, events, last });

type Row = { meterId: string; customerId: string; usage: MinuteUsage };

/** In-memory usage keyed by meter and customer; `usage` answers minutes in [from, to) in insertion order. */
function harness(meters: Meter[], rows: Row[] = []) {
  const service = usageSummaries({
    store: {
      usage: async (_scope, meterId, customerId, from, to) =>
        rows
          .filter((row) => row.meterId === meterId && row.customerId === customerId && row.usage.minute >= from && row.usage.minute < to)
          .map((row) => row.usage),
    },
    meters: {
      get: async (_scope: Scope, id: string) => meters.find((candidate) => candidate.id === id),
    },
  });
  return service;
}

const page = (overrides: Partial<PageRequest> = {}): PageRequest => ({ limit: 10, ...overrides });
const query = (overrides: Partial<SummaryQuery> = {}): SummaryQuery => ({ customer: 'cus_1', start: at(10, 0), end: at(11, 0), ...overrides });
const row = (minute: number, total: number, events: number, last: MinuteUsage['last'] = null, customerId = 'cus_1'): Row => ({
  meterId: 'mtr_1',
  customerId,
  usage: usage(minute, total, events, last),
});

describe('usage summaries', () => {
  it('refuses an unknown meter with NotFoundError', async () => {
    const summaries = harness([meter()]);
    await expect(summaries.list(scope, 'mtr_missing', query(), page())).rejects.toThrow(NotFoundError);
  });

  it('sums the totals of the customer minutes in [start, end) when not grouped', async () => {
    const summaries = harness(
      [meter()],
      [
        row(at(9, 23, 59), 100, 1),
        row(at(10, 0), 3, 1),
        row(at(10, 12, 30), 4, 2),
        row(at(10, 23, 59), 5, 1),
        row(at(11, 0), 200, 1),
        row(at(10, 5), 300, 1, null, 'cus_2'),
      ],
    );

    const result = await summaries.list(scope, 'mtr_1', query(), page());

    expect(result.hasMore).toBe(false);
    expect(result.items).toHaveLength(1);
    expect(result.items[0]).toMatchObject({ start: at(10, 0), end: at(11, 0), value: 12 });
    expect(result.items[0]!.meter.id).toBe('mtr_1');
  });

  it('counts events for a count meter', async () => {
    const summaries = harness([meter({ formula: 'count' })], [row(at(10, 1), 9, 2), row(at(10, 2), 9, 5)]);

    const result = await summaries.list(scope, 'mtr_1', query(), page());

    expect(result.items[0]!.value).toBe(7);
  });

  it('takes the value of the minute with the latest last timestamp for a last meter', async () => {
    const summaries = harness(
      [meter({ formula: 'last' })],
      [
        row(at(10, 5), 10, 2, { value: 8, timestamp: at(10, 5) + 30_000 }),
        row(at(10, 1), 10, 2, { value: 5, timestamp: at(10, 1) + 10_000 }),
        row(at(10, 9), 10, 1, null),
      ],
    );

    const result = await summaries.list(scope, 'mtr_1', query(), page());

    expect(result.items[0]!.value).toBe(8);
  });

  it('gives 0 for a last meter when no minute holds a last value', async () => {
    const summaries = harness([meter({ formula: 'last' })], [row(at(10, 1), 10, 1, null)]);

    const result = await summaries.list(scope, 'mtr_1', query(), page());

    expect(result.items[0]!.value).toBe(0);
  });

  it('splits the range into UTC hours clipped to it, oldest first, empty hours 0', async () => {
    const summaries = harness([meter()], [row(at(10, 10, 45), 2, 1), row(at(10, 10, 59), 3, 1), row(at(10, 13, 0), 7, 1), row(at(10, 13, 15), 100, 1)]);

    const result = await summaries.list(scope, 'mtr_1', query({ start: at(10, 10, 30), end: at(10, 13, 15), grouping: 'hour' }), page());

    expect(result.items.map(({ start, end, value }) => ({ start, end, value }))).toEqual([
      { start: at(10, 10, 30), end: at(10, 11), value: 5 },
      { start: at(10, 11), end: at(10, 12), value: 0 },
      { start: at(10, 12), end: at(10, 13), value: 0 },
      { start: at(10, 13), end: at(10, 13, 15), value: 7 },
    ]);
  });

  it('splits the range into UTC days clipped to it', async () => {
    const summaries = harness([meter()], [row(at(1, 20), 1, 1), row(at(2, 0), 2, 1), row(at(2, 23, 59), 4, 1), row(at(3, 5, 59), 8, 1)]);

    const result = await summaries.list(scope, 'mtr_1', query({ start: at(1, 18), end: at(3, 6), grouping: 'day' }), page());

    expect(result.items.map(({ start, end, value }) => ({ start, end, value }))).toEqual([
      { start: at(1, 18), end: at(2, 0), value: 1 },
      { start: at(2, 0), end: at(3, 0), value: 6 },
      { start: at(3, 0), end: at(3, 6), value: 8 },
    ]);
  });

  it('applies the meter formula within each window', async () => {
    const summaries = harness(
      [meter({ formula: 'last' })],
      [
        row(at(10, 0, 10), 1, 1, { value: 4, timestamp: at(10, 0, 10) }),
        row(at(10, 0, 50), 1, 1, { value: 6, timestamp: at(10, 0, 50) }),
        row(at(10, 1, 5), 1, 1, { value: 9, timestamp: at(10, 1, 5) }),
      ],
    );

    const result = await summaries.list(scope, 'mtr_1', query({ start: at(10, 0), end: at(10, 3), grouping: 'hour' }), page());

    expect(result.items.map((item) => item.value)).toEqual([6, 9, 0]);
  });

  describe('pagination', () => {
    const fiveHours = query({ start: at(10, 0), end: at(10, 5), grouping: 'hour' });
    const rows = [0, 1, 2, 3, 4].map((index) => row(at(10, index, 30), index + 1, 1));

    it('pages forward with limit and starting_after', async () => {
      const summaries = harness([meter()], rows);

      const first = await summaries.list(scope, 'mtr_1', fiveHours, page({ limit: 2 }));
      const second = await summaries.list(scope, 'mtr_1', fiveHours, page({ limit: 2, startingAfter: first.items.at(-1)!.id }));
      const third = await summaries.list(scope, 'mtr_1', fiveHours, page({ limit: 2, startingAfter: second.items.at(-1)!.id }));

      expect(first.items.map((item) => item.value)).toEqual([1, 2]);
      expect(first.hasMore).toBe(true);
      expect(second.items.map((item) => item.value)).toEqual([3, 4]);
      expect(second.hasMore).toBe(true);
      expect(third.items.map((item) => item.value)).toEqual([5]);
      expect(third.hasMore).toBe(false);
    });

    it('pages backward with ending_before', async () => {
      const summaries = harness([meter()], rows);
      const all = await summaries.list(scope, 'mtr_1', fiveHours, page());

      const before = await summaries.list(scope, 'mtr_1', fiveHours, page({ limit: 2, endingBefore: all.items[4]!.id }));
      const earliest = await summaries.list(scope, 'mtr_1', fiveHours, page({ limit: 2, endingBefore: all.items[1]!.id }));

      expect(before.items.map((item) => item.value)).toEqual([3, 4]);
      expect(before.hasMore).toBe(true);
      expect(earliest.items.map((item) => item.value)).toEqual([1]);
      expect(earliest.hasMore).toBe(false);
    });

    it('answers an empty page after the last window', async () => {
      const summaries = harness([meter()], rows);
      const all = await summaries.list(scope, 'mtr_1', fiveHours, page());

      const after = await summaries.list(scope, 'mtr_1', fiveHours, page({ startingAfter: all.items[4]!.id }));

      expect(after).toEqual({ items: [], hasMore: false });
    });

    it('gives ids that are stable per meter, customer and window', async () => {
      const summaries = harness([meter(), meter({ id: 'mtr_2' })], rows);

      const once = await summaries.list(scope, 'mtr_1', fiveHours, page());
      const again = await summaries.list(scope, 'mtr_1', fiveHours, page());
      const otherCustomer = await summaries.list(scope, 'mtr_1', { ...fiveHours, customer: 'cus_2' }, page());
      const otherMeter = await summaries.list(scope, 'mtr_2', fiveHours, page());
      const ids = once.items.map((item) => item.id);

      expect(again.items.map((item) => item.id)).toEqual(ids);
      expect(new Set(ids).size).toBe(5);
      for (const id of ids) expect(id).toMatch(/^mtrusg_/);
      for (const other of [...otherCustomer.items, ...otherMeter.items]) expect(ids).not.toContain(other.id);
    });

    it('refuses a starting_after cursor that is not a window of the range', async () => {
      const summaries = harness([meter()], rows);
      const all = await summaries.list(scope, 'mtr_1', fiveHours, page());

      const outside = summaries.list(scope, 'mtr_1', { ...fiveHours, end: at(10, 4) }, page({ startingAfter: all.items[4]!.id }));

      await expect(outside).rejects.toThrow(InvalidRequestError);
      await expect(outside).rejects.toMatchObject({ param: 'starting_after' });
    });

    it('refuses an unknown ending_before cursor', async () => {
      const summaries = harness([meter()], rows);

      const unknown = summaries.list(scope, 'mtr_1', fiveHours, page({ endingBefore: 'mtrusg_unknown' }));

      await expect(unknown).rejects.toThrow(InvalidRequestError);
      await expect(unknown).rejects.toMatchObject({ param: 'ending_before' });
    });
  });

  it('accepts a range of exactly 1000 windows', async () => {
    const summaries = harness([meter()]);

    const result = await summaries.list(scope, 'mtr_1', query({ start: at(1, 0), end: at(1, 0) + 1000 * hour, grouping: 'hour' }), page({ limit: 3 }));

    expect(result.items).toHaveLength(3);
    expect(result.hasMore).toBe(true);
  });

  it('refuses a range of more than 1000 windows', async () => {
    const summaries = harness([meter()]);

    const tooMany = summaries.list(scope, 'mtr_1', query({ start: at(1, 0), end: at(1, 0) + 1001 * hour, grouping: 'hour' }), page());

    await expect(tooMany).rejects.toThrow(InvalidRequestError);
  });

  it('does not limit the range of an ungrouped query to 1000 windows worth of hours', async () => {
    const summaries = harness([meter()], [row(at(1, 0) + 1200 * hour, 2, 1)]);

    const result = await summaries.list(scope, 'mtr_1', query({ start: at(1, 0), end: at(1, 0) + 60 * day }), page());

    expect(result.items.map((item) => item.value)).toEqual([2]);
  });
});

describe('serializeUsageSummary', () => {
  it('renders a billing.meter_event_summary with times in seconds and the meter id', () => {
    const summary = { id: 'mtrusg_abc', meter: meter({ scope: { accountId: 'acct_1', livemode: true } }), start: at(10, 10), end: at(10, 11), value: 42 };

    expect(serializeUsageSummary(summary)).toEqual({
      id: 'mtrusg_abc',
      object: 'billing.meter_event_summary',
      aggregated_value: 42,
      start_time: at(10, 10) / 1000,
      end_time: at(10, 11) / 1000,
      livemode: true,
      meter: 'mtr_1',
    });
  });
});

describe('the minute usage reader', () => {
  const rows = [
    row(at(10, 0), 3, 1, { value: 3, timestamp: at(10, 0) }),
    row(at(10, 0, 1), 4, 1, { value: 4, timestamp: at(10, 0, 1) }),
    row(at(10, 0, 2), 9, 1),
  ];
  const reader = minuteUsageReader({
    usage: async (_scope, _meterId, _customerId, from, to) =>
      rows.filter((entry) => entry.usage.minute >= from && entry.usage.minute < to).map((entry) => entry.usage),
  });

  it('aggregates the minutes whose start falls in [from, to), both bounds floored to the minute', async () => {
    // Given a period from 10:00:30 to 10:02:10, When it is read, Then minutes 10:00 and 10:01 count and 10:02 does not.
    await expect(reader.aggregate(scope, meter(), 'cus_1', at(10, 0) + 30_000, at(10, 0, 2) + 10_000)).resolves.toBe(7);
    await expect(reader.aggregate(scope, meter({ formula: 'count' }), 'cus_1', at(10, 0), at(10, 0, 3))).resolves.toBe(3);
    await expect(reader.aggregate(scope, meter({ formula: 'last' }), 'cus_1', at(10, 0), at(10, 0, 3))).resolves.toBe(4);
  });

  it('reads nothing for a range shorter than its first minute', async () => {
    await expect(reader.aggregate(scope, meter(), 'cus_1', at(10, 0) + 1_000, at(10, 0) + 59_000)).resolves.toBe(0);
  });
});
