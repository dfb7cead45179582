import { cacheTopics, invalidating } from '#shared/core/cache.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoMeterRepository } from '#shared/data/meter-repository.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { meterService } from './service.ts';

/** The service on its real adapters; handlers call this once at module scope (cold start). */
/** Meters whose writes invalidate this process's cached copies (`cacheTopics.meters`). */
export const wireMeterRepository = () => invalidating(dynamoMeterRepository(serviceTable()), cacheTopics.meters);

/** The service on its real adapters; handlers call this once at module scope (cold start). */
export const wireMeterService = () => meterService({ repository: wireMeterRepository(), events: wireEventEmitter() });
