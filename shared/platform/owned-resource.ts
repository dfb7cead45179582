import { RateLimitError } from '#shared/core/errors.ts';
import type { Outbox } from '#shared/events/event.ts';
import type { Page, PageRequest, TimeRange } from '#shared/wire/paging.ts';
import type { Scope } from '#shared/platform/types.ts';
import type { TokenUse } from '#shared/tokens/token.ts';

/** What every owned, versioned resource has. */
export interface OwnedResource {
  id: string;
  scope: Scope;
  /** Optimistic-lock counter, bumped by every write. */
  version: number;
}

/** Storage for a kind of object that lives in its owner's partition, capped per owner, changed with versions. */
export interface OwnedResourceStore<T extends OwnedResource> {
  /**
   * Stores a new object; with a `limit`, only while the owner has fewer than that many (else returns false).
   * Kinds without a per-owner cap keep no counter and ignore `limit`. `using`: a token the write uses up,
   * in the same transaction (refused with `token_already_used` if it was used meanwhile).
   */
  create(resource: T, options?: { limit?: number; outbox?: Outbox; using?: TokenUse }): Promise<boolean>;
  /** The object, if it exists. */
  get(scope: Scope, id: string): Promise<T | undefined>;
  /**
   * Writes `next` if the stored version is still `next.version - 1`; false when someone else wrote first.
   * `using`: a token the write uses up, as for `create`.
   */
  replace(next: T, outbox?: Outbox, using?: TokenUse): Promise<boolean>;
  /** Removes the object; false when it did not exist. */
  delete(scope: Scope, id: string, outbox?: Outbox): Promise<boolean>;
  /**
   * Newest first; `where` keeps only objects whose fields (or dotted paths) equal the given values,
   * `created` those created in that window (a key range: ids encode their creation time).
   */
  list(scope: Scope, page: PageRequest, where?: Record<string, unknown>, created?: TimeRange): Promise<Page<T>>;
  /** Every object of one owner (small sets only: the per-owner cap bounds them). */
  all(scope: Scope): Promise<T[]>;
}

const maxWriteAttempts = 8;
/** Jittered exponential pause between optimistic-lock retries, so that colliding writers fall out of step. */
const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(500, 10 * 2 ** attempt)));

/**
 * Read, apply, write conditionally on the version: `attempt` gets the current object and returns the
 * written next one, or undefined when a concurrent writer won (then it runs again on a fresh read).
 */
export async function withOptimisticRetries<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  for (let round = 0; round < maxWriteAttempts; round++) {
    const written = await attempt();
    if (written !== undefined) return written;
    await backoff(round);
  }
  throw new RateLimitError('The object is being changed by other requests at the same time; retry shortly.', 'lock_timeout');
}
