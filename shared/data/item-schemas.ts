import * as z from 'zod';

/** Pieces of the item schemas the stores parse what the table answers with (a malformed item fails loudly). */
export const scopeItem = z.object({ accountId: z.string(), livemode: z.boolean() });

/** An attribute that may be absent or null on older items; read as null. */
export const orNull = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value): z.output<T> | null => value ?? null);
