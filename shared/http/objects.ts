import * as z from 'zod';

/**
 * zod building blocks of response objects. Each resource's serializer module declares its object schema
 * from these and returns `z.input` of it, so the OpenAPI document and the serializer cannot disagree.
 */

/** v1 times: integer Unix seconds. */
export const unixTime = z.int().meta({ id: 'UnixTime', description: 'Unix seconds.' });

/** v2 times: RFC 3339 UTC with milliseconds. */
export const isoTime = z.iso.datetime().meta({ id: 'Timestamp', description: 'RFC 3339, UTC, with milliseconds: `2026-11-22T10:15:30.123Z`.' });

export const metadataObject = z.record(z.string(), z.string()).meta({ id: 'Metadata', description: 'Your key-value pairs.' });

/** What a DELETE answers on v1 (and v2 persons): the id, the object type and `deleted: true`. */
export const deletedObject = <O extends string>(object: O) => z.object({ id: z.string(), object: z.literal(object), deleted: z.literal(true) });

/** A v1 postal address. */
export const addressObject = z
  .object({
    city: z.string().nullable(),
    country: z.string().nullable(),
    line1: z.string().nullable(),
    line2: z.string().nullable(),
    postal_code: z.string().nullable(),
    state: z.string().nullable(),
  })
  .meta({ id: 'Address' });

/** An object this service keeps as given (a v2 account's sections, an event's data): its fields are the request's. */
export const openObject = z.record(z.string(), z.unknown());
