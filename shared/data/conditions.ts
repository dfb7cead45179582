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
