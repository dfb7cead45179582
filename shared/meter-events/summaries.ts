import type * as z from 'zod';
import { createHash } from 'node:crypto';
import { InvalidRequestError, NotFoundError } from '#shared/core/errors.ts';
import type { Page, PageRequest } from '#shared/wire/paging.ts';
import type { Meter, MeterRepository } from '#shared/meters/meter.ts';
import type { Scope } from '#shared/platform/types.ts';
import { minuteOf } from './rules.ts';
import type { MeterEventStore, MinuteUsage, UsageReader } from './meter-event.ts';
import type { usageSummaryObject } from './summaries-objects.ts';

export interface UsageSummary {
  id: string;
  meter: Meter;
  start: number;
  end: number;
  value: number;
}

export interface SummaryQuery {
  customer: string;
  /** Milliseconds, minute-aligned; `end` exclusive. */
  start: number;
  end: number;
  grouping?: 'day' | 'hour';
}

const windowMillis = { hour: 60 * 60 * 1000, day: 24 * 60 * 60 * 1000 };

/** Most windows one query may cover (35 days of hours, with room). */
const maxWindows = 1000;

/** The windows of a range: the whole range, or UTC hours or days clipped to it. */
function windowsOf({ start, end, grouping }: SummaryQuery): Array<[number, number]> {
  if (!grouping) return [[start, end]];
  const size = windowMillis[grouping];
  const windows: Array<[number, number]> = [];
  for (let from = start; from < end; ) {
    const to = Math.min(end, (Math.floor(from / size) + 1) * size);
    windows.push([from, to]);
    from = to;
    if (windows.length > maxWindows) {
      throw new InvalidRequestError(
        `The range holds more than ${maxWindows} ${grouping} windows; narrow start_time and end_time.`,
        'parameter_invalid',
        'end_time',
      );
    }
  }
  return windows;
}

/** A window's value by the meter's formula: the sum, the number of events, or the latest value. */
function aggregate(formula: Pick<Meter, 'formula'>['formula'], minutes: MinuteUsage[]): number {
  if (formula === 'sum') return minutes.reduce((sum, minute) => sum + minute.total, 0);
  if (formula === 'count') return minutes.reduce((sum, minute) => sum + minute.events, 0);
  const latest = minutes.filter((minute) => minute.last).sort((a, b) => b.last!.timestamp - a.last!.timestamp)[0];
  return latest?.last?.value ?? 0;
}

/** `UsageReader` over the minute items themselves: every minute of the range is read (one Query page holds about 10,000). */
export const minuteUsageReader = (store: Pick<MeterEventStore, 'usage'>): UsageReader => ({
  async aggregate(scope, meter, customerId, from, to) {
    const [start, end] = [minuteOf(from), minuteOf(to)];
    if (end <= start) return 0;
    return aggregate(meter.formula, await store.usage(scope, meter.id, customerId, start, end));
  },
});

const summaryId = (meterId: string, customer: string, start: number, end: number) =>
  `mtrusg_${createHash('sha256').update(`${meterId}|${customer}|${start}|${end}`).digest('base64url').slice(0, 24)}`;

/** Usage read back: the aggregated value of a meter for one customer per window, oldest window first. */
export function usageSummaries({ store, meters }: { store: Pick<MeterEventStore, 'usage'>; meters: Pick<MeterRepository, 'get'> }) {
  return {
    async list(scope: Scope, meterId: string, query: SummaryQuery, page: PageRequest): Promise<Page<UsageSummary>> {
      const meter = await meters.get(scope, meterId);
      if (!meter) throw new NotFoundError('billing meter', meterId);
      const windows = windowsOf(query);
      const all = windows.map(([start, end]) => ({ id: summaryId(meter.id, query.customer, start, end), start, end }));
      let from = 0;
      let to = all.length;
      if (page.startingAfter !== undefined || page.endingBefore !== undefined) {
        const cursor = page.startingAfter ?? page.endingBefore;
        const index = all.findIndex((window) => window.id === cursor);
        if (index < 0)
          throw new InvalidRequestError(
            `No summary '${cursor}' belongs to this range.`,
            'resource_missing',
            page.startingAfter !== undefined ? 'starting_after' : 'ending_before',
          );
        if (page.startingAfter !== undefined) from = index + 1;
        else to = index;
      }
      const slice = page.endingBefore !== undefined ? all.slice(Math.max(from, to - page.limit), to) : all.slice(from, from + page.limit);
      const hasMore = page.endingBefore !== undefined ? to - page.limit > from : from + page.limit < to;
      if (slice.length === 0) return { items: [], hasMore };
      const minutes = await store.usage(scope, meter.id, query.customer, slice[0]!.start, slice.at(-1)!.end);
      const items = slice.map((window) => ({
        ...window,
        meter,
        value: aggregate(
          meter.formula,
          minutes.filter((minute) => minute.minute >= window.start && minute.minute < window.end),
        ),
      }));
      return { items, hasMore };
    },
  };
}

export const serializeUsageSummary = (summary: UsageSummary): z.input<typeof usageSummaryObject> => ({
  id: summary.id,
  object: 'billing.meter_event_summary',
  aggregated_value: summary.value,
  end_time: Math.floor(summary.end / 1000),
  livemode: summary.meter.scope.livemode,
  meter: summary.meter.id,
  start_time: Math.floor(summary.start / 1000),
});
