import * as z from 'zod';
import type { Scope } from '#shared/platform/types.ts';

/**
 * A `billing` queue message: a pointer to one billing object whose due work should run now (a test clock
 * that starts advancing). It carries no state: the worker reads the object and runs its processor, which
 * does only what is due, so a redelivered or duplicated message does nothing twice.
 */
export const dueMessage = z.strictObject({
  kind: z.enum(['subscription', 'invoice', 'test_clock']),
  scope: z.strictObject({ accountId: z.string().min(1).max(255), livemode: z.boolean() }),
  id: z.string().min(1).max(255),
});

export type DueMessage = z.output<typeof dueMessage>;

export const dueMessageOf = (kind: DueMessage['kind'], scope: Scope, id: string): string =>
  JSON.stringify({ kind, scope: { accountId: scope.accountId, livemode: scope.livemode }, id } satisfies DueMessage);
