import { deflateRawSync, inflateRawSync } from 'node:zlib';
import * as z from 'zod';

/** Pieces of the item schemas the stores parse what the table answers with (a malformed item fails loudly). */
export const scopeItem = z.object({ accountId: z.string(), livemode: z.boolean() });

/** An event as fan-outs and deliveries refer to it (`EventRef`). */
export const eventRefItem = z.object({ kind: z.enum(['thin', 'snapshot']), scope: scopeItem, id: z.string() });

/** The table's keys and bookkeeping attributes: no domain record carries them. */
const bookkeeping = new Set(['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK', 'entity', 'expiresAt']);

/**
 * An item as the record it stores: without its keys and bookkeeping attributes (and `alsoDrop`, ones a
 * store keeps for itself). For records written whole by their own store, whose shape the write fixed.
 */
export const recordOf = <T>(item: Record<string, unknown>, alsoDrop: readonly string[] = []): T =>
  Object.fromEntries(Object.entries(item).filter(([key]) => !bookkeeping.has(key) && !alsoDrop.includes(key))) as T;

/** An attribute that may be absent or null on older items; read as null. */
export const orNull = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value): z.output<T> | null => value ?? null);

export const metadataItem = z.record(z.string(), z.string());

const wireObject = z.record(z.string(), z.unknown());

/**
 * A wire object kept as its JSON text, deflated (`storedBytes`): it reads back with its members in the order
 * they were written (DynamoDB keeps no order within a map), in about half the bytes, so half the write units,
 * a map of the same object takes. Items written before kept a map.
 */
export const storedObject = z.union([
  wireObject,
  z
    .instanceof(Uint8Array)
    .transform((bytes, context) => {
      try {
        return JSON.parse(inflateRawSync(bytes).toString('utf8')) as unknown;
      } catch {
        context.issues.push({ code: 'custom', message: 'not deflated JSON', input: bytes });
        return z.NEVER;
      }
    })
    .pipe(wireObject),
]);

export const storedBytes = (object: Record<string, unknown>): Uint8Array => deflateRawSync(JSON.stringify(object));

/** What every owned resource's item has (see `OwnedResource`). */
export const ownedItem = { id: z.string(), scope: scopeItem, version: z.number() };

const ownedEnvelope = z.looseObject(ownedItem);

/**
 * The reader of an owned kind whose record is a large nested document written whole by its store (v2
 * accounts and persons, subscriptions, issuing objects): the fields the store relies on (`id`, `scope`,
 * `version`) are checked, and the rest is taken as the write left it.
 */
export const envelopeOf =
  <T>() =>
  (item: Record<string, unknown>): T => {
    ownedEnvelope.parse(item);
    return recordOf<T>(item);
  };
