import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';

export const isConditionFailure = (error: unknown): boolean =>
  error instanceof ConditionalCheckFailedException || (error as { name?: string })?.name === 'ConditionalCheckFailedException';

/** For a cancelled transaction, the cancellation code of each action in order (`None` for those that passed). */
export function cancellationCodes(error: unknown): string[] | undefined {
  const cancelled = error instanceof TransactionCanceledException || (error as { name?: string })?.name === 'TransactionCanceledException';
  if (!cancelled) return undefined;
  return ((error as TransactionCanceledException).CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
}

export const epochSeconds = (millis: number): number => Math.floor(millis / 1000);

/** The item a failed condition found (`ReturnValuesOnConditionCheckFailure: ALL_OLD`; the table unmarshals it). */
export const oldItemOf = (error: unknown): Record<string, unknown> | undefined => (error as { Item?: Record<string, unknown> }).Item;

/** Whether the error code of one transaction action is a failed condition. */
export const failedCondition = (code: string | undefined): boolean => code === 'ConditionalCheckFailed';

export const isTransactionConflict = (error: unknown): boolean => (error as { name?: string })?.name === 'TransactionConflictException';

/** Runs a conditional write: true when it was written, false when its condition failed. */
export async function whenConditionHolds(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** Waits before another try of a write that conflicted with a transaction: jittered, growing to 0.5 s. */
export const backOff = (round: number): Promise<unknown> =>
  new Promise((resolve) => setTimeout(resolve, Math.min(500, 10 * 2 ** Math.min(round, 6)) * (0.5 + Math.random())));
