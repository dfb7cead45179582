/**
 * Rate limits far above what a benchmark sends: each benchmark drives the service with one key, well over
 * the default 100 requests a second. The limiter still counts every request in the table as it does in
 * production (its writes are part of the figures); it just never refuses.
 */
export const benchmarkRateLimits = {
  RATE_LIMIT_PER_KEY_TEST: '1000000',
  RATE_LIMIT_METER_EVENTS_TEST: '1000000',
  RATE_LIMIT_METER_EVENT_STREAM: '1000000',
  RATE_LIMIT_SEARCH_TEST: '1000000',
};
