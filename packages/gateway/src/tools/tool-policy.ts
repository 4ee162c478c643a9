/**
 * Gateway tool policy. A tool must pass every layer, in order: profile (base allowlist), global allow/deny,
 * provider (`tools.byProvider.<provider>`), agent (`agents.list[].tools`), group chat (`tools.group`), sandbox
 * (`tools.sandbox`, plus "no write tools" for a read-only mount). Deny always wins: a tool denied by any layer is
 * gone, whatever a later allow says. Entries are tool names, `*` wildcards or `group:<name>`.
 */
import { matchesToolPattern } from "@tiller/coding-agent";

/** One layer; same shape as coding-agent's `ToolPolicy` (entries here are already expanded). */
export interface ToolPolicyLayer {
  /** Which layer this is (for diagnostics). */
  source: string;
  allow?: string[];
  deny?: string[];
}

export type ToolProfile = "full" | "coding" | "messaging" | "minimal";

/** Tool groups usable in any allow/deny list. */
export const GATEWAY_TOOL_GROUPS: Readonly<Record<string, readonly string[]>> = {
  "group:fs": ["read", "write", "edit", "apply_patch", "ls", "find", "grep"],
  "group:write": ["write", "edit", "apply_patch"],
  "group:runtime": ["exec", "process", "bash"],
  "group:sessions": ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "session_status"],
  "group:memory": ["memory_search", "memory_get"],
  "group:web": ["web_search", "web_fetch"],
  "group:messaging": ["message"],
  "group:automation": ["cron", "gateway"],
};

/** Base allowlists; `full` allows everything. */
export const TOOL_PROFILES: Readonly<Record<ToolProfile, readonly string[] | undefined>> = {
  full: undefined,
  coding: ["group:fs", "group:runtime", "group:web", "group:sessions", "group:memory", "cron", "image"],
  messaging: ["group:messaging", "sessions_list", "sessions_history", "sessions_send", "session_status"],
  minimal: ["session_status"],
};

/** Expands `group:*` entries (unknown groups expand to nothing, so they never match by accident). */
export function expandToolEntries(entries: readonly string[] | undefined): string[] | undefined {
  if (!entries) return undefined;
  const out: string[] = [];
  for (const e of entries) {
    if (e.startsWith("group:")) out.push(...(GATEWAY_TOOL_GROUPS[e] ?? []));
    else out.push(e);
  }
  return [...new Set(out)];
}

/** The first layer that removes `name`, or undefined when every layer lets it through. */
export function toolDeniedBy(name: string, layers: readonly ToolPolicyLayer[]): string | undefined {
  for (const layer of layers) {
    if (layer.deny?.some((e) => matchesToolPattern(e, name))) return layer.source;
    if (layer.allow && !layer.allow.some((e) => matchesToolPattern(e, name))) return layer.source;
  }
  return undefined;
}

export function isToolAllowedByLayers(name: string, layers: readonly ToolPolicyLayer[]): boolean {
  return toolDeniedBy(name, layers) === undefined;
}

export function filterToolsByPolicy<T extends { name: string }>(
  tools: readonly T[],
  layers: readonly ToolPolicyLayer[],
) {
  return tools.filter((t) => isToolAllowedByLayers(t.name, layers));
}

export interface ResolveToolPolicyOptions {
  /** The raw tiller.json object. */
  config?: Record<string, unknown>;
  provider?: string;
  agentId?: string;
  /** The session is a group chat (applies `tools.group`). */
  isGroup?: boolean;
  sandbox?: { enabled: boolean; readOnly: boolean };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const strList = (v: unknown): string[] | undefined =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : undefined;

function layerFrom(source: string, section: unknown, withProfile: boolean): ToolPolicyLayer[] {
  if (!isObj(section)) return [];
  const out: ToolPolicyLayer[] = [];
  if (withProfile && typeof section.profile === "string") {
    const profile = section.profile as ToolProfile;
    if (!(profile in TOOL_PROFILES)) throw new Error(`${source}.profile: unknown tool profile "${section.profile}"`);
    const allow = TOOL_PROFILES[profile];
    if (allow) out.push({ source: `${source}.profile(${profile})`, allow: expandToolEntries(allow) });
  }
  const allow = expandToolEntries(strList(section.allow));
  const deny = expandToolEntries(strList(section.deny));
  if (allow || deny) out.push({ source, allow, deny });
  return out;
}

/** Builds the layers for one run from tiller.json. Throws on an unknown profile name (a config error). */
export function resolveToolPolicy(options: ResolveToolPolicyOptions): ToolPolicyLayer[] {
  const raw = options.config ?? {};
  const tools = isObj(raw.tools) ? raw.tools : {};
  const layers: ToolPolicyLayer[] = [...layerFrom("tools", tools, true)];
  if (options.provider && isObj(tools.byProvider)) {
    layers.push(...layerFrom(`tools.byProvider.${options.provider}`, tools.byProvider[options.provider], true));
  }
  if (options.agentId && isObj(raw.agents) && Array.isArray((raw.agents as Obj).list)) {
    const entry = ((raw.agents as Obj).list as unknown[]).find((a) => isObj(a) && a.id === options.agentId);
    if (isObj(entry)) layers.push(...layerFrom(`agents.list[${options.agentId}].tools`, entry.tools, true));
  }
  if (options.isGroup) layers.push(...layerFrom("tools.group", tools.group, false));
  if (options.sandbox?.enabled) {
    layers.push(...layerFrom("tools.sandbox", tools.sandbox, false));
    if (options.sandbox.readOnly) {
      layers.push({ source: "sandbox(read-only)", deny: expandToolEntries(["group:write"]) });
    }
  }
  return layers;
}
