import type { MeterEventSessionStore } from '#shared/meter-events/meter-event.ts';
import { epochSeconds } from '../conditions.ts';
import { meterEventSession as sessionKeys } from '../keys.ts';
import type { Table } from '../table.ts';
import { day, toSession } from './items.ts';

/** Meter event sessions, one partition per token hash; the table's TTL removes them a day after they expire. */
export function dynamoMeterEventSessionStore(table: Table): MeterEventSessionStore {
  const { name } = table;
  return {
    async putSession(session, tokenHash) {
      await table.put({
        TableName: name,
        // `expiresAt` is the table's TTL attribute (seconds): the session's own expiry is kept apart.
        Item: {
          PK: sessionKeys.pk(tokenHash),
          SK: sessionKeys.sk(),
          entity: 'meter_event_session',
          ...session,
          sessionExpiresAt: session.expiresAt,
          expiresAt: epochSeconds(session.expiresAt + day),
        },
      });
    },

    async findSession(tokenHash) {
      const item = await table.get({ PK: sessionKeys.pk(tokenHash), SK: sessionKeys.sk() });
      return item ? toSession(item) : undefined;
    },
  };
}
