import { systemClock } from '#shared/core/clock.ts';
import type { EventEmitter } from '#shared/events/emitter.ts';
import type { EventInput } from '#shared/events/event.ts';
import { defaultServiceVersion } from '#shared/wire/api-version.ts';
import { isoTimestamp } from '#shared/wire/timestamps.ts';
import type { ErrorWindow, MeterEventStore } from './meter-event.ts';

export interface ErrorReporterPorts {
  store: Pick<MeterEventStore, 'dueErrorWindows' | 'markReported'>;
  events: EventEmitter;
  clock?: () => number;
}

/** The error summary: the `data` of `v1.billing.meter.error_report_triggered` and `.no_meter_found`. */
export function errorSummary(window: ErrorWindow) {
  const subject = window.meterId ? `meter ${window.meterId}` : 'events that named no meter';
  const kinds = window.byCode.map((entry) => `${entry.count} ${entry.code}`).join(', ');
  return {
    developer_message_summary: `${window.errorCount} invalid meter event${window.errorCount === 1 ? '' : 's'} for ${subject} between ${isoTimestamp(window.start)} and ${isoTimestamp(window.end)}: ${kinds}.`,
    reason: {
      error_count: window.errorCount,
      error_types: window.byCode.map((entry) => ({
        code: entry.code,
        error_count: entry.count,
        sample_errors: entry.samples.map((sample) => ({ error_message: sample.message, request: { identifier: sample.identifier } })),
      })),
    },
    validation_start: isoTimestamp(window.start),
    validation_end: isoTimestamp(window.end),
  };
}

const reportOf = (window: ErrorWindow): EventInput =>
  window.meterId
    ? {
        kind: 'thin',
        type: 'v1.billing.meter.error_report_triggered',
        relatedObject: { id: window.meterId, type: 'billing.meter', url: `/v1/billing/meters/${window.meterId}` },
        data: errorSummary(window),
      }
    : { kind: 'thin', type: 'v1.billing.meter.no_meter_found', relatedObject: null, data: errorSummary(window) };

/**
 * Reports each error window once its validation period is over: one thin event per meter and window,
 * written with the window's "reported" mark in one transaction, so a window is reported exactly once.
 */
export function errorReporter({ store, events, clock = systemClock }: ErrorReporterPorts) {
  return {
    async reportDue(): Promise<number> {
      const windows = await store.dueErrorWindows(clock(), 100);
      let reported = 0;
      for (const window of windows) {
        const origin = { scope: window.scope, platformId: window.platformId, request: null, apiVersion: defaultServiceVersion };
        const outbox = events.prepare(origin, [reportOf(window)]);
        // A window that took more errors since it was read is reported by the next run, whole.
        if (await store.markReported(window, outbox)) {
          await events.dispatch(outbox);
          reported++;
        }
      }
      return reported;
    },
  };
}
