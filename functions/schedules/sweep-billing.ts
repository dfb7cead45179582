import { wireDueRunner } from '#shared/billing/due-processors.ts';
import { logger } from '#shared/core/logger.ts';

const runner = wireDueRunner();

/** Every minute: runs the processors of billing objects due on the stack's clock, and resumes test clock advances. */
export const handler = async () => {
  const swept = await runner.sweep();
  if (swept.processed + swept.failed > 0) logger.info('Swept due billing objects', swept);
  return swept;
};
