import { cacheTopics, cacheWindows, readThrough, scopedKey } from '#shared/core/cache.ts';
import { config } from '#shared/core/config.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoCloudtwoAuthorizationStore } from '#shared/data/event-destination-repository.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { wireSecretBox } from '#shared/secrets/wiring.ts';
import { wireEventDestinationRepository } from './repository-wiring.ts';
import { eventDestinationService } from './service.ts';

/** The service on its real adapters; handlers call this once at module scope (cold start). */
export function wireEventDestinationService() {
  const repository = wireEventDestinationRepository();
  return eventDestinationService({
    repository,
    pinged: readThrough(repository.get, scopedKey, {
      ttlMillis: cacheWindows.pingedDestinations(),
      invalidatedBy: [cacheTopics.eventDestinations],
    }),
    authorizations: dynamoCloudtwoAuthorizationStore(serviceTable()),
    events: wireEventEmitter(),
    maxDestinations: config().MAX_EVENT_DESTINATIONS,
    eventSourcePrefix: config().CLOUDONE_EVENT_SOURCE_PREFIX,
    egress: { allowPrivateInTestMode: config().WEBHOOK_ALLOW_PRIVATE_TARGETS },
    secrets: wireSecretBox(),
  });
}
