import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Outbox } from '#shared/events/event.ts';
import type { ErrorWindow, ErrorWindowStore, MeterEventError } from '#shared/meter-events/meter-event.ts';
import { epochSeconds, isConditionFailure, oldItemOf } from '../conditions.ts';
import { dueEntry, dueItems } from '../due-index.ts';
import { meterErrorWindow } from '../keys.ts';
import type { Table, TransactItem } from '../table.ts';
import { transactGuarded } from '../transactions.ts';
import { orNull, scopeItem } from '../item-schemas.ts';
import { errorWindowRetentionMillis } from './items.ts';

const maxSamplesPerCode = 5;

const windowItem = z.object({
  scope: scopeItem,
  platformId: z.string(),
  meterId: orNull(z.string()),
  windowStart: z.number(),
  windowEnd: z.number(),
  errorCount: z.number(),
});
const samplesItem = z.array(z.object({ message: z.string(), identifier: z.string() }));

/** Errors grouped by code, in the order of the meter's events. */
function byCodeOf(group: MeterEventError[]): Map<string, MeterEventError[]> {
  const codes = new Map<string, MeterEventError[]>();
  for (const error of group) codes.set(error.code, [...(codes.get(error.code) ?? []), error]);
  return codes;
}

/** Meter error windows (TABLE_DESIGN.md 22): the window an item holds, and the update of each step. */
export const errorWindowEntity = {
  key: (pk: string, start: number) => ({ PK: pk, SK: meterErrorWindow.sk(start) }),
  /** A window read back: its counts per code (`count_<code>`), most first, each with up to 5 samples. */
  parse(item: Record<string, unknown>): ErrorWindow {
    const window = windowItem.parse(item);
    const byCode: ErrorWindow['byCode'] = [];
    for (const [attribute, value] of Object.entries(item)) {
      if (!attribute.startsWith('count_')) continue;
      const code = attribute.slice('count_'.length);
      byCode.push({ code, count: z.number().parse(value), samples: samplesItem.parse(item[`samples_${code}`] ?? []).slice(0, maxSamplesPerCode) });
    }
    byCode.sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
    return {
      scope: window.scope,
      platformId: window.platformId,
      meterId: window.meterId,
      start: window.windowStart,
      end: window.windowEnd,
      errorCount: window.errorCount,
      byCode,
    };
  },
  /**
   * One meter's errors counted into the window starting at `start`, due for its report at its end, with samples
   * (up to 5 a code) of each code not in `full`, in one write: a report never reads a count whose samples are yet
   * to come (two writes let a report in between them, which then went out without the samples, and the samples'
   * write failed on the reported window). Unless the window was reported, or a code's samples filled since they
   * were read (the old item the failure returns tells which).
   */
  count(tableName: string, pk: string, group: MeterEventError[], start: number, windowMillis: number, full: ReadonlySet<string>): UpdateCommandInput {
    const first = group[0]!;
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    const codes = [...byCodeOf(group).entries()];
    const adds = codes.map(([code, list], index) => {
      names[`#c${index}`] = `count_${code}`;
      values[`:c${index}`] = list.length;
      return `#c${index} :c${index}`;
    });
    const sampled = codes.filter(([code]) => !full.has(code));
    const appends = sampled.map(([code, list], index) => {
      names[`#s${index}`] = `samples_${code}`;
      values[`:s${index}`] = list.slice(0, maxSamplesPerCode).map((error) => ({ message: error.message, identifier: error.identifier }));
      return `#s${index} = list_append(if_not_exists(#s${index}, :empty), :s${index})`;
    });
    const roomy = sampled.map((_, index) => `(attribute_not_exists(#s${index}) OR size(#s${index}) < :max)`);
    if (sampled.length > 0) Object.assign(values, { ':empty': [], ':max': maxSamplesPerCode });
    const due = dueEntry('meter-reports', `${pk}#${start}`, start + windowMillis, pk);
    return {
      TableName: tableName,
      Key: errorWindowEntity.key(pk, start),
      UpdateExpression: `SET ${['entity = :entity, #scope = :scope, platformId = :platformId, meterId = :meterId, windowStart = :start, windowEnd = :end, GSI2PK = :gsi2pk, GSI2SK = :gsi2sk, expiresAt = :expiresAt', ...appends].join(', ')} ADD errorCount :count, ${adds.join(', ')}`,
      ConditionExpression: ['attribute_not_exists(reportedAt)', ...roomy].join(' AND '),
      ExpressionAttributeNames: { '#scope': 'scope', ...names },
      ExpressionAttributeValues: {
        ':entity': 'meter_error_window',
        ':scope': first.scope,
        ':platformId': first.platformId,
        ':meterId': first.meterId,
        ':start': start,
        ':end': start + windowMillis,
        ':gsi2pk': due.GSI2PK,
        ':gsi2sk': due.GSI2SK,
        ':expiresAt': epochSeconds(start + errorWindowRetentionMillis),
        ':count': group.length,
        ...values,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    };
  },
  /** The codes whose samples a window holds in full, from the item a failed count found. */
  fullCodes: (found: Record<string, unknown>): Set<string> =>
    new Set(
      Object.entries(found)
        .filter(([attribute, value]) => attribute.startsWith('samples_') && Array.isArray(value) && value.length >= maxSamplesPerCode)
        .map(([attribute]) => attribute.slice('samples_'.length)),
    ),
  /** Reported once, out of the due index; errors counted since the window was read make it start over, so none is left out. */
  markReported: (tableName: string, window: ErrorWindow, now: number): NonNullable<TransactItem['Update']> => ({
    TableName: tableName,
    Key: errorWindowEntity.key(meterErrorWindow.pk(window.scope, window.meterId), window.start),
    UpdateExpression: 'SET reportedAt = :now REMOVE GSI2PK, GSI2SK',
    ConditionExpression: 'attribute_not_exists(reportedAt) AND errorCount = :seen',
    ExpressionAttributeValues: { ':now': now, ':seen': window.errorCount },
  }),
};

/** Error windows per meter (and one for events naming no meter), due for their report in the due index once they end. */
export function dynamoErrorWindowStore(table: Table): ErrorWindowStore {
  const { name } = table;
  return {
    async recordErrors(errors, now, windowMillis) {
      const byMeter = new Map<string, MeterEventError[]>();
      for (const error of errors) {
        const pk = meterErrorWindow.pk(error.scope, error.meterId);
        byMeter.set(pk, [...(byMeter.get(pk) ?? []), error]);
      }
      await Promise.all(
        [...byMeter.entries()].map(async ([pk, group]) => {
          let full = new Set<string>();
          for (let start = Math.floor(now / windowMillis) * windowMillis; ; ) {
            try {
              await table.update(errorWindowEntity.count(name, pk, group, start, windowMillis, full));
              return;
            } catch (error) {
              if (!isConditionFailure(error)) throw error;
              const found = oldItemOf(error) ?? (await table.getConsistent(errorWindowEntity.key(pk, start))) ?? {};
              if (found.reportedAt !== undefined) {
                // A window already reported takes no more errors: they go to the next one.
                start += windowMillis;
                full = new Set();
                continue;
              }
              // Samples filled since: counted without adding to them. Each retry has one full code more.
              const filled = errorWindowEntity.fullCodes(found);
              if ([...filled].every((code) => full.has(code))) throw error;
              full = filled;
            }
          }
        }),
      );
    },

    async dueErrorWindows(endedBy, limit) {
      return (await dueItems(table, 'meter-reports', endedBy, limit)).map(errorWindowEntity.parse);
    },

    markReported: (window: ErrorWindow, outbox: Outbox) =>
      transactGuarded(table, [{ Update: errorWindowEntity.markReported(name, window, table.clock()) }], outbox),
  };
}
