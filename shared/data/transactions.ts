import type { Outbox } from '#shared/events/event.ts';
import type { Table } from './table.ts';
import { cancellationCodes } from './conditions.ts';
import { outboxItems } from './outbox-items.ts';
import type { TransactItem } from './table.ts';

/**
 * Writes a change and its outbox in one transaction. The first action carries the change's condition
 * (exists, version, cap); returns false when that condition failed.
 */
export async function transactGuarded(table: Table, items: TransactItem[], outbox: Outbox | undefined): Promise<boolean> {
  try {
    await table.transact(outboxItems(table.name, outbox, items));
    return true;
  } catch (error) {
    if (cancellationCodes(error)?.[0] === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/**
 * Writes a change whose every action carries a condition on what was read, with its outbox, in one
 * transaction: false when any condition failed or another transaction touched the same items (the caller
 * reads again and retries).
 */
export async function transactChecked(table: Table, items: TransactItem[], outbox: Outbox | undefined): Promise<boolean> {
  try {
    await table.transact(outboxItems(table.name, outbox, items));
    return true;
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes?.some((code) => code === 'ConditionalCheckFailed' || code === 'TransactionConflict')) return false;
    throw error;
  }
}
