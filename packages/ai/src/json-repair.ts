/**
 * Repair for the two ways models most often break JSON inside string literals: raw control characters
 * (a literal newline or tab in a code argument) and backslashes that start no valid escape (`"\d+"` in a
 * regex, a Windows path). Everything outside string literals is left as it is.
 */

const SHORT_ESCAPES: Record<string, string> = { "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t" };
const VALID_AFTER_BACKSLASH = new Set(['"', "\\", "/", "b", "f", "n", "r", "t", "u"]);
const HEX4 = /^[0-9a-fA-F]{4}$/;

function escapeControl(char: string): string {
  return SHORT_ESCAPES[char] ?? `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`;
}

/**
 * `json` with every raw control character inside a string escaped, and every backslash that does not begin
 * a valid JSON escape (a trailing one included) doubled. Valid JSON
 * comes back unchanged. One pass, linear in the input.
 */
export function repairJson(json: string): string {
  const out: string[] = [];
  let inString = false;
  let runStart = 0;
  for (let i = 0; i < json.length; i++) {
    const char = json[i] as string;
    if (!inString) {
      if (char === '"') inString = true;
      continue;
    }
    if (char === '"') {
      inString = false;
      continue;
    }
    if (char === "\\") {
      const next = json[i + 1];
      if (next !== undefined && VALID_AFTER_BACKSLASH.has(next)) {
        // A valid escape is copied as is. `\u` counts as one even without four hex digits (JSON.parse then
        // names the bad escape), matching pi-ai.
        i += next === "u" && HEX4.test(json.slice(i + 2, i + 6)) ? 5 : 1;
        continue;
      }
      out.push(json.slice(runStart, i), "\\\\");
      runStart = i + 1;
      continue;
    }
    if (char < " ") {
      out.push(json.slice(runStart, i), escapeControl(char));
      runStart = i + 1;
    }
  }
  if (runStart === 0) return json;
  out.push(json.slice(runStart));
  return out.join("");
}

/**
 * `JSON.parse(json)`, and when that fails, `JSON.parse(repairJson(json))`. Throws the original parse error
 * when repair changes nothing, so the message describes the text the caller passed.
 */
export function parseJsonWithRepair<T>(json: string): T {
  try {
    return JSON.parse(json) as T;
  } catch (error) {
    const repaired = repairJson(json);
    if (repaired === json) throw error;
    return JSON.parse(repaired) as T;
  }
}
