import { Logger } from '@aws-lambda-powertools/logger';

/** One structured logger per process; level from `POWERTOOLS_LOG_LEVEL` / `LOG_LEVEL`. */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'service-api' });
