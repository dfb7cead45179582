/**
 * Storage ports of the request pipeline (shared/http), declared here so that shared/data can implement them
 * without importing the pipeline.
 */
import type { Scope } from './types.ts';

/** A response as kept for replay. */
export interface StoredResponse {
  statusCode: number;
  body: string;
  requestId: string;
  /** The version the body was rendered at, which a replay names in `Service-Version` (absent in records kept before versions were). */
  serviceVersion?: string;
}

export type IdempotencyRecord =
  | { state: 'absent' }
  | { state: 'in_progress'; fingerprint: string }
  | { state: 'complete'; fingerprint: string; response: StoredResponse };

/**
 * Whose Idempotency-Keys a record belongs to: an account and mode, and whether a publishable key sent it. A
 * web page's publishable key shares its account with the backend's secret key, so its keys live apart: it can
 * neither claim a key the backend is about to use nor tell, by a refusal, which keys the backend used.
 */
export interface IdempotencyScope extends Scope {
  publishable?: boolean;
}

export interface IdempotencyClaim {
  scope: IdempotencyScope;
  key: string;
  fingerprint: string;
  requestId: string;
  /** Until when the claim holds; a claim left by a crashed request can be taken over after it. */
  lockedUntil: number;
  /** When the record may be forgotten (24 hours). */
  expiresAt: number;
}

/**
 * A create's idempotency record, written in the create's own transaction with the event it writes anyway
 * (routes declaring `idempotency: { answeredBy }`): a replay answers with that event's object, rendered at
 * `serviceVersion`, so the response is not stored twice and the key costs no call of its own.
 */
export interface IdempotencyReceipt {
  scope: IdempotencyScope;
  key: string;
  fingerprint: string;
  requestId: string;
  statusCode: number;
  serviceVersion: string;
  /** The snapshot event whose object is the success body. */
  event: { scope: Scope; id: string };
  /** When the request was served: a record expired by then is taken over. */
  now: number;
  expiresAt: number;
  /** Set once the transaction that holds it committed (`transactWithOutbox`). */
  written?: true;
}

/** Storage port for idempotency records, scoped per account and mode. */
export interface IdempotencyStore {
  /** Atomically claims the key, or returns the record that holds it. */
  claim(claim: IdempotencyClaim, now: number): Promise<{ claimed: true } | { claimed: false; record: IdempotencyRecord }>;
  read(scope: IdempotencyScope, key: string, now: number): Promise<IdempotencyRecord>;
  complete(scope: IdempotencyScope, key: string, response: StoredResponse): Promise<void>;
  /**
   * Keeps a response under a key nobody holds (or, `replaceOwn`, this request's own receipt), in one conditional put: for
   * requests that claimed nothing first (`idempotency: { answeredBy }`). Returns the record of another
   * request that holds the key, and keeps nothing then.
   */
  keep(claim: Omit<IdempotencyClaim, 'lockedUntil'>, response: StoredResponse, now: number, replaceOwn: boolean): Promise<IdempotencyRecord | undefined>;
  /** Forgets a claim whose request failed in a way a retry may fix (5xx, conflicts, rate limits). */
  release(scope: IdempotencyScope, key: string): Promise<void>;
}

/** Storage port: a count per bucket and second, shared by every process (every Lambda instance). */
export interface RateCounter {
  /**
   * Counts `count` requests in `bucket` for `second`; false (counting nothing) when that would pass `limit`.
   * Throws {@link CounterThrottledError} when the store refuses the write for load.
   */
  take(bucket: string, second: number, limit: number, count: number): Promise<boolean>;
}

/** The counter's store throttled the write: the bucket (or the table) is being written faster than it takes. */
export class CounterThrottledError extends Error {}
