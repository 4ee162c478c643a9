/**
 * Session keys: `agent:<agentId>:<rest>`. A bare key ("work") belongs to the default agent
 * ("agent:main:work"); the main session of an agent is `agent:<id>:main`.
 */
export const MAIN_KEY = "main";

export interface ParsedSessionKey {
  key: string;
  agentId: string;
  rest: string;
}

/** Canonical form of a client-supplied key (lower-cased agent id, trimmed). Throws on an empty key. */
export function normalizeSessionKey(
  raw: string | undefined,
  defaultAgentId: string,
  agentId?: string,
): ParsedSessionKey {
  const input = (raw ?? "").trim();
  if (!input) {
    const id = (agentId ?? defaultAgentId).toLowerCase();
    return { key: `agent:${id}:${MAIN_KEY}`, agentId: id, rest: MAIN_KEY };
  }
  if (input.startsWith("agent:")) {
    const second = input.indexOf(":", 6);
    if (second > 6 && second < input.length - 1) {
      const id = input.slice(6, second).toLowerCase();
      const rest = input.slice(second + 1);
      return { key: `agent:${id}:${rest}`, agentId: id, rest };
    }
    const id = input.slice(6).toLowerCase() || defaultAgentId;
    return { key: `agent:${id}:${MAIN_KEY}`, agentId: id, rest: MAIN_KEY };
  }
  const id = (agentId ?? defaultAgentId).toLowerCase();
  return { key: `agent:${id}:${input}`, agentId: id, rest: input };
}
