/**
 * Diagnostics attached to an assistant message: structured records of failures a provider recovered from or
 * reported (a retry, a dropped chunk), kept on the message so a transcript explains itself later. The shapes
 * and names are pi-ai's; `AssistantMessage.diagnostics` carries them.
 */
import type { AssistantMessageDiagnostic, DiagnosticErrorInfo } from "./types.js";

/** Short readable text of anything thrown: an Error's message (or name), a string as is, else `String()`. */
export function formatThrownValue(value: unknown): string {
  if (value instanceof Error) return value.message || value.name;
  if (typeof value === "string") return value;
  return String(value);
}

/**
 * The serialisable parts of a thrown value. Non-errors become `{ name: "ThrownValue", message }`; an Error
 * keeps its name, message (its name when the message is empty), stack and a string or numeric `code`.
 */
export function extractDiagnosticError(error: unknown): DiagnosticErrorInfo {
  if (!(error instanceof Error)) return { name: "ThrownValue", message: formatThrownValue(error) };
  const code = (error as { code?: unknown }).code;
  return {
    name: error.name || undefined,
    message: error.message || error.name,
    stack: error.stack,
    code: typeof code === "string" || typeof code === "number" ? code : undefined,
  };
}

/** A diagnostic of `type`, stamped now, describing `error`, with optional free-form `details`. */
export function createAssistantMessageDiagnostic(
  type: string,
  error: unknown,
  details?: Record<string, unknown>,
): AssistantMessageDiagnostic {
  return { type, timestamp: Date.now(), error: extractDiagnosticError(error), details };
}

/**
 * Appends `diagnostic` to `message.diagnostics`. The array is replaced, not pushed to, so a snapshot taken
 * earlier (an event's `partial`, a state copy) keeps the list it had.
 */
export function appendAssistantMessageDiagnostic<T extends { diagnostics?: AssistantMessageDiagnostic[] }>(
  message: T,
  diagnostic: AssistantMessageDiagnostic,
): void {
  message.diagnostics = [...(message.diagnostics ?? []), diagnostic];
}
