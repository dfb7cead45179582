/** v1 renders times as integer Unix seconds. */
export const unixSeconds = (millis: number): number => Math.floor(millis / 1000);

/** v2 renders times as RFC 3339 UTC with milliseconds, e.g. `2026-11-22T10:15:30.123Z`. */
export const isoTimestamp = (millis: number): string => new Date(millis).toISOString();
