import { idempotencyKeyInUse } from '#shared/core/errors.ts';
import type { Outbox } from '#shared/events/event.ts';
import type { TokenUse } from '#shared/tokens/token.ts';
import { tokenAlreadyUsed } from '#shared/tokens/use.ts';
import type { Table } from './table.ts';
import { backOff, cancellationCodes, failedCondition } from './conditions.ts';
import { outboxItems } from './outbox-items.ts';
import type { TransactItem } from './table.ts';
import { tokenEntity } from './token-repository.ts';

/**
 * One transaction of a change and its outbox. A create's Idempotency-Key receipt (the last action) that
 * fails means another request holds the key: that is `idempotency_key_in_use`, which the request pipeline
 * answers with the holder's response, never a conflict for the caller to retry.
 */
export async function transactWithOutbox(table: Table, outbox: Outbox | undefined, actions: TransactItem[]): Promise<void> {
  try {
    await table.transact(outboxItems(table.name, outbox, actions));
    if (outbox?.receipt) outbox.receipt.written = true;
  } catch (error) {
    const receiptCode = outbox?.receipt ? cancellationCodes(error)?.at(-1) : undefined;
    if (failedCondition(receiptCode) || receiptCode === 'TransactionConflict') throw idempotencyKeyInUse(outbox!.receipt!.key);
    throw error;
  }
}

/** Tries of a transaction that uses a token, while it collides with concurrent ones on that token. */
const maxConflictRounds = 20;

/**
 * Writes a change and its outbox in one transaction. The first action carries the change's condition
 * (exists, version, cap), or the first `guarded` actions when the change writes several objects; returns
 * false when such a condition failed. A token the change uses (`using`) is marked used in the same
 * transaction: if it was used (or expired) meanwhile, nothing is written and the change is refused with
 * `token_already_used`. Writers racing for one token collide (`TransactionConflict`) and try again until
 * one has used it.
 */
export async function transactGuarded(
  table: Table,
  items: TransactItem[],
  outbox: Outbox | undefined,
  { using, guarded = 1 }: { using?: TokenUse; guarded?: number } = {},
): Promise<boolean> {
  const actions = using ? [...items, tokenEntity.use(table.name, using)] : items;
  for (let round = 0; ; round++) {
    try {
      await transactWithOutbox(table, outbox, actions);
      return true;
    } catch (error) {
      const codes = cancellationCodes(error);
      if (using && failedCondition(codes?.[items.length])) throw tokenAlreadyUsed(using);
      if (codes?.slice(0, guarded).some(failedCondition)) return false;
      if (using && codes?.includes('TransactionConflict') && round < maxConflictRounds) {
        await backOff(round);
        continue;
      }
      throw error;
    }
  }
}

/**
 * Writes a change whose every action carries a condition on what was read, with its outbox, in one
 * transaction: false when any condition failed or another transaction touched the same items (the caller
 * reads again and retries).
 */
export async function transactChecked(table: Table, items: TransactItem[], outbox: Outbox | undefined): Promise<boolean> {
  try {
    await transactWithOutbox(table, outbox, items);
    return true;
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes?.some((code) => code === 'ConditionalCheckFailed' || code === 'TransactionConflict')) return false;
    throw error;
  }
}
