const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A v2 update: nested objects merge member by member, `null` removes a member, arrays and scalars replace.
 * Returns a new object; `current` is untouched.
 */
export function mergeUpdate(current: Record<string, unknown> | null | undefined, patch: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...(current ?? {}) };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete merged[key];
    else if (isPlainObject(value) && isPlainObject(merged[key])) merged[key] = mergeUpdate(merged[key] as Record<string, unknown>, value);
    else if (isPlainObject(value)) merged[key] = mergeUpdate({}, value);
    else merged[key] = value;
  }
  return merged;
}

/** Drops the `value` of every id number (accepted, checked, never stored): only `type` (and `registrar`) stay. */
export function withoutIdNumberValues<T>(input: T): T {
  if (Array.isArray(input)) return input.map(withoutIdNumberValues) as T;
  if (!isPlainObject(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    out[key] =
      key === 'id_numbers' && Array.isArray(value) ? value.map(({ value: _secret, ...kept }: Record<string, unknown>) => kept) : withoutIdNumberValues(value);
  }
  return out as T;
}
