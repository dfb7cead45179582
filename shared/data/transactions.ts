import type { Outbox } from '#shared/events/event.ts';
import type { Table } from './table.ts';
import { cancellationCodes } from './conditions.ts';
import { outboxItems } from './outbox-items.ts';
import type { TransactItem } from './table.ts';

/**
 * Writes a change and its outbox in one transaction. The first action carries the change's condition
 * (exists, version, cap), or the first `guarded` actions when the change writes several objects; returns
 * false when such a condition failed.
 */
export async function transactGuarded(table: Table, items: TransactItem[], outbox: Outbox | undefined, guarded = 1): Promise<boolean> {
  try {
    await table.transact(outboxItems(table.name, outbox, items));
    return true;
  } catch (error) {
    if (cancellationCodes(error)?.slice(0, guarded).includes('ConditionalCheckFailed')) return false;
    throw error;
  }
}
