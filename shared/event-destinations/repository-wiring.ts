import { cacheTopics, invalidating } from '#shared/core/cache.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoEventDestinationRepository } from '#shared/data/event-destination-repository.ts';

/**
 * Event destinations whose writes invalidate this process's cached copies (`cacheTopics.eventDestinations`).
 * Apart from wiring.ts so that the delivery functions, which only read destinations, do not bundle the
 * destination service (and the reference's event type list its `enabled_events` checks need).
 */
export const wireEventDestinationRepository = () => invalidating(dynamoEventDestinationRepository(serviceTable()), cacheTopics.eventDestinations);
