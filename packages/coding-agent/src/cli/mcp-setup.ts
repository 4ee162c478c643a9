/**
 * MCP in a CLI session: load the servers, settle trust in project servers (`--trust-mcp`, or the TUI's prompt),
 * connect them before the first model request (each within its start-up timeout), and keep the agent's tools
 * in step with the servers' tool lists. The MCP code is imported only when some config file names servers.
 */
import type { AgentTool } from "@tiller/agent";
import type { AgentSession } from "../agent-session/index.js";
import { mayHaveMcpServers } from "../mcp/config-files.js";
import type { McpManager } from "../mcp/manager.js";
import type { McpServerDefinition } from "../mcp/types.js";
import { matchesToolPattern } from "../tools/pipeline.js";
import type { CliArgs } from "./args.js";

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
type AnyTool = AgentTool<any>;

/** Asks the user which untrusted project servers may run; resolves with those trusted. */
export type McpTrustPrompt = (servers: McpServerDefinition[]) => Promise<McpServerDefinition[]>;

export interface McpSetupOptions {
  cwd: string;
  home: string;
  args: CliArgs;
  confirmTrust?: McpTrustPrompt;
  /** Start-up notes (shown before the session starts). */
  note: (level: "info" | "warning" | "error", message: string) => void;
}

export const UNTRUSTED_REASON =
  "project server not trusted yet: run tiller interactively to trust it, or pass --trust-mcp (trust is remembered)";

/** Whether `--tools` lets an MCP tool through: without `--tools` all do; with it, a name or `mcp__*` pattern must match. */
export function mcpToolAllowed(name: string, args: CliArgs): boolean {
  if (args.noTools) return false;
  if (!args.tools) return true;
  return args.tools.some((p) => p.startsWith("mcp__") && matchesToolPattern(p, name));
}

/** Loads, trusts and connects the configured servers; undefined when there are none (or `--no-tools`). */
export async function startMcp(options: McpSetupOptions): Promise<McpManager | undefined> {
  const { cwd, home, args } = options;
  if (args.noTools || !mayHaveMcpServers(cwd, home)) return undefined;
  const { loadMcpConfig, McpManager, McpTrustStore } = await import("../mcp/index.js");
  const { servers, errors } = loadMcpConfig({ cwd, home });
  for (const e of errors) options.note("warning", `MCP config: ${e}`);
  if (servers.length === 0) return undefined;

  const store = new McpTrustStore(home);
  let untrusted = store.untrusted(servers);
  if (untrusted.length > 0 && args.trustMcp) {
    store.trust(untrusted);
    untrusted = [];
  } else if (untrusted.length > 0 && options.confirmTrust) {
    const accepted = await options.confirmTrust(untrusted);
    store.trust(accepted);
    untrusted = untrusted.filter((s) => !accepted.includes(s));
  }
  const blocked = new Map(untrusted.map((s) => [s.name, UNTRUSTED_REASON] as const));
  for (const s of untrusted)
    options.note("warning", `MCP server "${s.name}" (${s.file}) not started: ${UNTRUSTED_REASON}`);

  const manager = new McpManager(servers, { blocked });
  const unsubscribe = manager.subscribe((e) => {
    if (e.type === "mcp_server_problem") options.note("warning", `MCP server "${e.server}": ${e.message}`);
  });
  await manager.start();
  unsubscribe();
  return manager;
}

/**
 * Keeps the session's tools = its own tools + the allowed MCP tools, refreshed on every tool-list change (the
 * agent takes the new list at its next run). Later problems and recoveries go to `notify`, once each.
 */
export function wireMcpTools(
  session: AgentSession,
  manager: McpManager,
  ownTools: readonly AnyTool[],
  args: CliArgs,
  notify: (message: string, level: "info" | "warning" | "error") => void,
): () => void {
  const apply = () =>
    session.agent.setTools([...ownTools, ...manager.tools().filter((t) => mcpToolAllowed(t.name, args))]);
  return manager.subscribe((e) => {
    if (e.type === "mcp_tools_changed") apply();
    else if (e.type === "mcp_server_problem") notify(`MCP server "${e.server}": ${e.message}`, "warning");
    else notify(`MCP server "${e.server}" is back`, "info");
  });
}
