import { scheduledJob } from '#shared/core/observability.ts';
import { logger } from '#shared/core/logger.ts';
import { wireErrorReporter } from '#shared/meter-events/wiring.ts';

const reporter = wireErrorReporter();

/** Every minute: reports each meter's closed error windows as `v1.billing.meter.error_report_triggered` / `no_meter_found`. */
export const handler = scheduledJob(async () => {
  const reported = await reporter.reportDue();
  if (reported > 0) logger.info('Reported meter error windows', { reported });
  return { reported };
});
