import { config } from '#shared/core/config.ts';
import { serviceTable } from '#shared/data/table.ts';
import { dynamoAccountSecretStore } from '#shared/data/account-secret-store.ts';
import { dynamoTokenRepository } from '#shared/data/token-repository.ts';
import { cachedAccountSecrets } from '#shared/platform/wiring.ts';
import { tokenService } from './service.ts';

/** The service on its real adapters; handlers call this once at module scope (cold start). */
export const wireTokenService = () =>
  tokenService({
    repository: dynamoTokenRepository(serviceTable()),
    fingerprintKeys: cachedAccountSecrets(dynamoAccountSecretStore(serviceTable())),
    ttlMillis: config().TOKEN_TTL_MINUTES * 60_000,
  });
