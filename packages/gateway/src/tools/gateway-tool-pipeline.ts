/**
 * The tools of one gateway run, in the seed's order: coding tools (read, edit, write, grep, find, ls) with
 * exec/process in place of bash → gateway tools (message, sessions…) → channel tools → plugin tools → policy
 * filter (profile, provider, agent, group, sandbox; deny wins) → schema normalization for the provider → plugin
 * hooks and result sanitizing → abort-signal wrapping. Built on coding-agent's `buildToolPipeline`; the gateway
 * adds its policy layers, its tools and the hook wrapper.
 */
import type { AgentTool } from "@tiller/agent";
import { buildToolPipeline, createAllTools, wrapToolWithAbort } from "@tiller/coding-agent";
import type { HookRunner } from "../plugins/hook-runner.js";
import type { PluginHookContext } from "../plugins/hook-types.js";
import type { SandboxContext } from "../workspace.js";
import { wrapToolWithHooks } from "./tool-hooks.js";
import { resolveToolPolicy, type ToolPolicyLayer, toolDeniedBy } from "./tool-policy.js";
import type { SanitizeOptions } from "./tool-result-sanitizer.js";

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas and details.
type AnyTool = AgentTool<any, any>;

export interface GatewayToolsetOptions {
  /** The agent workspace (tools work in `sandbox.workspaceDir` when sandboxed). */
  workspaceDir: string;
  sandbox?: SandboxContext;
  /** Provider name, for policy (`tools.byProvider`) and schema normalization. */
  provider?: string;
  agentId?: string;
  isGroup?: boolean;
  /** The raw tiller.json object (tool policy). */
  config?: Record<string, unknown>;
  /** Replaces the coding tools (tests). */
  base?: AnyTool[];
  gatewayTools?: AnyTool[];
  channelTools?: AnyTool[];
  pluginTools?: AnyTool[];
  hooks?: HookRunner;
  hookContext?: PluginHookContext;
  signal?: AbortSignal;
  /** Extra environment for exec (skill env). */
  env?: Record<string, string>;
  modelAcceptsImages?: boolean;
  sanitize?: SanitizeOptions | false;
}

export interface GatewayToolset {
  tools: AnyTool[];
  policy: ToolPolicyLayer[];
  /** Tools the policy removed, and the layer that removed each. */
  removed: { name: string; by: string }[];
}

/** Builds the run's tools. Throws on a config error (unknown profile) or a duplicate tool name. */
export function buildGatewayToolset(o: GatewayToolsetOptions): GatewayToolset {
  const root = o.sandbox?.enabled ? o.sandbox.workspaceDir : o.workspaceDir;
  const sandboxed = o.sandbox?.enabled === true;
  let base = o.base;
  let overrides: Record<string, AnyTool | AnyTool[] | null> = {};
  if (!base) {
    const all = createAllTools(root, {
      sandbox: sandboxed,
      modelAcceptsImages: o.modelAcceptsImages,
      exec: o.env ? { env: { ...process.env, ...o.env } } : undefined,
    });
    base = [all.read, all.bash, all.edit, all.write, all.grep, all.find, all.ls].filter(
      (t): t is AnyTool => t !== undefined,
    );
    overrides = { bash: [all.exec, all.process].filter((t): t is AnyTool => t !== undefined) };
  }
  const extra = [...(o.gatewayTools ?? []), ...(o.channelTools ?? []), ...(o.pluginTools ?? [])];
  const policy = resolveToolPolicy({
    config: o.config,
    provider: o.provider,
    agentId: o.agentId,
    isGroup: o.isGroup,
    sandbox: o.sandbox ? { enabled: o.sandbox.enabled, readOnly: o.sandbox.readOnly } : undefined,
  });
  // Policy and normalization by coding-agent's pipeline; abort wrapping comes last (below) so it also covers the
  // time plugin hooks take.
  const filtered = buildToolPipeline({
    base,
    overrides,
    extra,
    policy: policy.map(({ allow, deny }) => ({ allow, deny })),
    provider: o.provider,
  });
  const staged = [
    ...base.flatMap((t) => (Object.hasOwn(overrides, t.name) ? (overrides[t.name] as AnyTool[]) : [t])),
    ...extra,
  ];
  const kept = new Set(filtered.map((t) => t.name));
  const removed = staged
    .filter((t) => !kept.has(t.name))
    .map((t) => ({ name: t.name, by: toolDeniedBy(t.name, policy) ?? "policy" }));
  const hooked = filtered.map((t) =>
    wrapToolWithHooks(t, { hooks: o.hooks, context: o.hookContext, sanitize: o.sanitize }),
  );
  // Every tool ends when its call's signal (the agent's) aborts, even one that ignores it; `signal` adds another.
  const tools = hooked.map((t) => wrapToolWithAbort(t, o.signal));
  return { tools, policy, removed };
}
