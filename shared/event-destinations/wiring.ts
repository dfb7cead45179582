import { config } from '#shared/config.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoCloudtwoAuthorizationStore, dynamoEventDestinationRepository } from '#shared/data/event-destination-repository.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { eventDestinationService } from './service.ts';

/** The service on its real adapters; handlers call this once at module scope (cold start). */
export const wireEventDestinationService = () =>
  eventDestinationService({
    repository: dynamoEventDestinationRepository(serviceTable()),
    authorizations: dynamoCloudtwoAuthorizationStore(serviceTable()),
    events: wireEventEmitter(),
    maxDestinations: config().MAX_EVENT_DESTINATIONS,
    eventSourcePrefix: config().CLOUDONE_EVENT_SOURCE_PREFIX,
    // Pings answer from a destination read in the last second, like the table's own (eventually consistent) reads.
    pingRecentMillis: 1000,
    egress: { allowPrivateInTestMode: config().WEBHOOK_ALLOW_PRIVATE_TARGETS },
  });
