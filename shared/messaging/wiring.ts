import { cacheWindows, readThrough } from '#shared/core/cache.ts';
import { dynamoServiceSecretStore } from '#shared/data/service-secret-store.ts';
import { serviceTable } from '#shared/data/table.ts';
import { queueSeal, type QueueSeal } from './message-seal.ts';
import type { QueueName } from './queues.ts';

let secret: (() => Promise<Buffer>) | undefined;

/**
 * The seal of one queue's messages on the service table's secret (its senders seal, its worker opens). The
 * secret is read once per process (`cacheWindows.serviceSecret`), shared by every queue's seal.
 */
export function wireQueueSeal(queue: QueueName): QueueSeal {
  secret ??= readThrough(dynamoServiceSecretStore(serviceTable()).secret, () => 'service', { ttlMillis: cacheWindows.serviceSecret() });
  return queueSeal(secret, queue);
}
