import { dynamoCatalogueRepository } from '#shared/data/billing-repositories.ts';
import { serviceTable } from '#shared/data/table.ts';
import { wireEventEmitter } from '#shared/events/wiring.ts';
import { wireMeterRepository } from '#shared/meters/wiring.ts';
import { catalogueService } from './service.ts';

/** The service on its real adapters; handlers call this once at module scope (cold start). */
export const wireCatalogueService = () =>
  catalogueService({ catalogue: dynamoCatalogueRepository(serviceTable()), events: wireEventEmitter(), meters: wireMeterRepository() });
