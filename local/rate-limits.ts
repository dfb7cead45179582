/**
 * The reference's per-second figures the API enforces (shared/core/config.ts): per API key, meter events and
 * the meter event stream per platform, searches per account. Locally they are off unless asked for, so that a
 * test suite running in parallel is not answered 429; the limit on failed authentications stays (it is the
 * guard against key guessing, not a figure of the reference).
 */
const referenceLimitVariables = [
  'RATE_LIMIT_PER_KEY_LIVE',
  'RATE_LIMIT_PER_KEY_TEST',
  'RATE_LIMIT_METER_EVENTS_LIVE',
  'RATE_LIMIT_METER_EVENTS_TEST',
  'RATE_LIMIT_METER_EVENT_STREAM',
  'RATE_LIMIT_SEARCH_LIVE',
  'RATE_LIMIT_SEARCH_TEST',
] as const;

/**
 * The environment that turns the reference's rate limits off (0: no limit), for each of their variables that
 * `given` (the stack's options and the process environment) does not set; nothing when `rateLimits` is on
 * (`npm start -- --rate-limits`), which leaves the reference's figures as the defaults.
 */
export function localRateLimitEnv(rateLimits: boolean, given: Record<string, string | undefined>): Record<string, string> {
  if (rateLimits) return {};
  return Object.fromEntries(referenceLimitVariables.filter((name) => given[name] === undefined).map((name) => [name, '0']));
}
