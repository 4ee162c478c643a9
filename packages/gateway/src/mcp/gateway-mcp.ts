/**
 * MCP servers of the gateway: `mcp.servers` in tiller.json, the same shape as Claude Code's `mcpServers`
 * (`{"<name>": {"command","args","env","cwd"} | {"type":"http"|"sse","url","headers"}}`, `${VAR}` expanded).
 * tiller.json is the operator's own file, so these servers need no trust prompt. They connect when the gateway
 * starts, their tools join every run's tool pipeline (policy, plugin before/after_tool_call, sanitizing, abort)
 * as plugin tools do, problems go to the gateway log once each, and they stop with the gateway.
 */
import type { AgentTool } from "@tiller/agent";
import { McpManager, type McpServerStatus, resolveMcpServers } from "@tiller/coding-agent";
import type { TillerConfig } from "../config/config-types.js";

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas and details.
type AnyTool = AgentTool<any, any>;

/** What the gateway holds: the tools for runs, the state for `status`, and stop for shutdown. */
export interface GatewayMcp {
  /**
   * The servers' current tools (empty when none are configured). Waits for the servers' first connection
   * attempt, so the first run after start-up already has them.
   */
  tools(): Promise<AnyTool[]>;
  /** One entry per configured server, plus the configuration errors. */
  status(): { servers: McpServerStatus[]; errors: string[] };
  stop(): Promise<void>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const NONE: GatewayMcp = { tools: async () => [], status: () => ({ servers: [], errors: [] }), stop: async () => {} };

/**
 * Reads `mcp.servers` and starts connecting every server (each within its start-up timeout) without waiting:
 * the gateway listens at once, and a run waits for the servers' first attempt only when it builds its tools. A
 * broken server never stops the gateway from starting.
 */
export function startGatewayMcp(
  config: TillerConfig,
  log: (line: string) => void,
  options: { toolsEnabled?: boolean } = {},
): GatewayMcp {
  const mcp = config.raw.mcp;
  if (mcp === undefined) return NONE;
  if (options.toolsEnabled === false) {
    // Plain chat runs have no tools to offer: starting the servers would only cost processes.
    log("[mcp] tools.enabled is false: the MCP servers in mcp.servers are not started");
    return NONE;
  }
  const { servers, errors } = resolveMcpServers(isObj(mcp) ? mcp.servers : mcp, {
    file: "tiller.json",
    scope: "user",
    key: isObj(mcp) ? "mcp.servers" : "mcp",
    root: config.agents.defaults.workspace,
  });
  for (const e of errors) log(`[mcp] ${e}`);
  if (servers.length === 0) return { ...NONE, status: () => ({ servers: [], errors }) };
  const manager = new McpManager(servers, { clientInfo: { name: "tiller-gateway", version: "0.1.0" } });
  manager.subscribe((e) => {
    if (e.type === "mcp_server_problem") log(`[mcp] server "${e.server}": ${e.message}`);
    else if (e.type === "mcp_server_recovered") log(`[mcp] server "${e.server}" is back`);
  });
  const started = manager.start().then(() => {
    const up = manager.status().filter((s) => s.state === "connected");
    log(
      `[mcp] ${up.length}/${servers.length} servers connected (${up.map((s) => `${s.name}: ${s.tools.length} tools`).join(", ")})`,
    );
  });
  return {
    tools: async () => {
      await started;
      return manager.tools();
    },
    status: () => ({ servers: manager.status(), errors }),
    stop: () => manager.stop(),
  };
}
