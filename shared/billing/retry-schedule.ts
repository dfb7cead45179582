/**
 * When a failed automatic payment of an invoice is tried again: the reference's default (Smart Retries,
 * "8 tries within 2 weeks"). Its timing is a model's choice the reference does not publish, so this is a
 * fixed spread with the same shape: after the first try, seven more 1, 1, 2, 2, 2, 3 and 3 days after the
 * try before (day 14 for the eighth); after the eighth there is none (`next_payment_attempt` null) and the
 * subscription's configured end state applies (the subscription lifecycle's concern).
 */
const day = 86_400_000;
const gapsAfterAttempt = [1, 1, 2, 2, 2, 3, 3].map((days) => days * day);

/** The most tries one invoice gets automatically (the first included). */
export const maxAutomaticAttempts = gapsAfterAttempt.length + 1;

/**
 * The time of the next automatic try after try number `attemptCount` (1 for the first) failed at
 * `failedAt`, or null when the schedule is over.
 */
export function nextPaymentAttempt(attemptCount: number, failedAt: number): number | null {
  const gap = gapsAfterAttempt[attemptCount - 1];
  return attemptCount >= 1 && gap !== undefined ? failedAt + gap : null;
}
