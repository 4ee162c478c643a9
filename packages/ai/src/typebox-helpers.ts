/** Schema helpers on top of TypeBox for tool parameters that every provider accepts. */
import { type TUnsafe, Type } from "typebox";

/**
 * A string enum as `{ type: "string", enum: [...] }`. `Type.Union` of literals becomes `anyOf`/`const`,
 * which Gemini's schema subset and several OpenAI-compatible servers reject; this form works everywhere.
 * `Static<typeof schema>` is the union of the values.
 */
export function StringEnum<T extends readonly string[]>(
  values: T,
  options?: { description?: string; default?: T[number] },
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({
    type: "string",
    enum: values,
    ...(options?.description ? { description: options.description } : {}),
    ...(options?.default ? { default: options.default } : {}),
  });
}
