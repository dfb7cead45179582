import type { ExpansionPorts } from '#shared/expansion/loaders.ts';
import { memoryIssuingRepository } from './issuing-fakes.ts';

/**
 * Reads answered the way the table executor answers gets: every read issued in one turn of the event loop
 * goes out together, as one batch, and `batches` counts them (what BatchGetItem calls would be made).
 */
export function turnBatcher() {
  let waiting: Array<() => void> | undefined;
  const counter = {
    batches: 0,
    keys: 0,
    read<T>(answer: () => Promise<T>): Promise<T> {
      return new Promise((resolve, reject) => {
        if (!waiting) {
          waiting = [];
          setImmediate(() => {
            const batch = waiting!;
            waiting = undefined;
            counter.batches += 1;
            for (const run of batch) run();
          });
        }
        counter.keys += 1;
        waiting.push(() => void answer().then(resolve, reject));
      });
    },
  };
  return counter;
}

type Batcher = ReturnType<typeof turnBatcher>;
const batchedGet = <T>(batcher: Batcher, store: { get(...args: any[]): Promise<T> }) => ({
  get: (...args: any[]) => batcher.read(() => store.get(...args)),
});

/** Expansion ports on memory repositories whose gets go through `batcher` (issuing ones empty unless given). */
export function batchedExpansionPorts(
  batcher: Batcher,
  stores: Pick<ExpansionPorts, 'customers' | 'products' | 'prices'> & Partial<ExpansionPorts>,
): ExpansionPorts {
  return {
    customers: {
      ...batchedGet(batcher, stores.customers),
      getSource: (...args) => batcher.read(() => stores.customers.getSource(...args)),
      listSources: stores.customers.listSources,
    },
    products: batchedGet(batcher, stores.products),
    prices: batchedGet(batcher, stores.prices),
    cards: batchedGet(batcher, stores.cards ?? memoryIssuingRepository()),
    cardholders: batchedGet(batcher, stores.cardholders ?? memoryIssuingRepository()),
    authorizations: batchedGet(batcher, stores.authorizations ?? memoryIssuingRepository()),
    transactions: batchedGet(batcher, stores.transactions ?? memoryIssuingRepository()),
    testClocks: batchedGet(batcher, stores.testClocks ?? { get: async () => undefined }),
    invoices: { get: async () => undefined },
  } as ExpansionPorts;
}

/** Ports that find nothing: a test gives the repositories its objects live in. */
export const noExpansionPorts: ExpansionPorts = {
  customers: { get: async () => undefined, getSource: async () => undefined, listSources: async () => ({ items: [], hasMore: false }) },
  products: { get: async () => undefined },
  prices: { get: async () => undefined },
  cards: { get: async () => undefined },
  cardholders: { get: async () => undefined },
  authorizations: { get: async () => undefined },
  transactions: { get: async () => undefined },
  testClocks: { get: async () => undefined },
  invoices: { get: async () => undefined },
};
