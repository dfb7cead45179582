import type { Invoice, InvoiceChange, InvoiceItem, InvoiceRepository } from '#shared/invoices/invoice.ts';
import { billingDueEntry } from './due-index.ts';
import { envelopeOf } from './item-schemas.ts';
import { invoice, invoiceItem } from './keys.ts';
import { ownedEntity, ownedResourceStore } from './owned-resources.ts';
import type { Table, TransactItem } from './table.ts';
import { isConditionFailure } from './conditions.ts';
import { transactChecked } from './transactions.ts';
import { customerSourceEntity } from './customer-repository.ts';
import { subscriptionEntity } from './billing-repositories.ts';

const invoiceKind = {
  entity: 'invoice',
  keys: invoice,
  idPrefix: 'in',
  parse: envelopeOf<Invoice>(),
  // Every write of an invoice puts it in (or takes it out of) the due index: auto-finalization, payment retries.
  indexKeys: (stored: Invoice): Record<string, string> => billingDueEntry(stored.scope, 'invoice', stored.id, stored.due),
};
const invoiceItemKind = { entity: 'invoice_item', keys: invoiceItem, idPrefix: 'ii', parse: envelopeOf<InvoiceItem>() };

const invoices = ownedEntity<Invoice>(invoiceKind);
const items = ownedEntity<InvoiceItem>(invoiceItemKind);
const { customers } = customerSourceEntity;

/**
 * Invoices and invoice items (TABLE_DESIGN.md 60, 60a–60d) in their owner's partition, lines inside the
 * invoice. A change is one transaction: new objects conditional on their absence, changed and deleted ones
 * on the version read, the customer (numbering, balance) replaced on its version or checked unchanged.
 * The builder is pure so a subscription's renewal can put these actions in its own transaction.
 */
export const invoiceEntity = {
  invoices,
  items,
  commit(tableName: string, change: InvoiceChange): TransactItem[] {
    const deleteOnVersion = (key: Record<string, string>, version: number): TransactItem => ({
      Delete: { TableName: tableName, Key: key, ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': version } },
    });
    return [
      ...(change.newInvoice ? invoices.create(tableName, change.newInvoice) : []),
      ...(change.invoice ? invoices.replace(tableName, change.invoice) : []),
      ...(change.deletedInvoice ? [deleteOnVersion(invoices.key(change.deletedInvoice.scope, change.deletedInvoice.id), change.deletedInvoice.version)] : []),
      ...(change.newItems ?? []).flatMap((made) => items.create(tableName, made)),
      ...(change.items ?? []).flatMap((next) => items.replace(tableName, next)),
      ...(change.deletedItems ?? []).map((gone) => deleteOnVersion(items.key(gone.scope, gone.id), gone.version)),
      ...(change.customer ? customers.replace(tableName, change.customer) : []),
      ...(change.subscription ? subscriptionEntity.subscriptions.replace(tableName, change.subscription) : []),
      ...(change.customerRead
        ? [
            {
              ConditionCheck: {
                TableName: tableName,
                Key: customers.key(change.customerRead.scope, change.customerRead.id),
                ConditionExpression: 'version = :version AND attribute_not_exists(deleted)',
                ExpressionAttributeValues: { ':version': change.customerRead.version },
              },
            },
          ]
        : []),
    ];
  },
};

export function dynamoInvoiceRepository(table: Table): InvoiceRepository {
  const invoiceStore = ownedResourceStore<Invoice>(table, invoiceKind);
  const itemStore = ownedResourceStore<InvoiceItem>(table, invoiceItemKind);
  return {
    invoices: { get: invoiceStore.get, list: invoiceStore.list },
    items: { get: itemStore.get, list: itemStore.list },
    async commit(change, outbox) {
      const actions = invoiceEntity.commit(table.name, change);
      // One conditional put without events (a charge's claim) is a PutItem: half a transaction's write units.
      const [only] = actions;
      if (actions.length === 1 && only?.Put && outbox === undefined) {
        try {
          await table.put(only.Put);
          return true;
        } catch (error) {
          if (isConditionFailure(error)) return false;
          throw error;
        }
      }
      return transactChecked(table, actions, outbox);
    },
  };
}
