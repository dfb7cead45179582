import type { Outbox } from '#shared/events/event.ts';
import type { ErrorWindow, ErrorWindowStore, MeterEventError } from '#shared/meter-events/meter-event.ts';
import type { Scope } from '#shared/platform/types.ts';
import { epochSeconds, whenConditionHolds } from '../conditions.ts';
import { dueEntry, dueItems } from '../due-index.ts';
import { meterErrorWindow } from '../keys.ts';
import type { Table } from '../table.ts';
import { transactGuarded } from '../transactions.ts';
import { errorWindowRetentionMillis } from './items.ts';

const maxSamplesPerCode = 5;

function errorWindowOf(item: Record<string, unknown>): ErrorWindow {
  const byCode: ErrorWindow['byCode'] = [];
  for (const [attribute, value] of Object.entries(item)) {
    if (!attribute.startsWith('count_')) continue;
    const code = attribute.slice('count_'.length);
    const samples = ((item[`samples_${code}`] as Array<{ message: string; identifier: string }> | undefined) ?? []).slice(0, maxSamplesPerCode);
    byCode.push({ code, count: value as number, samples });
  }
  byCode.sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
  return {
    scope: item.scope as Scope,
    platformId: item.platformId as string,
    meterId: (item.meterId as string | null) ?? null,
    start: item.windowStart as number,
    end: item.windowEnd as number,
    errorCount: item.errorCount as number,
    byCode,
  };
}

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
          const first = group[0]!;
          const codes = new Map<string, MeterEventError[]>();
          for (const error of group) codes.set(error.code, [...(codes.get(error.code) ?? []), error]);
          const names: Record<string, string> = {};
          const values: Record<string, unknown> = {};
          const adds = [...codes.entries()].map(([code, list], index) => {
            names[`#c${index}`] = `count_${code}`;
            values[`:c${index}`] = list.length;
            return `#c${index} :c${index}`;
          });
          // A window already reported takes no more errors: they go to the next one.
          for (let start = Math.floor(now / windowMillis) * windowMillis; ; start += windowMillis) {
            const key = { PK: pk, SK: meterErrorWindow.sk(start) };
            const due = dueEntry('meter-reports', `${pk}#${start}`, start + windowMillis, pk);
            const counted = await whenConditionHolds(() =>
              table.update({
                TableName: name,
                Key: key,
                UpdateExpression: `SET entity = :entity, #scope = :scope, platformId = :platformId, meterId = :meterId, windowStart = :start, windowEnd = :end, GSI2PK = :gsi2pk, GSI2SK = :gsi2sk, expiresAt = :expiresAt ADD errorCount :count, ${adds.join(', ')}`,
                ConditionExpression: 'attribute_not_exists(reportedAt)',
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
              }),
            );
            if (!counted) continue;
            await Promise.all(
              [...codes.entries()].map(([code, list]) =>
                whenConditionHolds(() =>
                  table.update({
                    TableName: name,
                    Key: key,
                    UpdateExpression: 'SET #samples = list_append(if_not_exists(#samples, :empty), :samples)',
                    ConditionExpression: 'attribute_not_exists(reportedAt) AND (attribute_not_exists(#samples) OR size(#samples) < :max)',
                    ExpressionAttributeNames: { '#samples': `samples_${code}` },
                    ExpressionAttributeValues: {
                      ':empty': [],
                      ':samples': list.slice(0, maxSamplesPerCode).map((error) => ({ message: error.message, identifier: error.identifier })),
                      ':max': maxSamplesPerCode,
                    },
                  }),
                ),
              ),
            );
            return;
          }
        }),
      );
    },

    async dueErrorWindows(endedBy, limit) {
      return (await dueItems(table, 'meter-reports', endedBy, limit)).map(errorWindowOf);
    },

    markReported(window: ErrorWindow, outbox: Outbox) {
      const update = {
        TableName: name,
        Key: { PK: meterErrorWindow.pk(window.scope, window.meterId), SK: meterErrorWindow.sk(window.start) },
        UpdateExpression: 'SET reportedAt = :now REMOVE GSI2PK, GSI2SK',
        // Errors counted since the window was read make it start over, so none is left out of the report.
        ConditionExpression: 'attribute_not_exists(reportedAt) AND errorCount = :seen',
        ExpressionAttributeValues: { ':now': table.clock(), ':seen': window.errorCount },
      };
      return transactGuarded(table, [{ Update: update }], outbox);
    },
  };
}
