import * as z from 'zod';

/**
 * zod building blocks of response objects. Each resource's serializer module declares its object schema
 * from these and returns `z.input` of it, so the OpenAPI document and the serializer cannot disagree.
 */

/** v1 times: integer Unix seconds. */
export const unixTime = z.int().meta({ id: 'UnixTime', description: 'Unix seconds.' });

/** v2 times: RFC 3339 UTC with milliseconds. */
export const isoTime = z.iso.datetime().meta({ id: 'Timestamp', description: 'RFC 3339, UTC, with milliseconds: `2026-11-22T10:15:30.123Z`.' });

/** A string the object may not have: `null`, never left out. */
export const nullableString = z.string().nullable();

export const metadataObject = z.record(z.string(), z.string()).meta({ id: 'Metadata', description: 'Your key-value pairs.' });

/** What a DELETE answers on v1 (and v2 persons): the id, the object type and `deleted: true`. */
export const deletedObject = <O extends string>(object: O) =>
  z.object({
    id: z.string().describe('Unique identifier for the object.'),
    object: z.literal(object).describe("String representing the object's type."),
    deleted: z.literal(true).describe('Always true for a deleted object.'),
  });

/** A v1 postal address. */
export const addressObject = z
  .object({
    city: z.string().nullable().describe('City, district, suburb, town, or village.'),
    country: z.string().nullable().describe('Two-letter country code (ISO 3166-1 alpha-2).'),
    line1: z.string().nullable().describe('Address line 1 (e.g., street, PO Box, or company name).'),
    line2: z.string().nullable().describe('Address line 2 (e.g., apartment, suite, unit, or building).'),
    postal_code: z.string().nullable().describe('ZIP or postal code.'),
    state: z.string().nullable().describe('State, county, province, or region.'),
  })
  .meta({ id: 'Address' });

/** An object this service keeps as given (a v2 account's sections, an event's data): its fields are the request's. */
export const openObject = z.record(z.string(), z.unknown());
