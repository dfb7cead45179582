import type * as z from 'zod';
import type { RawParams } from './encoding.ts';

type Def = { type: string } & Record<string, unknown>;

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The schema a raw value meets once the wrappers that do not change its shape (optional, default, a pipe's input…) are taken off. */
function unwrapped(schema: unknown): unknown {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (['optional', 'nullable', 'default', 'prefault', 'nonoptional', 'readonly', 'catch'].includes(def.type)) current = def.innerType;
    else if (def.type === 'pipe') current = def.in;
    else if (def.type === 'lazy') current = (def.getter as () => unknown)();
    else return current;
  }
}

function walk(schema: z.ZodType, value: unknown): unknown {
  const target = unwrapped(schema);
  const def = defOf(target);
  if (def.type === 'array') {
    if (typeof value === 'string') return [value];
    return Array.isArray(value) ? value.map((item) => walk(def.element as z.ZodType, item)) : value;
  }
  if (def.type === 'object' && isPlainObject(value)) {
    const shape = def.shape as Record<string, z.ZodType>;
    return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, Object.hasOwn(shape, name) ? walk(shape[name]!, item) : item]));
  }
  if (def.type === 'union' && typeof value === 'string') {
    const options = def.options as z.ZodType[];
    const array = options.find((option) => defOf(unwrapped(option)).type === 'array');
    if (array && !options.some((option) => option !== array && option.safeParse(value).success)) return [value];
  }
  return value;
}

/**
 * In a query string or a form body, an array parameter sent with one plain value (`types=v1.customer.created`,
 * what a generic OpenAPI client sends for an array of one in the `form` style the document declares) is
 * that one-element array, as `types[0]=…` and `types[]=…` (the SDK's forms) already are. Walks `value`
 * along `schema`: objects and arrays of objects by their fields, a union only where none of its other
 * members takes the plain value as it is (so `preferred_locales=` still clears). JSON bodies never pass
 * through here: v2 JSON stays strict.
 */
export const singleValuesAsArrays = (schema: z.ZodType, params: RawParams): RawParams => walk(schema, params) as RawParams;
