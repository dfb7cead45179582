import { serviceTable } from '#shared/data/table.ts';
import { dynamoMeterRepository } from '#shared/data/meter-repository.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { meterService } from './service.ts';

/** The service on its real adapters; handlers call this once at module scope (cold start). */
export const wireMeterService = () => meterService({ repository: dynamoMeterRepository(serviceTable()), events: wireEventEmitter() });
