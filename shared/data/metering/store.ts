import type { MeterEventStore } from '#shared/meter-events/meter-event.ts';
import type { Table } from '../table.ts';
import { dynamoErrorWindowStore } from './error-windows.ts';
import { dynamoMeterEventRecordStore } from './event-records.ts';
import { dynamoUsageLeaseStore } from './leases.ts';
import { dynamoMeterEventSessionStore } from './sessions.ts';
import { dynamoUsageStore } from './usage.ts';

/** The metering pipeline's storage: one DynamoDB store per concern (this folder), on one table. */
export const dynamoMeterEventStore = (table: Table): MeterEventStore => ({
  ...dynamoUsageLeaseStore(table),
  ...dynamoMeterEventRecordStore(table),
  ...dynamoMeterEventSessionStore(table),
  ...dynamoUsageStore(table),
  ...dynamoErrorWindowStore(table),
});
