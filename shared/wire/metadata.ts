import { InvalidRequestError } from '#shared/core/errors.ts';

/** Most keys a metadata map holds, after an update is merged in. */
export const maxMetadataKeys = 50;

/** Refuses a merged metadata map over 50 keys (each update alone may be within the bound while the sum is not). */
export function checkMetadataSize<T extends Record<string, unknown> | null>(merged: T, param = 'metadata'): T {
  const count = merged ? Object.keys(merged).length : 0;
  if (count > maxMetadataKeys) {
    throw new InvalidRequestError(
      `metadata can have at most ${maxMetadataKeys} keys; with this update the object would have ${count}. Remove keys by setting them to an empty value.`,
      'parameter_invalid',
      param,
    );
  }
  return merged;
}

/** Applies a v1 metadata update: `null` clears, empty values delete their key, others set. */
export function mergeMetadata(current: Record<string, string>, update: Record<string, string> | null): Record<string, string> {
  if (update === null) return {};
  const merged = { ...current };
  for (const [key, value] of Object.entries(update)) {
    if (value === '') delete merged[key];
    else merged[key] = value;
  }
  return checkMetadataSize(merged);
}
