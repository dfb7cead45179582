import * as z from 'zod';
import { systemClock } from '#shared/core/clock.ts';
import type { TimeRange } from '#shared/wire/paging.ts';
import type { ObjectType } from '#shared/expansion/objects.ts';
import { cannotExpand, planExpansions, type ExpansionPlan, type ExpansionRoot } from '#shared/expansion/plan.ts';

/**
 * zod building blocks for request parameters. v1 form values and every query-string value arrive as
 * strings (`limit=10`, `disabled=true`), so the scalar helpers accept both the string and the JSON form.
 */

/** The parameters of a request that takes none: anything given is refused. */
export const noParams = z.strictObject({});

export const integerParam = (min: number, max: number) =>
  z
    .union([
      z.number(),
      z
        .string()
        .regex(/^-?\d+$/, 'must be an integer')
        .transform(Number),
    ])
    .pipe(z.number().int('must be an integer').min(min).max(max));

/**
 * A boolean of a form body or query string. As the reference does, any case of `true`/`false` is taken:
 * stripe-python before 2025, stripe-ruby and others send Python's `True`/`False`, also in nested keys
 * (`person[relationship][owner]=True`). Nothing else is (`yes`, `1`, `''`). v2 JSON bodies use
 * `z.boolean()` instead and take a JSON boolean only.
 */
export const booleanParam = () =>
  z.union([
    z.boolean(),
    z
      .string()
      // Spelled out rather than with the `i` flag: the OpenAPI document's `pattern` carries no flags.
      .regex(/^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$/, 'must be true or false')
      .transform((value) => value.toLowerCase() === 'true'),
  ]);

export const stringParam = (maxLength = 5000) => z.string().max(maxLength);

/**
 * A phone number as free text, as customers and v2 accounts take it (a cardholder's is E.164 and a token
 * person's is shape-checked: those are declared with their resource). 40, the most permissive bound used before.
 */
export const phoneParam = () => stringParam(40);

/** Longest id this service makes or looks up: a longer one cannot exist, and would not fit in a table key. */
export const maxIdLength = 255;

/** A reference to an object by id (`customer`, `price`, a cursor): bounded before it reaches a table key. */
export const idParam = () => z.string().min(1).max(maxIdLength);

/** A v1 value that may be sent as `''` to clear it; the empty string becomes `null`. */
export const emptyable = <T extends z.ZodType>(schema: T) => z.union([z.literal('').transform(() => null), schema]);

const metadataKey = z.string().min(1, 'metadata keys cannot be empty').max(40, 'metadata keys are at most 40 characters');
const metadataValue = z.string().max(500, 'metadata values are at most 500 characters');
const metadataMap = <V extends z.ZodType>(value: V) =>
  z.record(metadataKey, value).refine((map) => Object.keys(map).length <= 50, 'metadata can have at most 50 keys');

/**
 * v1 metadata: a map of strings. On update a key set to `''` is removed, and `metadata=''` clears all,
 * which is why values may be empty and the whole map may be `null`. At most 50 keys.
 */
export const metadataParam = () =>
  emptyable(metadataMap(z.union([metadataValue, z.number().transform(String)]))).describe(
    'Set of key-value pairs that you can attach to an object. On update, a key sent empty (`metadata[key]=`) is removed, and `metadata=` removes them all.',
  );

/** v2 metadata (JSON): the same keys and values as v1, as JSON strings only. */
export const v2MetadataParam = () => metadataMap(metadataValue);

/**
 * v2 metadata that may remove keys: a value sent as `null` removes its key (v2 updates, and v2 accounts, whose
 * create and update share their fields). One declaration apart from `v2MetadataParam` so each keeps its type.
 */
export const v2MetadataPatchParam = () => metadataMap(metadataValue.nullable());

/** A three-letter ISO currency code in any case, lowercased as the reference answers it. */
export const currencyParam = () =>
  z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO currency code')
    .transform((code) => code.toLowerCase());

/** A two-letter ISO country code in any case, uppercased as the reference answers it. */
export const countryParam = () =>
  z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO country code')
    .transform((code) => code.toUpperCase());

/**
 * Longest email address taken anywhere (customers, cardholders, persons, v2 accounts). The reference documents
 * no bound in this project's reference files; 800, the most permissive bound used before, is kept for all.
 */
export const maxEmailLength = 800;

export const emailParam = () =>
  z
    .string()
    .max(maxEmailLength)
    .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address');

/** An IPv4 or IPv6 address (terms acceptances, attestations, a customer's tax location). */
export const ipParam = () => z.union([z.ipv4(), z.ipv6()]);

const isCalendarDate = ({ day, month, year }: { day: number; month: number; year: number }) => {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
};

/** A date given as day, month and year (a registration date): a real calendar date, from year 1900. */
export const calendarDateParam = () =>
  z
    .strictObject({
      day: integerParam(1, 31).describe('The day of the month, between 1 and 31.'),
      month: integerParam(1, 12).describe('The month, between 1 and 12.'),
      year: integerParam(1900, 9999).describe('The four-digit year.'),
    })
    .refine(isCalendarDate, 'must be a real calendar date');

/** A date of birth (persons, v2 individuals, cardholders): a real calendar date, not after today on the service clock. */
export const dateOfBirthParam = () =>
  calendarDateParam().refine(({ day, month, year }) => Date.UTC(year, month - 1, day) <= systemClock(), 'must not be in the future');

const addressShape = {
  city: stringParam(200).optional().describe('City, district, suburb, town, or village.'),
  country: countryParam().optional().describe('Two-letter country code (ISO 3166-1 alpha-2).'),
  line1: stringParam(200).optional().describe('Address line 1 (e.g., street, PO Box, or company name).'),
  line2: stringParam(200).optional().describe('Address line 2 (e.g., apartment, suite, unit, or building).'),
  postal_code: stringParam(20).optional().describe('ZIP or postal code.'),
  state: stringParam(200).optional().describe('State, county, province, or region.'),
};

/** A v1 postal address, every field optional (a customer's address and shipping, a token's person). */
export const addressParam = () => z.strictObject(addressShape);

/** An address with `town` (chō-me): v1 `address_kana`/`address_kanji` of Japan, and every v2 account address. */
export const townAddressParam = () => z.strictObject({ ...addressShape, town: stringParam(200).optional().describe('Town or cho-me.') });

const expandDescription = 'Specifies which fields in the response should be expanded.';

/** v1 `expand[]` of a response that has nothing to expand: any path is refused. */
export function expandParam(): z.ZodArray<z.ZodString>;
/**
 * v1 `expand[]` of a response of `root` (one object of a type, or `listOf(type)`): the paths are checked against what
 * its objects declare (shared/expansion/objects.ts) and become the plan the handler's expander walks.
 */
export function expandParam(root: ObjectType | ExpansionRoot): z.ZodPipe<z.ZodArray<z.ZodString>, z.ZodTransform<ExpansionPlan, string[]>>;
export function expandParam(root?: ObjectType | ExpansionRoot) {
  if (!root)
    return z
      .array(z.string().refine(() => false, { error: (issue) => cannotExpand(String(issue.input)) }))
      .max(20)
      .describe(expandDescription);
  const of: ExpansionRoot = typeof root === 'string' ? { type: root, shape: 'one' } : root;
  return z
    .array(z.string())
    .max(20)
    .transform((given, context) => {
      const plan = planExpansions(of, given);
      if (!('refused' in plan)) return plan;
      context.issues.push({ code: 'custom', message: plan.message, path: [plan.refused], input: given });
      return z.NEVER;
    })
    .describe(expandDescription);
}

/** v1 list parameters shared by every list operation. */
export const v1ListParams = {
  limit: integerParam(1, 100).optional().describe('A limit on the number of objects to be returned, between 1 and 100 (default 10).'),
  starting_after: idParam().optional().describe('A cursor for pagination: the id of the last object of the previous page, to fetch the next page.'),
  ending_before: idParam().optional().describe('A cursor for pagination: the id of the first object of the previous page, to fetch the page before it.'),
  expand: expandParam().optional().describe('Specifies which fields in the response should be expanded.'),
};

/** A v1 time in Unix seconds, up to the end of year 9999 (what a v2 RFC 3339 time can say). */
export const unixTimeParam = () => integerParam(0, 253402300799);

const unixTime = unixTimeParam();

/**
 * The creation window (epoch ms, both ends inclusive) of v1 bounds given in Unix seconds: `gt`/`gte` and
 * `lt`/`lte` together keep the narrower of each side; an empty window (`gt` after `lt`) stays empty.
 */
export function createdWindow(bounds: { gt?: number; gte?: number; lt?: number; lte?: number }): TimeRange {
  const lower = [bounds.gt === undefined ? undefined : (bounds.gt + 1) * 1000, bounds.gte === undefined ? undefined : bounds.gte * 1000];
  const upper = [bounds.lt === undefined ? undefined : bounds.lt * 1000 - 1, bounds.lte === undefined ? undefined : bounds.lte * 1000 + 999];
  const defined = (values: Array<number | undefined>) => values.filter((value): value is number => value !== undefined);
  const from = defined(lower);
  const to = defined(upper);
  return { from: from.length ? Math.max(...from) : undefined, to: to.length ? Math.min(...to) : undefined };
}

/**
 * v1 `created` of a list, as every reference list that takes it: Unix seconds (`created=…`, that second),
 * or a range of them (`created[gte]=…&created[lt]=…`). Parsed into the creation window a store queries
 * (ids encode their creation time, so the window is a sort-key range); anything else is a 400 naming it.
 */
export const createdParam = () =>
  z
    .union([
      unixTime.transform((seconds) => ({ gte: seconds, lte: seconds })),
      z.strictObject({
        gt: unixTime.optional().describe('Only objects created after this time (Unix seconds).'),
        gte: unixTime.optional().describe('Only objects created at or after this time (Unix seconds).'),
        lt: unixTime.optional().describe('Only objects created before this time (Unix seconds).'),
        lte: unixTime.optional().describe('Only objects created at or before this time (Unix seconds).'),
      }),
    ])
    .transform(createdWindow);

/** A v2 time, in milliseconds: RFC 3339, or Unix seconds (the SDK sends Dates as seconds in a string). */
export const v2Time = () => z.union([z.iso.datetime({ offset: true }).transform((text) => Date.parse(text)), unixTime.transform((seconds) => seconds * 1000)]);
