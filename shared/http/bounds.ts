import { NotFoundError } from '#shared/core/errors.ts';
import { maxIdLength } from '#shared/wire/params.ts';

/** Every id this service makes, and every id it can find: letters, digits, `_` and `-`, at most 255 of them. */
const idShape = new RegExp(`^[A-Za-z0-9_-]{1,${maxIdLength}}$`);

export const isIdShaped = (value: string): boolean => idShape.test(value);

/** A value as an error message may quote it: bounded, so a 3,000-character input is not echoed back whole. */
export const quoted = (value: string): string => (value.length > 40 ? `${value.slice(0, 40)}…` : value);

/**
 * Ids in the path that no object can have (too long for a table key, or with characters no id has) are
 * answered as missing, exactly as an id that does not exist, before any key is built from them.
 */
export function checkPathIds(pathParameters: Record<string, string>): void {
  for (const value of Object.values(pathParameters)) {
    if (!isIdShaped(value)) throw new NotFoundError('object', quoted(value));
  }
}
