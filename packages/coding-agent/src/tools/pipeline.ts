/**
 * The tool pipeline, in the seed's order: base tools → overrides → extra tools → policy filter (allow /
 * deny, deny wins) → approval rules → schema normalization for the provider → abort-signal wrapping.
 */
import type { AgentTool, ApprovalRequirement, RequiresApproval } from "@tiller/agent";
import type { TSchema } from "@tiller/ai";
import { wrapToolWithAbort } from "./abort-wrap.js";
import { normalizeToolSchema } from "./schema-normalize.js";

/**
 * One policy layer (profile, provider, agent, group, sandbox…). Entries are tool names, `*` wildcards
 * (`browser_*`) or groups (`group:fs`, `group:runtime`, `group:search`).
 */
export interface ToolPolicy {
  /** When set, only matching tools pass this layer. */
  allow?: string[];
  /** Matching tools are removed, whatever any allow list says. */
  deny?: string[];
}

/** Built-in groups usable in policies. */
export const TOOL_GROUPS: Record<string, string[]> = {
  "group:fs": ["read", "write", "edit", "ls", "find", "grep"],
  "group:read": ["read", "ls", "find", "grep"],
  "group:write": ["write", "edit"],
  "group:runtime": ["bash", "exec", "process"],
  "group:search": ["grep", "find", "ls"],
};

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas and details.
type AnyTool = AgentTool<any, any>;

export interface ToolPipelineOptions {
  base: AnyTool[];
  /** Replace base tools by name: one tool, several (bash → exec + process), or null to remove it. Keys absent from `base` are ignored. */
  overrides?: Record<string, AnyTool | AnyTool[] | null>;
  /** Added after the base tools (messaging, browser, channel actions…). */
  extra?: AnyTool[];
  /** A tool must pass every layer. */
  policy?: ToolPolicy | ToolPolicy[];
  /** Provider or API name; when set, parameter schemas are normalized for it. */
  provider?: string;
  /** The run's signal: every tool rejects promptly once it fires. */
  signal?: AbortSignal;
  /** Approval rules added to tools by name (e.g. exec approvals for bash and exec). */
  approvals?: ToolApprovalStage | ToolApprovalStage[];
}

/** An approval rule for the tools named in `tools`; it is asked first, then the tool's own `requiresApproval`. */
export interface ToolApprovalStage {
  tools: readonly string[];
  rule: RequiresApproval;
}

async function evaluateRule(
  rule: RequiresApproval | undefined,
  args: Parameters<Exclude<RequiresApproval, boolean>>[0],
  context: Parameters<Exclude<RequiresApproval, boolean>>[1],
): Promise<ApprovalRequirement> {
  if (rule === undefined) return false;
  return typeof rule === "boolean" ? rule : rule(args, context);
}

/** The tool with `rule` in front of its own approval rule: the first that asks or blocks decides. */
export function withApprovalRule(tool: AnyTool, rule: RequiresApproval): AnyTool {
  const own = tool.requiresApproval;
  return {
    ...tool,
    requiresApproval: async (args, context) => {
      const first = await evaluateRule(rule, args, context);
      return first === false ? evaluateRule(own, args, context) : first;
    },
  };
}

/** Whether a tool name matches a policy pattern: an exact name, or a pattern with `*` wildcards. */
export function matchesToolPattern(pattern: string, name: string): boolean {
  if (!pattern.includes("*")) return pattern === name;
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
  return re.test(name);
}

function entryMatches(entry: string, name: string): boolean {
  const group = TOOL_GROUPS[entry];
  if (group) return group.includes(name);
  return matchesToolPattern(entry, name);
}

/** Whether `name` passes all policy layers (deny wins over allow). */
export function isToolAllowed(name: string, policy?: ToolPolicy | ToolPolicy[]): boolean {
  const layers = policy === undefined ? [] : Array.isArray(policy) ? policy : [policy];
  for (const layer of layers) {
    if (layer.deny?.some((e) => entryMatches(e, name))) return false;
    if (layer.allow && !layer.allow.some((e) => entryMatches(e, name))) return false;
  }
  return true;
}

/** Assemble the tools for one run. Throws when two tools end up with the same name. */
export function buildToolPipeline(options: ToolPipelineOptions): AnyTool[] {
  const overrides = options.overrides ?? {};
  const staged: AnyTool[] = [];
  for (const tool of options.base) {
    if (!Object.hasOwn(overrides, tool.name)) {
      staged.push(tool);
      continue;
    }
    const replacement = overrides[tool.name];
    if (replacement === null || replacement === undefined) continue;
    staged.push(...(Array.isArray(replacement) ? replacement : [replacement]));
  }
  staged.push(...(options.extra ?? []));

  const seen = new Set<string>();
  for (const tool of staged) {
    if (seen.has(tool.name)) throw new Error(`Duplicate tool name in pipeline: ${tool.name}`);
    seen.add(tool.name);
  }

  let tools = staged.filter((t) => isToolAllowed(t.name, options.policy));
  const stages = options.approvals === undefined ? [] : [options.approvals].flat();
  for (const stage of stages) {
    tools = tools.map((t) => (stage.tools.includes(t.name) ? withApprovalRule(t, stage.rule) : t));
  }
  const provider = options.provider;
  if (provider) {
    tools = tools.map((t) => ({ ...t, parameters: normalizeToolSchema(t.parameters, provider) as unknown as TSchema }));
  }
  const signal = options.signal;
  if (signal) tools = tools.map((t) => wrapToolWithAbort(t, signal));
  return tools;
}
