import type { InvoiceItem } from '#shared/invoices/invoice.ts';
import type { Subscription, SubscriptionRepository } from '#shared/subscriptions/subscription.ts';
import { memoryOwnedStore } from './fakes.ts';

/** Subscriptions in memory, with the item pointers the DynamoDB store keeps (`findByItem`): items found by id. */
export function memorySubscriptionRepository(): SubscriptionRepository & {
  items: Map<string, Subscription>;
  pointers: Map<string, string>;
  /** The invoice items written with the subscriptions (prorations), in write order. */
  invoiceItems: InvoiceItem[];
} {
  const store = memoryOwnedStore<Subscription>();
  const pointers = new Map<string, string>();
  const invoiceItems: InvoiceItem[] = [];
  const pointerKey = (subscription: Pick<Subscription, 'scope'>, itemId: string) => `${subscription.scope.accountId}|${subscription.scope.livemode}|${itemId}`;
  return {
    ...store,
    pointers,
    invoiceItems,
    async create(made, options) {
      if (!(await store.create(made, options))) return false;
      for (const item of made.items) pointers.set(pointerKey(made, item.id), made.id);
      return true;
    },
    async replaceItems(next, change) {
      if (!(await store.replace(next))) return false;
      for (const id of change.added) pointers.set(pointerKey(next, id), next.id);
      for (const id of change.removed) pointers.delete(pointerKey(next, id));
      invoiceItems.push(...(change.invoiceItems ?? []));
      for (const gone of change.deletedInvoiceItems ?? []) {
        const at = invoiceItems.findIndex((item) => item.id === gone.id);
        if (at >= 0) invoiceItems.splice(at, 1);
      }
      return true;
    },
    async findByItem(scope, itemId) {
      const subscriptionId = pointers.get(pointerKey({ scope }, itemId));
      const found = subscriptionId === undefined ? undefined : await store.get(scope, subscriptionId);
      return found?.items.some((item) => item.id === itemId) ? found : undefined;
    },
  };
}
