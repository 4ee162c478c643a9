/** Building blocks shared by the protocol schemas. */
import { type TEnum, type TSchema, Type } from "typebox";

/** A string with at least one non-whitespace character ("required non-empty string" in errors). */
export const NonEmptyString = (opts: { maxLength?: number; description?: string } = {}) =>
  Type.String({ minLength: 1, pattern: "\\S", ...opts });

/** `T` or `null` (a patch that clears a field). */
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** A string that is one of `values` (a JSON Schema `enum`). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  opts: { description?: string } = {},
): TEnum<[...T]> {
  return Type.Enum([...values], opts) as unknown as TEnum<[...T]>;
}

/** Milliseconds since the epoch. */
export const Timestamp = (description?: string) =>
  Type.Integer({ minimum: 0, ...(description ? { description } : {}) });

/** An object whose keys the protocol does not fix (extensions, free-form details). */
export const OpenObject = (description?: string) =>
  Type.Record(Type.String(), Type.Unknown(), description ? { description } : {});
